package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/bundle"
)

var lintCmd = &command{
	name:  "lint",
	args:  "[--write-capabilities]",
	short: "check the policies strictly, with the engine's capabilities, and their METADATA",
	long: `Lint checks the bundle beyond what the engine needs to load it:

  - the Rego policies and their tests (policies_test) compile in strict mode (as
    'opa check --strict') with the engine's capabilities: a call of a builtin the
    engine removes (http.send, net.*, time.now_ns, rand.*, uuid.* ...) says what to
    use instead;
  - every rule adding to reasons, and every rule declaring a custom.code, carries
    METADATA with a title, a description and custom.code;
  - every reason is built from the METADATA of the rule that declares its code:
    that rule calls rego.metadata.rule() and hands it to the reason helper
    (core.reason, core.reason_outcome, core.gate_reason), which takes the code and
    the title from it. A rule declaring a custom.code that builds no reason this
    way, a call of rego.metadata.rule() where no METADATA of the rule declares a
    code (an else branch included: it gives {} there), and a reason helper called
    with a code as a string are findings;
  - a description names a limit by its config name (limits.max_review_cycles) and
    does not state its value: no number after a limits. name, the value lives in
    the contract tables;
  - the contracts compile, and every non-terminal status of a pack's state machine
    has a transition out (as the engine checks at load);
  - when all that holds, what 'handoffctl check' checks: the bundle loads as the
    engine loads it (entrypoints included) and the committed tables are fresh;
  - in the repository, engine/capabilities.json (which 'opa check --capabilities' and
    'opa test --capabilities' read) is the engine's.

The bundle is that of --bundle DIR, or the repository in the current directory, or
else the shipped one. It prints one line per finding, file:line: message, the file
relative to the repository root (or DIR), and exits 3 when there is any; "ok" when
there is none.

With --write-capabilities it first writes engine/capabilities.json in the repository
root.

With -o json: one JSON object {"ok", "bundle", "findings": [{"file", "line",
"message"}]}.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		writeCaps := fs.Bool("write-capabilities", false, "write engine/capabilities.json in the repository root, then lint")
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) > 0 {
				return usagef("lint takes no arguments")
			}
			return c.lint(ctx, *writeCaps)
		}
	},
}

func (c *cli) lint(ctx context.Context, writeCaps bool) error {
	b, root, label, err := c.lintSource()
	if err != nil {
		return err
	}
	inRepo := !c.bundle.set && root != ""
	if writeCaps {
		if !inRepo || !isFile("go.mod") || !isDir("engine") {
			return withHint(errors.New("engine/capabilities.json is written in the repository root"),
				"run 'handoffctl lint --write-capabilities' in the repository root, without --bundle")
		}
		caps, err := bundle.CapabilitiesJSON()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.FromSlash(bundle.CapabilitiesFile), caps, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "written  %s\n", bundle.CapabilitiesFile)
	}
	o := bundle.LintOptions{Load: loadDecider}
	if root != "" && isDir(filepath.Join(root, "policies_test")) {
		o.TestsDir = filepath.Join(root, "policies_test")
	}
	if inRepo && isFile("go.mod") && isDir("engine") {
		o.Repo = "."
	}
	findings, err := bundle.Lint(ctx, b, o)
	if err != nil {
		return err
	}
	if c.json() {
		if findings == nil {
			findings = []bundle.Finding{}
		}
		if err := writeJSON(c.stdout, struct {
			OK       bool             `json:"ok"`
			Bundle   string           `json:"bundle"`
			Findings []bundle.Finding `json:"findings"`
		}{len(findings) == 0, label, findings}); err != nil {
			return err
		}
	} else if len(findings) == 0 {
		fmt.Fprintf(c.stdout, "ok  %s\n", label)
	} else {
		for _, f := range findings {
			fmt.Fprintln(c.stdout, f)
		}
	}
	if len(findings) > 0 {
		return negativef("%s", count(len(findings), "finding"))
	}
	return nil
}

// loadDecider loads a bundle as the engine does, for lint to report what check would.
func loadDecider(ctx context.Context, b bundle.Bundle) error {
	_, err := engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &b})
	return err
}

// lintSource finds the bundle lint checks, the directory its policies_test is in (""
// for the shipped bundle) and how to name it.
func (c *cli) lintSource() (engine.Bundle, string, string, error) {
	if c.bundle.set {
		b, err := c.loadBundle()
		return b, c.bundle.value, c.bundleName(), err
	}
	if isFile(filepath.Join("contracts", "cue.mod", "module.cue")) && isDir("policies") {
		return engine.DirBundle("."), ".", "repository", nil
	}
	return engine.ShippedBundle(), "", c.bundleName(), nil
}
