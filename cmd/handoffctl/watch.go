package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"
)

// watchInterval is how often test --watch looks for changed files.
var watchInterval = 500 * time.Millisecond

// watchTests runs the tests, then again whenever a .rego or data file under paths is
// added, changed or removed, until ctx ends (Ctrl-C): then it returns nil. A run that
// fails, or cannot run, is reported and the watch goes on.
func (c *cli) watchTests(ctx context.Context, root string, paths []string, o testOptions) error {
	last := watchedFiles(paths)
	for {
		if err := c.testOnce(ctx, root, paths, o); err != nil && ctx.Err() == nil {
			c.reportWatchedRun(err)
		}
		if !c.json() {
			fmt.Fprintf(c.stdout, "watching %s for changes (Ctrl-C to stop)\n", strings.Join(paths, ", "))
		}
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(watchInterval):
			}
			now := watchedFiles(paths)
			if !sameFiles(last, now) {
				last = now
				break
			}
		}
	}
}

// reportWatchedRun writes to stderr what stopped one run of test --watch.
func (c *cli) reportWatchedRun(err error) {
	var ne *negativeError
	if errors.As(err, &ne) {
		if ne.msg != "" {
			fmt.Fprintf(c.stderr, "handoffctl test: %s\n", ne.msg)
		}
		return
	}
	fmt.Fprintf(c.stderr, "handoffctl test: %v\n", err)
	if h := hint(err); h != "" {
		fmt.Fprintf(c.stderr, "hint: %s\n", h)
	}
}

// fileStamp is what tells a changed file: its time and size.
type fileStamp struct {
	mod  time.Time
	size int64
}

// watchedFiles stamps the Rego and data files under paths.
func watchedFiles(paths []string) map[string]fileStamp {
	out := map[string]fileStamp{}
	for _, root := range paths {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			switch filepath.Ext(path) {
			case ".rego", ".json", ".yaml", ".yml":
			default:
				return nil
			}
			if info, err := d.Info(); err == nil {
				out[path] = fileStamp{info.ModTime(), info.Size()}
			}
			return nil
		})
	}
	return out
}

func sameFiles(a, b map[string]fileStamp) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !w.mod.Equal(v.mod) || w.size != v.size {
			return false
		}
	}
	return true
}
