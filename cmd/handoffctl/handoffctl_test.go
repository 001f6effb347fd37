package main

import (
	"bytes"
	"context"
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// runArgs runs handoffctl in process and returns its exit code, stdout and stderr.
func runArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // a part of stdout
		stderr string // a part of stderr
	}{
		{"no command", nil, exitUsage, "", "no command given"},
		{"unknown command", []string{"frobnicate"}, exitUsage, "", `unknown command "frobnicate"`},
		{"help", []string{"help"}, exitOK, "Commands:", ""},
		{"help flag", []string{"-h"}, exitOK, "Commands:", ""},
		{"help command", []string{"help", "verify"}, exitOK, "usage: handoffctl verify", ""},
		{"help unknown", []string{"help", "frobnicate"}, exitUsage, "", `unknown command "frobnicate"`},
		{"command help", []string{"state", "-h"}, exitOK, "--tenant T", ""},
		{"unknown flag", []string{"state", "--frob"}, exitUsage, "", "unknown flag --frob"},
		{"unknown global flag", []string{"--frob", "packs"}, exitUsage, "", "unknown flag --frob"},
		{"bad output", []string{"-o", "yaml", "packs"}, exitUsage, "", "-o must be text or json"},
		{"state without tenant", []string{"state", "wf-1"}, exitUsage, "", "--tenant is required"},
		{"state without workflow", []string{"state", "--tenant", "acme"}, exitUsage, "", "one WORKFLOW"},
		{"log audit with workflow", []string{"log", "--tenant", "acme", "--audit", "wf-1"}, exitUsage, "", "takes no WORKFLOW"},
		{"verify workflow without tenant", []string{"verify", "wf-1"}, exitUsage, "", "needs --tenant"},
		{"run without files", []string{"run"}, exitUsage, "", "usage: handoffctl run"},
		{"eval without file", []string{"eval"}, exitUsage, "", "one request FILE"},
		{"packs with an argument", []string{"packs", "x"}, exitUsage, "", "takes no arguments"},
		{"missing bundle", []string{"--bundle", "/nonexistent", "packs"}, exitError, "", "hint: --bundle DIR"},
		{"missing store", []string{"--db", "/nonexistent/db", "state", "--tenant", "acme", "wf-1"}, exitError, "", "no store at /nonexistent/db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runArgs(t, tt.args...)
			assert.Equal(t, tt.code, code, "exit code; stderr:\n%s", stderr)
			assert.Contains(t, stdout, tt.stdout)
			assert.Contains(t, stderr, tt.stderr)
		})
	}
}

func TestParseInterleaved(t *testing.T) {
	tests := []struct {
		args   []string
		tenant string
		pos    []string
	}{
		{[]string{"wf-1", "--tenant", "acme"}, "acme", []string{"wf-1"}},
		{[]string{"--tenant", "acme", "a", "b"}, "acme", []string{"a", "b"}},
		{[]string{"a", "--", "--tenant", "x"}, "", []string{"a", "--tenant", "x"}},
		{[]string{"-", "--tenant=acme"}, "acme", []string{"-"}},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		tenant := fs.String("tenant", "", "")
		pos, err := parseInterleaved(fs, tt.args)
		require.NoError(t, err)
		assert.Equal(t, tt.tenant, *tenant, "tenant of %q", tt.args)
		assert.Equal(t, tt.pos, pos, "positional arguments of %q", tt.args)
	}
}

// TestStoreLocked opens a store as a host would, then runs handoffctl on it: the second
// opener must fail at once with a clear error and a hint, never hang.
func TestStoreLocked(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Options{Dir: dir})
	require.NoError(t, err)
	defer e.Close()

	code, stdout, stderr := runArgs(t, "--db", dir, "state", "--tenant", "acme", "wf-1")
	assert.Equal(t, exitError, code, "exit code; stderr:\n%s", stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "store locked")
	assert.Contains(t, stderr, "hint: another handoffctl or host holds the store")
}
