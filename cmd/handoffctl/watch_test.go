package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/syncbuf"
)

// TestTestWatch starts test --watch, sees its first run pass, breaks a test and sees
// the second run fail, adds a data file and sees a third run, then stops it as Ctrl-C
// would: it exits 0.
func TestTestWatch(t *testing.T) {
	defer func(d time.Duration) { watchInterval = d }(watchInterval)
	watchInterval = 20 * time.Millisecond

	dir := t.TempDir()
	policies, tests := filepath.Join(dir, "policies"), filepath.Join(dir, "policies_test")
	write := func(path, text string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	write(filepath.Join(policies, "x.rego"), "package x\n\nallow if input.user == data.admin\n")
	write(filepath.Join(policies, "data.json"), `{"admin": "ann"}`)
	testFile := filepath.Join(tests, "x_test.rego")
	write(testFile, "package x_test\n\nimport data.x\n\ntest_allowed if x.allow with input as {\"user\": \"ann\"}\n")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncbuf.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"test", "--watch", policies, tests}, strings.NewReader(""), &stdout, &stderr)
	}()
	waitFor := func(want string) {
		t.Helper()
		require.Eventually(t, func() bool { return strings.Contains(stdout.String(), want) },
			20*time.Second, 10*time.Millisecond, "stdout %q, stderr %q, want %q", stdout.String(), stderr.String(), want)
	}

	waitFor("1 passed, 0 failed\nwatching ")
	assert.Equal(t, 1, strings.Count(stdout.String(), "watching "), "runs before any change")

	write(testFile, "package x_test\n\nimport data.x\n\ntest_allowed if x.allow with input as {\"user\": \"bob\"}\n")
	waitFor("FAIL  data.x_test.test_allowed")
	waitFor("0 passed, 1 failed\nwatching ")

	// The data under the tested directories is watched too.
	write(filepath.Join(policies, "data.json"), `{"admin": "bob"}`)
	require.Eventually(t, func() bool { return strings.Count(stdout.String(), "1 passed, 0 failed") == 2 },
		20*time.Second, 10*time.Millisecond, "stdout %q", stdout.String())

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code, "stderr %q", stderr.String())
	case <-time.After(10 * time.Second):
		t.Fatal("test --watch did not stop when its context ended")
	}
}
