package main

import (
	"context"
	"flag"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/handoff-dev/handoff/engine/bundle"
)

var newCmd = &command{
	name:  "new",
	args:  "pack NAME [--dir DIR]",
	short: "write a minimal, working pack to start a new one from",
	long: `New pack NAME writes a minimal pack that works as it is: a code review where an
author hands a CHANGE to a reviewer, who returns it (at most limits.max_review_cycles
times) or accepts it, and a maintainer approves the merge. It is the CUE contract
(contracts/NAME, importing core), the policy (policies/handoff/NAME, importing the
shared library and core) with its contract tables exported from CUE, the Rego unit
tests (policies_test/handoff/NAME: for every reason code a test that produces it and
one that does not) and two scenarios, a happy path and a failure path. 'handoffctl
test', 'handoffctl lint' and 'handoffctl run' pass on it at once.

It writes into the bundle in --dir DIR (default: the current directory). A directory
is a bundle when it holds contracts/cue.mod/module.cue and a policies directory beside
it; when DIR holds none, new writes a whole bundle there: the shipped CUE module, core
contracts, core policies and shared library, then the pack. It refuses a NAME that is
no lower-case identifier, is reserved (core, lib, a keyword of Rego or CUE) or names a
pack the bundle already has, and never overwrites a file.

It prints the files it wrote and the commands to run next. With -o json: one JSON
object {"bundle", "pack", "wrote_bundle", "files", "next"}.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		dir := fs.String("dir", ".", "write into the bundle in `DIR`, or a new bundle when DIR holds none")
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) != 2 || args[0] != "pack" {
				return usagef("new takes two arguments: pack NAME")
			}
			return c.newPack(*dir, args[1])
		}
	},
}

func (c *cli) newPack(dir, name string) error {
	if err := bundle.CheckPackName(name); err != nil {
		return usagef("%v", err)
	}
	wrote, err := bundle.New(dir, name)
	if err != nil {
		return err
	}
	scenarios := path.Join("policies_test/handoff", name, "scenarios")
	var next []string
	if filepath.Clean(dir) != "." {
		next = append(next, "cd "+dir)
	}
	next = append(next, "handoffctl test", "handoffctl lint", "handoffctl run "+scenarios)
	if c.json() {
		return writeJSON(c.stdout, struct {
			Bundle      string   `json:"bundle"`
			Pack        string   `json:"pack"`
			WroteBundle bool     `json:"wrote_bundle"`
			Files       []string `json:"files"`
			Next        []string `json:"next"`
		}{dir, name, wrote.Bundle, wrote.Files, next})
	}
	var shared int
	for _, f := range wrote.Files {
		if !packOwned(f, name) {
			shared++
		}
	}
	if wrote.Bundle {
		fmt.Fprintf(c.stdout, "new bundle %s: the shipped CUE module, core contracts, core policies and library (%s)\n", dir, count(shared, "file"))
	}
	fmt.Fprintf(c.stdout, "new pack %s in %s:\n", name, dir)
	for _, f := range wrote.Files {
		if packOwned(f, name) {
			fmt.Fprintf(c.stdout, "  %s\n", f)
		}
	}
	fmt.Fprintf(c.stdout, "\nNext:\n")
	for _, n := range next {
		fmt.Fprintf(c.stdout, "  %s\n", n)
	}
	return nil
}

// packOwned says whether a bundle file is one of the pack's own.
func packOwned(f, name string) bool {
	for _, dir := range []string{"contracts/", "policies/handoff/", "policies_test/handoff/"} {
		if strings.HasPrefix(f, dir+name+"/") {
			return true
		}
	}
	return false
}
