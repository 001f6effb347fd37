// Package backend opens a store on the backend its options name. It is the one package
// that links both backends; a program that needs one of them only imports
// store/badger or store/postgres instead.
package backend

import (
	"context"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/badger"
	"github.com/handoff-dev/handoff/store/internal/chain"
	"github.com/handoff-dev/handoff/store/postgres"
)

// Open opens the store opts names: a PostgreSQL database when opts.URL is set
// ("postgres://…" or "postgresql://…"), else a Badger store in opts.Dir (or in memory).
func Open(ctx context.Context, opts store.Options) (store.Log, error) {
	if opts.URL != "" {
		if !store.IsURL(opts.URL) {
			return nil, chain.Invalid("options: URL %q is not a postgres:// or postgresql:// URL", chain.RedactURL(opts.URL))
		}
		return postgres.Open(ctx, opts)
	}
	return badger.Open(ctx, opts)
}
