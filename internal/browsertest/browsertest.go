// Package browsertest starts headless Chromium for tests. Without a browser on PATH a
// test that needs one says so and is skipped, unless HANDOFF_REQUIRE_BROWSER=1 (set by
// CI), which fails it instead.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/chromedp/chromedp"
)

// names are the executables tried, in order.
var names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Path is the browser's executable, or "" when none is on PATH.
func Path() string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// New starts a headless browser for t and returns a tab's context, closed when t ends.
func New(t testing.TB) context.Context {
	t.Helper()
	path := Path()
	if path == "" {
		if os.Getenv("HANDOFF_REQUIRE_BROWSER") == "1" {
			t.Fatal("a browser is required (HANDOFF_REQUIRE_BROWSER=1) but none of chromium, chromium-browser or google-chrome is on PATH")
		}
		t.Skip("no browser: install chromium (Debian package chromium) to run this test")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox cannot start
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return ctx
}
