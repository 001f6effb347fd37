package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/bundle"
	"github.com/handoff-dev/handoff/store"
)

// loadBundle returns the bundle of the command: the one --bundle names, else the one in
// the current directory (a directory holding contracts/cue.mod/module.cue and policies,
// as bundle.IsBundleDir says), else the shipped packs. It says on stderr, once and in
// text mode, when it found the bundle in the current directory.
func (c *cli) loadBundle() (engine.Bundle, error) {
	if c.bundle.set {
		c.usedBundle, c.bundleDir = "bundle "+c.bundle.value, c.bundle.value
		return dirBundle(c.bundle.value, "--bundle DIR names a directory laid out as the repository: DIR/contracts (a CUE module) and DIR/policies")
	}
	if c.server == "" && bundle.IsBundleDir(".") {
		c.usedBundle, c.bundleDir = "bundle . (the current directory)", "."
		if !c.announced && !c.json() {
			c.announced = true
			fmt.Fprintf(c.stderr, "handoffctl: using the bundle in the current directory (contracts/, policies/); --bundle DIR names another\n")
		}
		return engine.DirBundle("."), nil
	}
	c.usedBundle, c.bundleDir = "shipped bundle", ""
	return engine.ShippedBundle(), nil
}

// unknownPackHint says on stderr, for a decision refused with UNKNOWN_PACK, which bundle
// decided it and the packs that bundle has.
func (c *cli) unknownPackHint(d *engine.Decision) {
	if d == nil || !slices.Contains(d.Codes(), "UNKNOWN_PACK") || c.usedBundle == "" {
		return
	}
	b, err := c.loadBundle()
	if err != nil {
		return
	}
	var packs []string
	entries, _ := fs.ReadDir(b.Contracts, ".")
	for _, e := range entries {
		if e.IsDir() && e.Name() != "cue.mod" && e.Name() != "core" {
			packs = append(packs, e.Name())
		}
	}
	fmt.Fprintf(c.stderr, "hint: UNKNOWN_PACK: decided with the %s, whose packs are: %s; name another bundle with --bundle DIR, or run in the directory of one\n",
		c.usedBundle, strings.Join(packs, ", "))
}

// dirBundle checks that dir is laid out as a bundle and returns its bundle; hint says
// how the directory should look to whoever named it.
func dirBundle(dir, hint string) (engine.Bundle, error) {
	for _, sub := range []string{"contracts", "policies"} {
		fi, err := os.Stat(filepath.Join(dir, sub))
		if err != nil || !fi.IsDir() {
			return engine.Bundle{}, withHint(fmt.Errorf("bundle %s has no %s directory", dir, sub), hint)
		}
	}
	return engine.DirBundle(dir), nil
}

// storeMode says which store a command opens.
type storeMode int

const (
	existingStore storeMode = iota // the --db store, which must already exist
	createStore                    // the --db store, created when missing
	peekStore                      // the --db store when it exists, else an empty in-memory one
)

// decider compiles the bundle without opening any store: for the commands that report
// on the bundle or decide with it on another engine's log. Lazy compiles a pack's
// policies when a request first needs them.
func (c *cli) decider(ctx context.Context, lazy bool) (*engine.Decider, error) {
	b, err := c.loadBundle()
	if err != nil {
		return nil, err
	}
	return engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &b, LazyPolicies: lazy})
}

// open opens the engine on the store mode asks for. A command decides for a pack or two
// at most, so a pack's policies are compiled when a request first needs them.
func (c *cli) open(ctx context.Context, mode storeMode) (*engine.Engine, error) {
	b, err := c.loadBundle()
	if err != nil {
		return nil, err
	}
	opts := engine.Options{Bundle: &b, LazyPolicies: true, ReadOnly: c.readOnly}
	if c.warm != "" {
		opts.Warm = []string{c.warm}
	}
	if c.readOnly && mode == createStore {
		return nil, usagef("--read-only opens a store for reading: this command writes to it")
	}
	switch {
	case store.IsURL(c.db.value):
		opts.StoreURL = c.db.value
	case mode == existingStore || mode == peekStore:
		fi, err := os.Stat(c.db.value)
		switch {
		case err == nil && fi.IsDir():
			opts.Dir = c.db.value
		case mode == peekStore && errors.Is(err, os.ErrNotExist):
			opts.InMemory = true
		case err == nil:
			return nil, withHint(fmt.Errorf("store %s is not a directory", c.db.value), "--store names a store directory or a postgres:// URL")
		case errors.Is(err, os.ErrNotExist):
			return nil, withHint(fmt.Errorf("no store at %s", c.db.value),
				"name the store with --store DIR|URL or HANDOFF_STORE; 'handoffctl start' creates one")
		default:
			return nil, err
		}
	default:
		if fi, err := os.Stat(c.db.value); err == nil && !fi.IsDir() {
			return nil, withHint(fmt.Errorf("store %s is not a directory", c.db.value), "--store names a store directory or a postgres:// URL")
		}
		opts.Dir = c.db.value
	}
	e, err := engine.Open(ctx, opts)
	if err != nil && opts.Dir != "" && !errors.Is(err, store.ErrLocked) {
		err = storeDirError(opts.Dir, c.readOnly, err, writable)
	}
	return e, c.lockedHint(err)
}

// storeDirError says, for a store directory that would not open, whether the cause is
// one the user can fix: a parent directory or a store they may not write to.
func storeDirError(dir string, readOnly bool, err error, canWrite func(string) error) error {
	if _, serr := os.Stat(dir); errors.Is(serr, os.ErrNotExist) {
		parent := filepath.Dir(dir)
		if werr := canWrite(parent); werr != nil {
			return withHint(fmt.Errorf("cannot create the store %s: %s: %w", dir, parent, werr),
				"choose a --store DIR whose parent directory you may write to")
		}
		return err
	}
	if readOnly {
		return err
	}
	if werr := canWrite(dir); werr != nil {
		return withHint(fmt.Errorf("store %s: %w", dir, werr),
			"the store is read-only for this user: read it with --read-only, or run as its owner")
	}
	return err
}

// storeAt sets opts to keep the log at where: a postgres:// URL or a directory.
func storeAt(opts *engine.Options, where string) {
	if store.IsURL(where) {
		opts.StoreURL = where
	} else {
		opts.Dir = where
	}
}

// redactedURL is a store URL without its password, for messages.
func redactedURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(an unreadable URL)"
	}
	return u.Redacted()
}

// serveURLFile is where handoffctl serve writes its URL in the store it holds.
const serveURLFile = "handoff-serve.url"

// lockedHint says, for a store a handoffctl serve holds, which server to ask instead.
func (c *cli) lockedHint(err error) error {
	if !errors.Is(err, store.ErrLocked) || store.IsURL(c.db.value) {
		return err
	}
	b, rerr := os.ReadFile(filepath.Join(c.db.value, serveURLFile))
	if rerr != nil || len(b) == 0 {
		return err
	}
	url := strings.TrimSpace(string(b))
	return withHint(err, fmt.Sprintf("handoffctl serve holds the store at %s: run the command with --server %s (or HANDOFF_SERVER; the token in HANDOFF_TOKEN)", url, url))
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
	b, err := os.ReadFile(name)
	if errors.Is(err, syscall.EISDIR) {
		return nil, withHint(fmt.Errorf("%s is a directory, not a request file", name), "give a request file (JSON), or - to read standard input")
	}
	return b, err
}

// closeEngine closes e, keeping the first error.
func closeEngine(e *engine.Engine, err *error) {
	if cerr := e.Close(); cerr != nil && *err == nil {
		*err = cerr
	}
}
