package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/handoff-dev/handoff/service/client"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/badger"
)

var backupCmd = &command{
	name:  "backup",
	args:  "--out FILE",
	short: "write a full copy of the store, while it runs",
	long: `Backup writes a full copy of the store of --store to FILE: every record, snapshot, head,
idempotency key and audit stream as of one moment. Through --server it is taken while
the server runs (GET /v1/backup, an admin token's only); otherwise the store of --store is
opened (with --read-only, a store no process holds). The file is written beside FILE
and renamed when complete. 'handoffctl restore' makes a store of it again.

A copy of a store's directory made with cp or rsync while a process writes it is not a
backup: its files are from different moments, and opening or reading it fails with
"the store's files do not agree with each other" (or silently lacks the last writes).

With -o json the output is one JSON object: file, bytes.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		out := fs.String("out", "", "the backup `FILE` (required)")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if *out == "" || len(args) > 0 {
				return usagef("backup takes --out FILE and no arguments")
			}
			var write func(io.Writer) error
			if c.server != "" {
				cl := client.New(c.server, os.Getenv("HANDOFF_TOKEN"), nil)
				defer cl.Close()
				write = func(w io.Writer) error { return serverHint(cl.Backup(ctx, w)) }
			} else {
				e, err := c.open(ctx, existingStore)
				if err != nil {
					return err
				}
				defer closeEngine(e, &err)
				write = func(w io.Writer) error { return e.Backup(ctx, w) }
			}
			cw := &countingWriter{}
			if _, err := exportFile(*out, func(w io.Writer) (int, error) {
				cw.w = w
				return 0, write(cw)
			}); err != nil {
				return err
			}
			if c.json() {
				return writeJSON(c.stdout, struct {
					File  string `json:"file"`
					Bytes int64  `json:"bytes"`
				}{*out, cw.n})
			}
			fmt.Fprintf(c.stdout, "backup written to %s (%s)\n", *out, count(cw.n, "byte"))
			return nil
		}
	},
}

// countingWriter counts what goes through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

var restoreCmd = &command{
	name:  "restore",
	args:  "--from FILE",
	short: "make the store of --store from a backup, and verify it",
	long: `Restore makes the store of --store, which must not exist yet (or be an empty directory),
from a file 'handoffctl backup' wrote, then opens it and verifies every chain and audit
stream. It exits 3 when a chain does not verify. Every decision of the restored store
replays as recorded: 'handoffctl --store DIR replay --all' checks it with the shipped
packs (--bundle for others).

With -o json the output is one JSON object, as 'handoffctl verify -o json' prints it.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		from := fs.String("from", "", "the backup `FILE` (required)")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if *from == "" || len(args) > 0 {
				return usagef("restore takes --from FILE and no arguments")
			}
			if err := c.local("restore"); err != nil {
				return err
			}
			if c.readOnly {
				return usagef("--read-only opens a store for reading: restore writes one")
			}
			if store.IsURL(c.db.value) {
				return usagef("restore makes a Badger store in a new directory: to fill a PostgreSQL store, restore into a directory, then 'handoffctl copy --from DIR --to URL'")
			}
			f, err := os.Open(*from)
			if err != nil {
				return err
			}
			defer f.Close()
			l, err := badger.Restore(ctx, store.Options{Dir: c.db.value}, f)
			switch {
			case errors.Is(err, syscall.EISDIR):
				return withHint(err, "--from names the backup file 'handoffctl backup --out FILE' wrote")
			case err != nil:
				return withHint(err, "restore makes a new store: name a directory that does not exist with --store")
			}
			if err := l.Close(); err != nil {
				return err
			}
			e, err := c.open(ctx, existingStore)
			if err != nil {
				return err
			}
			defer closeEngine(e, &err)
			reps, err := e.VerifyAll(ctx)
			if err != nil {
				return err
			}
			if !c.json() {
				fmt.Fprintf(c.stdout, "restored %s from %s\n", c.db.value, *from)
			}
			return c.verified("", reps)
		}
	},
}
