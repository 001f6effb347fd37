package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress reports long work on stderr, one line redrawn in place: on a terminal only
// (piped output stays clean), never with --quiet. HANDOFF_PROGRESS=always draws it
// on any stderr, which is how the tests see it.
type progress struct {
	w     io.Writer // nil: silent
	label string
	total int // 0: unknown
	done  int
	shown time.Time
	drawn bool
}

// progressInterval is the least time between two redraws.
const progressInterval = 200 * time.Millisecond

// progressOn says whether progress reaches stderr.
func (c *cli) progressOn() bool {
	if c.quiet {
		return false
	}
	return os.Getenv("HANDOFF_PROGRESS") == "always" || isTerminal(c.stderr)
}

// startProgress begins a progress line "label: done/total"; total 0 means unknown.
func (c *cli) startProgress(label string, total int) *progress {
	p := &progress{label: label, total: total}
	if c.progressOn() {
		p.w = c.stderr
	}
	return p
}

// step counts n more units done and redraws the line at most every progressInterval.
func (p *progress) step(n int) {
	p.done += n
	if p.w == nil {
		return
	}
	if now := time.Now(); p.drawn && now.Sub(p.shown) < progressInterval && p.done != p.total {
		return
	}
	p.draw()
}

func (p *progress) draw() {
	p.shown, p.drawn = time.Now(), true
	if p.total > 0 {
		fmt.Fprintf(p.w, "\r\033[K%s: %d/%d", p.label, p.done, p.total)
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%s: %d", p.label, p.done)
}

// finish clears the line, so what follows starts on a clean one.
func (p *progress) finish() {
	if p.w == nil || !p.drawn {
		return
	}
	fmt.Fprint(p.w, "\r\033[K")
}
