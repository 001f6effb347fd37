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
	"github.com/rogpeppe/go-internal/diff"
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
				fmt.Fprintf(c.stdout, "ok  %s: %s (%s)\n", rep.Bundle, count(len(rep.Packs), "pack"), strings.Join(names, ", "))
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
	if c.usedBundle != "" {
		return c.usedBundle
	}
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
ok. For a stale file it shows where it differs: the paths of the values, then the
diff of the lines (the first 40). With --write it writes the stale and missing files.

The tables are those of --bundle DIR (written to DIR/policies), or, without
--bundle, of the repository in the current directory (./contracts and ./policies).
Outside a repository the shipped bundle is checked; it cannot be written.

With -o json: one JSON array of files {"path", "status"}, a stale file with "keys"
(the paths of the values that differ) and "diff" (the whole diff).`,
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
	// Keys are the paths of the values that differ (at most maxStaleKeys), and Diff the
	// unified diff from the committed copy to the export, when stale.
	Keys []string `json:"keys,omitempty"`
	Diff string   `json:"diff,omitempty"`
}

// maxStaleKeys and maxDiffLines bound what tables shows of a stale file.
const (
	maxStaleKeys = 10
	maxDiffLines = 40
)

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
		var keys []string
		var delta string
		if status == "stale" {
			keys, delta = tableDiff(got, want[p])
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
		files = append(files, tableFile{Path: filepath.ToSlash(filepath.Join(dirLabel(dir), p)), Status: status, Keys: keys, Diff: delta})
	}
	if c.json() {
		if err := writeJSON(c.stdout, files); err != nil {
			return err
		}
	} else {
		for _, f := range files {
			fmt.Fprintf(c.stdout, "%-8s %s\n", f.Status, f.Path)
			if len(f.Keys) > 0 {
				fmt.Fprintf(c.stdout, "  differs at %s\n", strings.Join(f.Keys, ", "))
			}
			if f.Diff != "" {
				lines := strings.Split(strings.TrimRight(f.Diff, "\n"), "\n")
				more := len(lines) - maxDiffLines
				if more > 0 {
					lines = lines[:maxDiffLines]
				}
				for _, l := range lines {
					fmt.Fprintf(c.stdout, "  %s\n", l)
				}
				if more > 0 {
					fmt.Fprintf(c.stdout, "  ... and %s (-o json has the whole diff)\n", count(more, "more line"))
				}
			}
		}
	}
	if notOK > 0 {
		return negativef("%s not up to date: run 'handoffctl tables --write' to export %s from CUE",
			numbered(notOK, "table file is", "table files are"), itOrThem(notOK))
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

// tableDiff says where a committed table differs from its export: the paths of the
// values that differ and the diff of their lines, both in the committed form.
func tableDiff(committed, exported []byte) ([]string, string) {
	var cv, ev any
	if json.Unmarshal(committed, &cv) != nil || json.Unmarshal(exported, &ev) != nil {
		return nil, lineDiff(committed, exported)
	}
	var keys []string
	valueDiff("", cv, ev, &keys)
	if len(keys) > maxStaleKeys {
		keys = append(keys[:maxStaleKeys], fmt.Sprintf("and %d more", len(keys)-maxStaleKeys))
	}
	// The committed copy in the committed form: only the values differ.
	if b, err := json.MarshalIndent(cv, "", "  "); err == nil {
		committed = append(b, '\n')
	}
	return keys, lineDiff(committed, exported)
}

// lineDiff is the unified diff from a committed table to its export.
func lineDiff(committed, exported []byte) string {
	d := string(diff.Diff("committed", committed, "exported from CUE", exported))
	// The first line repeats the names of the next two.
	if _, rest, ok := strings.Cut(d, "\n"); ok && strings.HasPrefix(d, "diff ") {
		d = rest
	}
	return d
}

// valueDiff appends to keys the paths at which two JSON values differ: a key of objects
// on both sides is followed, anything else that differs is one path.
func valueDiff(path string, a, b any, keys *[]string) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok {
		if !reflect.DeepEqual(a, b) {
			if path == "" {
				path = "(the whole document)"
			}
			*keys = append(*keys, path)
		}
		return
	}
	all := map[string]bool{}
	for k := range am {
		all[k] = true
	}
	for k := range bm {
		all[k] = true
	}
	for _, k := range sortedKeys(all) {
		p := k
		if path != "" {
			p = path + "." + k
		}
		av, ina := am[k]
		bv, inb := bm[k]
		switch {
		case !ina:
			*keys = append(*keys, p+" (missing)")
		case !inb:
			*keys = append(*keys, p+" (not exported)")
		default:
			valueDiff(p, av, bv, keys)
		}
	}
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
