package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/handoff-dev/handoff/engine/bundle"
)

var fmtCmd = &command{
	name:  "fmt",
	args:  "[--check] [PATH...]",
	short: "format the Rego policies and CUE contracts",
	long: `Fmt formats every Rego file (.rego) with OPA's formatter, as 'opa fmt' does, and
every CUE file (.cue) with CUE's, as 'cue fmt' does, under each PATH (a file or a
directory). It rewrites the files that change in place and lists them.

Without PATH it formats contracts, policies and policies_test of the current
directory, or of --bundle DIR.

With --check it writes nothing: it lists the files that would change and exits 3 when
there is any.

With -o json: one JSON object {"check", "files"}, files being the paths changed (or
that would change, with --check).`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		check := fs.Bool("check", false, "write nothing: list the files that would change and exit 3 if any")
		return func(ctx context.Context, c *cli, args []string) error {
			return c.formatFiles(args, *check)
		}
	},
}

func (c *cli) formatFiles(paths []string, check bool) error {
	if len(paths) == 0 {
		root := "."
		if c.bundle.set {
			root = c.bundle.value
		}
		for _, p := range []string{"contracts", "policies", "policies_test"} {
			if p = filepath.Join(root, p); isDir(p) {
				paths = append(paths, p)
			}
		}
		if len(paths) == 0 {
			return withHint(errors.New("no contracts, policies or policies_test directory here"),
				"run in the repository root, or name the files or directories: handoffctl fmt PATH...")
		}
	}
	var files []string
	for _, p := range paths {
		found, err := bundle.SourceFiles(p)
		if err != nil {
			return withHint(err, "check the path")
		}
		files = append(files, found...)
	}
	changed := []string{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		out, err := bundle.Format(f, src)
		if err != nil {
			return withHint(err, "fix the syntax error first: 'handoffctl lint' shows it too")
		}
		if bytes.Equal(out, src) {
			continue
		}
		changed = append(changed, filepath.ToSlash(f))
		if !check {
			if err := os.WriteFile(f, out, 0o644); err != nil {
				return err
			}
		}
	}
	if c.json() {
		if err := writeJSON(c.stdout, struct {
			Check bool     `json:"check"`
			Files []string `json:"files"`
		}{check, changed}); err != nil {
			return err
		}
	} else {
		for _, f := range changed {
			fmt.Fprintln(c.stdout, f)
		}
	}
	if check && len(changed) > 0 {
		return negativef("%s not formatted: run 'handoffctl fmt' to format %s", numbered(len(changed), "file is", "files are"), itOrThem(len(changed)))
	}
	return nil
}

func itOrThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
