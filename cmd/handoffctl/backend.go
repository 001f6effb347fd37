package main

import (
	"context"
	"errors"
	"os"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/service/client"
)

// backend is what the reading and deciding commands need: the engine on the store of
// --db, or a running server's API with --server (both are a handoff.Service).
type backend = handoff.Service

// backend returns the server's client with --server, else the engine on the store mode
// asks for.
func (c *cli) backend(ctx context.Context, mode storeMode) (backend, error) {
	if c.server != "" {
		if c.bundle.set {
			return nil, usagef("--bundle and --server do not go together: a server decides with its own bundle")
		}
		return client.New(c.server, os.Getenv("HANDOFF_TOKEN"), nil), nil
	}
	return c.open(ctx, mode)
}

// local refuses --server for a command that works on the store itself.
func (c *cli) local(name string) error {
	if c.server != "" {
		return usagef("%s works on the store of --store, not through --server", name)
	}
	return nil
}

// closeBackend closes a backend, keeping the first error.
func closeBackend(b backend, err *error) {
	*err = errors.Join(*err, b.Close())
}

// serverHint says what to do about an error answer of a server.
func serverHint(err error) error {
	var ce *client.Error
	if errors.As(err, &ce) && ce.Hint != "" {
		return withHint(err, ce.Hint)
	}
	if errors.As(err, &ce) && ce.Status == 401 {
		return withHint(err, "set HANDOFF_TOKEN to a token of the server's principals file")
	}
	return err
}
