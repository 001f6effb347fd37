package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/handoff-dev/handoff/engine/bundle"
)

// release is the version a release build sets:
// go build -ldflags "-X main.release=v1.2.3" ./cmd/handoffctl. Without it, the version
// is the module's, as go install github.com/handoff-dev/handoff/cmd/handoffctl@VERSION
// records it.
var release = ""

// buildVersion describes this build of handoffctl.
type buildVersion struct {
	Version      string `json:"version"`
	Commit       string `json:"commit"`
	CommitTime   string `json:"commit_time,omitempty"`
	Modified     bool   `json:"modified,omitempty"`
	Go           string `json:"go"`
	OPA          string `json:"opa"`
	CUE          string `json:"cue"`
	BundleDigest string `json:"bundle_digest"`
	Bundle       string `json:"bundle"`
}

// readBuildVersion reads what the Go toolchain recorded in the binary.
func readBuildVersion() buildVersion {
	v := buildVersion{Version: "(devel)", Commit: "unknown", Go: runtime.Version(), OPA: "unknown", CUE: "unknown"}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if info.Main.Version != "" {
		v.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	opa, cue := bundle.Versions(info.Deps)
	v.OPA, v.CUE = cmp.Or(opa, v.OPA), cmp.Or(cue, v.CUE)
	if release != "" {
		v.Version = release
	}
	return v
}

var versionCmd = &command{
	name:  "version",
	short: "print the build's version, commit and the bundle's digest",
	long: `Version prints the version of this build of handoffctl (a release's, or the module
version go install recorded; "(devel)" for a build from a checkout), the commit it was
built from (with "modified" when the checkout had changes), the Go, OPA and CUE versions
it was built with, and the digest of the bundle it decides with: the shipped packs, or
the bundle of --bundle DIR. Every decision records that digest, so it says which
decisions this binary makes alike.

With -o json the output is one JSON object: version, commit, commit_time, modified, go,
opa, cue, bundle_digest, bundle.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) > 0 {
				return usagef("version takes no arguments")
			}
			v := readBuildVersion()
			dc, err := c.decider(ctx, true)
			if err != nil {
				return err
			}
			v.BundleDigest, v.Bundle = dc.BundleDigest(), "shipped"
			if c.bundleDir != "" {
				v.Bundle = c.bundleDir
			}
			if c.json() {
				return writeJSON(c.stdout, v)
			}
			commit := v.Commit
			if v.Modified {
				commit += " (modified)"
			}
			if v.CommitTime != "" {
				commit += " of " + v.CommitTime
			}
			t := newTable(c.stdout)
			t.row("handoffctl", v.Version)
			t.row("commit", commit)
			t.row("go", v.Go)
			t.row("opa", v.OPA)
			t.row("cue", v.CUE)
			t.row("bundle", fmt.Sprintf("%s (%s)", v.BundleDigest, v.Bundle))
			t.flush()
			return nil
		}
	},
}
