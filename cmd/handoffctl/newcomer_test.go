package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestNewcomer runs the README's walk-through of writing a pack (the first sh block of
// its "Writing a pack" section) as it is written, in an empty directory, and checks what
// each step must show: a new pack whose tests, lint and scenarios pass, and a changed
// limit that replay reports as flipped decisions.
func TestNewcomer(t *testing.T) {
	readme, err := filepath.Abs(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "newcomer"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("HANDOFF_DB", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"walkthrough": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: walkthrough FILE")
				}
				doc, err := os.ReadFile(readme)
				ts.Check(err)
				block, err := walkthrough(string(doc))
				ts.Check(err)
				ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte("set -eu\n"+block), 0o644))
			},
		},
	})
}

// walkthrough is the first sh block of the README's "Writing a pack" section.
func walkthrough(readme string) (string, error) {
	_, section, ok := strings.Cut(readme, "\n## Writing a pack\n")
	if !ok {
		return "", os.ErrNotExist
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "\n```sh\n")
	if !ok {
		return "", os.ErrNotExist
	}
	block, _, ok = strings.Cut(block, "\n```")
	if !ok {
		return "", os.ErrNotExist
	}
	return block + "\n", nil
}
