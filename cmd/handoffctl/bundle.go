package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/handoff-dev/handoff/engine"
)

var packsCmd = &command{
	name:  "packs",
	short: "list the packs of the bundle",
	long: `Packs compiles the bundle and lists its packs: name, version, title, the Rego
entrypoint that decides their requests, the initial status and the terminal statuses
of their state machine. Nothing is read from or written to the store.

With -o json the output is a JSON array of packs.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if len(args) > 0 {
				return usagef("packs takes no arguments")
			}
			dc, err := c.decider(ctx, false)
			if err != nil {
				return err
			}
			packs := dc.Packs()
			if c.json() {
				return writeJSON(c.stdout, packs)
			}
			for i, p := range packs {
				if i > 0 {
					fmt.Fprintln(c.stdout)
				}
				fmt.Fprintf(c.stdout, "%s %s  %s\n", p.Name, p.Version, p.Title)
				fmt.Fprintf(c.stdout, "  entrypoint  %s\n", p.Entrypoint)
				fmt.Fprintf(c.stdout, "  initial     %s\n", p.Initial)
				fmt.Fprintf(c.stdout, "  terminal    %s\n", strings.Join(p.Terminal, ", "))
			}
			return nil
		}
	},
}

var checkCmd = &command{
	name:  "check",
	short: "compile the bundle and report OK or what is wrong",
	long: `Check compiles the bundle as the engine does at start: every CUE contract, every
Rego policy (with the non-deterministic builtins removed), every pack's entrypoint,
and the committed contract tables, which must match their CUE source.

It prints "ok" with the packs found, or "FAIL" and the error on stdout, and exits 3.
'handoffctl lint' checks more: the tests, the reason codes' METADATA.

With -o json: one JSON object {"ok", "bundle", "digest", "packs"} or {"ok": false,
"bundle", "error"}.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) > 0 {
				return usagef("check takes no arguments")
			}
			b, err := c.loadBundle()
			if err != nil {
				return err
			}
			type report struct {
				OK     bool              `json:"ok"`
				Bundle string            `json:"bundle"`
				Digest string            `json:"digest,omitempty"`
				Packs  []engine.PackInfo `json:"packs,omitempty"`
				Error  string            `json:"error,omitempty"`
			}
			rep := report{Bundle: c.bundleName()}
			dc, oerr := engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &b})
			if oerr == nil {
				// The engine runs the CUE tables; stale committed copies would make
				// stock `opa test` test other tables than the ones in force.
				oerr = engine.CheckTables(b)
			}
			if oerr == nil {
				rep.OK, rep.Digest, rep.Packs = true, dc.BundleDigest(), dc.Packs()
			} else {
				if ctx.Err() != nil {
					return oerr
				}
				rep.Error = oerr.Error()
			}
			if c.json() {
				if err := writeJSON(c.stdout, rep); err != nil {
					return err
				}
			} else if rep.OK {
				names := make([]string, len(rep.Packs))
				for i, p := range rep.Packs {
					names[i] = p.Name
				}
				fmt.Fprintf(c.stdout, "ok  %s: %d packs (%s)\n", rep.Bundle, len(rep.Packs), strings.Join(names, ", "))
			} else {
				// The verdict and its cause together, on stdout: they are the result.
				fmt.Fprintf(c.stdout, "FAIL  %s\n%s\n", rep.Bundle, strings.TrimRight(rep.Error, "\n"))
				if h := hint(oerr); h != "" {
					fmt.Fprintf(c.stdout, "hint: %s\n", h)
				}
			}
			if !rep.OK {
				return &negativeError{}
			}
			return nil
		}
	},
}

// bundleName says which bundle the command uses.
func (c *cli) bundleName() string {
	if c.bundle.set {
		return "bundle " + c.bundle.value
	}
	return "shipped bundle"
}

var tablesCmd = &command{
	name:  "tables",
	args:  "[--write]",
	short: "check or write the contract tables exported from CUE",
	long: `Tables exports the contract tables of every pack from CUE (the single source of
truth) and compares them with the JSON files committed under policies/, which Rego
reads as data. It lists each file as ok, stale or missing and exits 3 when any is not
ok. With --write it writes the stale and missing files.

The tables are those of --bundle DIR (written to DIR/policies), or, without
--bundle, of the repository in the current directory (./contracts and ./policies).
Outside a repository the shipped bundle is checked; it cannot be written.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		write := fs.Bool("write", false, "write the stale and missing table files")
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) > 0 {
				return usagef("tables takes no arguments")
			}
			return c.tables(*write)
		}
	},
}

// tableFile is one exported table file and how the committed copy compares.
type tableFile struct {
	Path   string `json:"path"`
	Status string `json:"status"` // ok, stale, missing, written
}

func (c *cli) tables(write bool) error {
	src, dir, err := c.tablesSource()
	if err != nil {
		return err
	}
	if write && dir == "" {
		return withHint(errors.New("the shipped bundle cannot be written"),
			"run 'handoffctl tables --write' in the repository root, or name a copy with --bundle DIR")
	}
	want, err := engine.ExportTables(src)
	if err != nil {
		return withHint(err, "fix the contracts first: 'handoffctl check' shows the same error")
	}
	var files []tableFile
	notOK := 0
	for _, p := range sortedKeys(want) {
		got, rerr := fs.ReadFile(src.Policies, p)
		status := "ok"
		switch {
		case errors.Is(rerr, fs.ErrNotExist):
			status = "missing"
		case rerr != nil:
			return rerr
		case !sameJSON(got, want[p]):
			status = "stale"
		}
		if write && !bytes.Equal(got, want[p]) {
			full := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(full, want[p], 0o644); err != nil {
				return err
			}
			status = "written"
		}
		if status == "stale" || status == "missing" {
			notOK++
		}
		files = append(files, tableFile{Path: filepath.ToSlash(filepath.Join(dirLabel(dir), p)), Status: status})
	}
	if c.json() {
		if err := writeJSON(c.stdout, files); err != nil {
			return err
		}
	} else {
		for _, f := range files {
			fmt.Fprintf(c.stdout, "%-8s %s\n", f.Status, f.Path)
		}
	}
	if notOK > 0 {
		return negativef("%d table files are not up to date: run 'handoffctl tables --write' to export them from CUE", notOK)
	}
	return nil
}

// tablesSource finds the bundle whose tables are checked and the directory they are
// written to ("" when read-only).
func (c *cli) tablesSource() (engine.Bundle, string, error) {
	if c.bundle.set {
		b, err := c.loadBundle()
		return b, filepath.Join(c.bundle.value, "policies"), err
	}
	if isFile(filepath.Join("contracts", "cue.mod", "module.cue")) && isDir("policies") {
		return engine.DirBundle("."), "policies", nil
	}
	return engine.ShippedBundle(), "", nil
}

func dirLabel(dir string) string {
	if dir == "" {
		return "(shipped)"
	}
	return dir
}

// sameJSON says whether two JSON documents hold the same value.
func sameJSON(a, b []byte) bool {
	var av, bv any
	if json.Unmarshal(a, &av) != nil || json.Unmarshal(b, &bv) != nil {
		return false
	}
	return reflect.DeepEqual(av, bv)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
