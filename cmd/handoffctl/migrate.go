package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/handoff-dev/handoff/store"
	storebackend "github.com/handoff-dev/handoff/store/backend"
	"github.com/handoff-dev/handoff/store/postgres"
)

var migrateCmd = &command{
	name:  "migrate",
	short: "create or bring up to date the schema of a PostgreSQL store",
	long: `Migrate applies to the PostgreSQL database of --store (a postgres:// URL, or
HANDOFF_STORE) the schema migrations this version ships and the database lacks, each in
a transaction of its own, and lists them. A database already at this version's schema is
left as it is: its version is read, and nothing else is done. Every other command
refuses a database whose schema is not at this version's. The role of the URL needs the
right to create tables in the schema of its search_path when there is a migration to
apply, and only then.

With -o json the output is one JSON object: applied (version, name) and version.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) > 0 {
				return usagef("migrate takes no arguments: the database is --store URL")
			}
			if !store.IsURL(c.db.value) {
				return usagef("migrate applies to a PostgreSQL store: --store postgres://… (a Badger directory needs no migration)")
			}
			applied, err := postgres.Migrate(ctx, store.Options{URL: c.db.value})
			if err != nil {
				return err
			}
			type migration struct {
				Version int    `json:"version"`
				Name    string `json:"name"`
			}
			out := struct {
				Applied []migration `json:"applied"`
				Version int         `json:"version"`
			}{Applied: []migration{}, Version: postgres.SchemaVersion()}
			for _, m := range applied {
				out.Applied = append(out.Applied, migration{m.Version, m.Name})
			}
			if c.json() {
				return writeJSON(c.stdout, out)
			}
			for _, m := range applied {
				fmt.Fprintf(c.stdout, "applied migration %d %s\n", m.Version, m.Name)
			}
			fmt.Fprintf(c.stdout, "schema at version %d (%s)\n", out.Version, redactedURL(c.db.value))
			return nil
		}
	},
}

var copyCmd = &command{
	name:  "copy",
	args:  "--from DIR|URL --to DIR|URL",
	short: "copy a store to another backend, and verify the copy",
	long: `Copy copies every workflow chain, audit stream, idempotency key and record id of
the store --from into the store --to, which must be empty: a Badger directory (created
when missing) or a migrated PostgreSQL database. Records are copied byte for byte, so
their hashes, decision ids and answers stay the same. Each chain is verified before it is
copied and again in the target; a chain that does not verify stops the copy (exit 3).
--from is opened read-only: stop the processes that write it first, or copy from a
backup restored elsewhere. After a copy, 'handoffctl replay --all --store TARGET'
decides every recorded request again.

With -o json the output is one JSON object: chains, records, keys, ids.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		from := fs.String("from", "", "the source store: a directory or a postgres:// URL (required)")
		to := fs.String("to", "", "the target store: a new directory or a migrated postgres:// URL (required)")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if *from == "" || *to == "" || len(args) > 0 {
				return usagef("copy takes --from DIR|URL --to DIR|URL and no arguments")
			}
			src, err := storebackend.Open(ctx, storeOptions(*from, true))
			if err != nil {
				return withHint(err, "--from names an existing store: a directory no process holds, or a postgres:// URL")
			}
			defer func() { err = errors.Join(err, src.Close()) }()
			dst, err := storebackend.Open(ctx, storeOptions(*to, false))
			if err != nil {
				return err
			}
			defer func() { err = errors.Join(err, dst.Close()) }()
			p := c.startProgress("chains copied", 0)
			rep, err := store.Copy(ctx, dst, src, func(store.Chain) { p.step(1) })
			p.finish()
			if err != nil {
				if errors.Is(err, store.ErrTampered) {
					return negativef("%v", err)
				}
				return err
			}
			if c.json() {
				return writeJSON(c.stdout, rep)
			}
			fmt.Fprintf(c.stdout, "copied %s (%s), %s and %s from %s to %s; every chain verifies in the target\n",
				count(rep.Chains, "chain"), count(rep.Records, "record"), count(rep.Keys, "idempotency key"), count(rep.IDs, "record id"), storeName(*from), storeName(*to))
			return nil
		}
	},
}

// storeOptions opens where: a postgres:// URL or a Badger directory.
func storeOptions(where string, readOnly bool) store.Options {
	if store.IsURL(where) {
		return store.Options{URL: where, ReadOnly: readOnly}
	}
	return store.Options{Dir: where, ReadOnly: readOnly}
}

// storeName is where, without a URL's password.
func storeName(where string) string {
	if store.IsURL(where) {
		return redactedURL(where)
	}
	return where
}
