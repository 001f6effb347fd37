package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// completionScript prints the completion script for shell into a file and returns its path.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	code, stdout, stderr := runArgs(t, "completion", shell)
	require.Equal(t, exitOK, code, stderr)
	path := filepath.Join(t.TempDir(), "handoffctl."+shell)
	require.NoError(t, os.WriteFile(path, []byte(stdout), 0o644))
	return path
}

// needShell returns the path of shell, or skips the test, unless
// HANDOFF_REQUIRE_SHELLS=1 (set by CI), which fails it instead.
func needShell(t *testing.T, shell string) string {
	t.Helper()
	path, err := exec.LookPath(shell)
	if err != nil {
		if os.Getenv("HANDOFF_REQUIRE_SHELLS") == "1" {
			t.Fatalf("%s is required (HANDOFF_REQUIRE_SHELLS=1) but not on PATH", shell)
		}
		t.Skipf("no %s on PATH: install it (Debian package %s) to run this test", shell, shell)
	}
	return path
}

func shellOutput(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(cmd.Dir, "request.json"), []byte("{}"), 0o644))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s: %s", name, stderr.String())
	return string(out)
}

// TestBashCompletion drives the completion function as bash calls it.
func TestBashCompletion(t *testing.T) {
	bash := needShell(t, "bash")
	script := completionScript(t, "bash")
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"ver"}, "verify version"},
		{[]string{"verify", "--t"}, "--tenant"},
		{[]string{"--store", "db", "verify", "--ch"}, "--checkpoint"},
		{[]string{"-o", ""}, "text json"},
		{[]string{"state", "-o", "j"}, "json"},
		{[]string{"completion", ""}, "bash zsh fish"},
		{[]string{"help", "repl"}, "replay"},
		{[]string{"submit", "req"}, "request.json"},
		{[]string{"log", "--tenant", ""}, ""},
		{[]string{"--qu"}, "--quiet"},
	} {
		args := append([]string{"-c", `source "$1"; shift; COMP_WORDS=(handoffctl "$@"); COMP_CWORD=$#; _handoffctl; echo "${COMPREPLY[*]}"`, "bash", script}, tc.words...)
		got := strings.TrimSpace(shellOutput(t, bash, args...))
		assert.Equal(t, tc.want, got, "handoffctl %s<TAB>", strings.Join(tc.words, " "))
	}
}

// TestFishCompletion asks fish what it would complete.
func TestFishCompletion(t *testing.T) {
	fish := needShell(t, "fish")
	script := completionScript(t, "fish")
	for _, tc := range []struct{ line, want string }{
		{"handoffctl ver", "verify\nversion"},
		{"handoffctl verify --t", "--tenant"},
		{"handoffctl -o ", "json\ntext"},
		{"handoffctl completion ", "bash\nfish\nzsh"},
		{"handoffctl submit req", "request.json"},
	} {
		out := shellOutput(t, fish, "-c", `source $argv[1]; complete -C $argv[2]`, script, tc.line)
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			word, _, _ := strings.Cut(l, "\t")
			got = append(got, word)
		}
		assert.Equal(t, tc.want, strings.Join(got, "\n"), "%s<TAB>", tc.line)
	}
}

// TestZshCompletion types into an interactive zsh on a pseudo-terminal (zsh's zpty)
// and reads what TAB completed.
func TestZshCompletion(t *testing.T) {
	zsh := needShell(t, "zsh")
	script := completionScript(t, "zsh")
	dir := t.TempDir()
	driver := filepath.Join(dir, "drive.zsh")
	require.NoError(t, os.WriteFile(driver, []byte(`zmodload zsh/zpty
zpty -b z 'zsh -f -i'
zpty -w z "PS1='> '; autoload -U compinit; compinit -u -d $2/zcompdump; source $1; compdef _handoffctl handoffctl; echo READY"
out=""
for i in {1..100}; do zpty -r -t z chunk && out+=$chunk; [[ $out == *READY*READY* ]] && break; sleep 0.1; done
out=""
zpty -n -w z "$3"$'\t'
for i in {1..100}; do zpty -r -t z chunk && out+=$chunk; [[ $out == *"${4% }"* ]] && break; sleep 0.1; done
print -r -- "$out"
zpty -d z
`), 0o644))
	for _, tc := range []struct{ typed, want string }{
		{"handoffctl verify --t", "handoffctl verify --tenant "},
		{"handoffctl state -o js", "handoffctl state -o json "},
		{"handoffctl complet", "handoffctl completion "},
		{"handoffctl completion fi", "handoffctl completion fish "},
	} {
		out := shellOutput(t, zsh, "-f", driver, script, dir, tc.typed, tc.want)
		assert.Contains(t, stripTerminal(out), tc.want, "%s<TAB>", tc.typed)
	}
}

// stripTerminal removes a terminal's escape sequences and carriage returns.
func stripTerminal(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[':
			i += 2
			for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
				i++
			}
		case s[i] == '\r', s[i] == '\b':
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
