package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/handoff-dev/handoff/engine"
)

// loadBundle returns the bundle named by --bundle, or the shipped packs.
func (c *cli) loadBundle() (engine.Bundle, error) {
	if !c.bundle.set {
		return engine.ShippedBundle(), nil
	}
	dir := c.bundle.value
	for _, sub := range []string{"contracts", "policies"} {
		fi, err := os.Stat(filepath.Join(dir, sub))
		if err != nil || !fi.IsDir() {
			return engine.Bundle{}, withHint(fmt.Errorf("bundle %s has no %s directory", dir, sub),
				"--bundle DIR names a directory laid out as the repository: DIR/contracts (a CUE module) and DIR/policies")
		}
	}
	return engine.DirBundle(dir), nil
}

// storeMode says which store a command opens.
type storeMode int

const (
	memoryStore   storeMode = iota // an empty in-memory store: nothing touches the disk
	existingStore                  // the --db store, which must already exist
	createStore                    // the --db store, created when missing
	peekStore                      // the --db store when it exists, else an empty in-memory one
)

// open opens the engine on the store mode asks for. A command decides for a pack or two
// at most, so a pack's policies are compiled when a request first needs them.
func (c *cli) open(ctx context.Context, mode storeMode) (*engine.Engine, error) {
	return c.openEngine(ctx, mode, true)
}

// openCompiled opens the engine as open does, with every policy compiled at once: for
// the commands that report on the whole bundle or hold it up against a log.
func (c *cli) openCompiled(ctx context.Context, mode storeMode) (*engine.Engine, error) {
	return c.openEngine(ctx, mode, false)
}

func (c *cli) openEngine(ctx context.Context, mode storeMode, lazy bool) (*engine.Engine, error) {
	b, err := c.loadBundle()
	if err != nil {
		return nil, err
	}
	opts := engine.Options{Bundle: &b, LazyPolicies: lazy}
	switch mode {
	case memoryStore:
		opts.InMemory = true
	case existingStore, peekStore:
		fi, err := os.Stat(c.db.value)
		switch {
		case err == nil && fi.IsDir():
			opts.Dir = c.db.value
		case mode == peekStore && errors.Is(err, os.ErrNotExist):
			opts.InMemory = true
		case err == nil:
			return nil, withHint(fmt.Errorf("store %s is not a directory", c.db.value), "--db DIR names the store directory")
		case errors.Is(err, os.ErrNotExist):
			return nil, withHint(fmt.Errorf("no store at %s", c.db.value),
				"name the store with --db DIR or HANDOFF_DB; 'handoffctl start' creates one")
		default:
			return nil, err
		}
	case createStore:
		opts.Dir = c.db.value
	}
	return engine.Open(ctx, opts)
}

// readRequest reads a request file, or standard input for "-".
func (c *cli) readRequest(name string) ([]byte, error) {
	if name == "-" {
		b, err := io.ReadAll(c.stdin)
		if err != nil {
			return nil, fmt.Errorf("read standard input: %w", err)
		}
		return b, nil
	}
	return os.ReadFile(name)
}

// closeEngine closes e, keeping the first error.
func closeEngine(e *engine.Engine, err *error) {
	if cerr := e.Close(); cerr != nil && *err == nil {
		*err = cerr
	}
}
