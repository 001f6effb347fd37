package badger

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// Backup writes a full copy of the store to w while it is in use: a consistent view of
// every record, snapshot, head, key and audit stream as of one moment (the storage
// engine's backup stream). Restore reads it back.
func (l *Log) Backup(ctx context.Context, w io.Writer) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	if _, err := l.db.Backup(w, 0); err != nil {
		return wrap("backup", err)
	}
	return nil
}

// Restore creates the store of opts.Dir from a backup Backup wrote. The directory must
// not hold a store yet. The restored store is opened, checked to be one this version
// reads, and returned open.
func Restore(ctx context.Context, opts store.Options, r io.Reader) (*Log, error) {
	if opts.InMemory || opts.ReadOnly {
		return nil, chain.Invalid("restore: a restore writes a store on disk")
	}
	entries, err := os.ReadDir(opts.Dir)
	existed := err == nil
	switch {
	case existed && len(entries) > 0:
		return nil, &store.Error{Op: "restore", Err: fmt.Errorf("%s is not empty: restore into a new directory", opts.Dir)}
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, wrap("restore", err)
	}
	l, err := Open(ctx, opts)
	if err != nil {
		return nil, err
	}
	// A restore that fails leaves the directory as it found it (missing, or empty), so
	// that it can be tried again.
	undo := func(cause error) error {
		err := errors.Join(wrap("restore", cause), l.Close())
		if !existed {
			return errors.Join(err, os.RemoveAll(opts.Dir))
		}
		made, rerr := os.ReadDir(opts.Dir)
		for _, e := range made {
			rerr = errors.Join(rerr, os.RemoveAll(filepath.Join(opts.Dir, e.Name())))
		}
		return errors.Join(err, rerr)
	}
	if err := l.db.Load(r, 256); err != nil {
		return nil, undo(err)
	}
	if err := l.openFormat(ctx); err != nil {
		return nil, undo(err)
	}
	return l, nil
}
