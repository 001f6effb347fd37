package engine

import (
	"context"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// toyContract is a minimal pack: two agents, one artifact, three statuses.
const toyContract = `package toy

import "handoff.dev/contracts/core"

#Requests: core.#Requests

#Artifacts: NOTE: {
	text!: string
}

pack: core.#Pack & {
	name:    "toy"
	version: "1"
	title:   "Toy"
	agents: {
		writer: {name: "Writer", responsibility: "writes notes", tasks: ["write"], produces: ["NOTE"], hands_to: ["reader"]}
		reader: {name: "Reader", responsibility: "reads notes", tasks: ["read"], consumes: ["NOTE"]}
	}
	artifacts: NOTE: {title: "Note", producer: "writer", consumers: ["reader"]}
	workflow: {
		initial: "NEW"
		statuses: ["NEW", "OPEN", "DONE"]
		terminal: ["DONE"]
		transitions: [{from: "NEW", to: "OPEN"}, {from: "OPEN", to: "DONE"}]
		actors: OPEN: [{agent: "writer", task: "write"}]
	}
	limits: {
		max_review_cycles:      2
		max_handoffs_per_stage: 5
		max_edge_visits:        3
		loop_window:            8
		max_context_bytes:      4096
		retry: timeout: {retryable: true, max_attempts: 3, base_delay_ms: 1000, max_delay_ms: 8000}
	}
}
`

// toyAllow starts into OPEN and records handoff outputs; everything else is allowed as is.
const toyAllow = `package handoff.toy

import data.handoff.core

decision := core.decide(core.reasons, _proposal)

_proposal := {"outcome": "allow", "status_after": "OPEN"} if input.request.kind == "start"

else := {"outcome": "allow", "status_after": "OPEN", "events": [{
	"type": "artifact_recorded",
	"ref": {"id": input.request.output.id, "type": "NOTE", "version": input.request.output.version, "hash": input.derived.output_hash},
	"status": "approved",
	"producer": input.request.source_agent,
	"content": input.request.output.content,
}]} if input.request.kind == "handoff"

else := {"outcome": "allow", "status_after": input.state.status}
`

// toyBundle is the shipped core and lib plus the toy pack with the given policy, its tables
// exported from its CUE so the bundle loads.
func toyBundle(t testing.TB, rego string) Bundle {
	t.Helper()
	shipped := ShippedBundle()
	cfs := fstest.MapFS{"toy/toy.cue": {Data: []byte(toyContract)}}
	copyTree(t, shipped.Contracts, ".", cfs, func(p string) bool { return p == "cue.mod" || p == "core" })
	pfs := fstest.MapFS{"handoff/toy/toy.rego": {Data: []byte(rego)}}
	copyTree(t, shipped.Policies, "handoff/core", pfs, nil)
	copyTree(t, shipped.Policies, "handoff/lib", pfs, nil)
	tables, err := ExportTables(Bundle{Contracts: cfs, Policies: pfs})
	require.NoError(t, err)
	for p, b := range tables {
		pfs[p] = &fstest.MapFile{Data: b}
	}
	return Bundle{Contracts: cfs, Policies: pfs}
}

// copyTree copies root (only the top-level entries keep allows, when given) into dst.
func copyTree(t testing.TB, src fs.FS, root string, dst fstest.MapFS, keep func(string) bool) {
	t.Helper()
	require.NoError(t, fs.WalkDir(src, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if keep != nil && p != "." && d.IsDir() && !keep(p) && !isUnderKept(p, keep) {
			return fs.SkipDir
		}
		if d.IsDir() || (keep != nil && !isUnderKept(p, keep)) {
			return nil
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		dst[p] = &fstest.MapFile{Data: b}
		return nil
	}))
}

func isUnderKept(p string, keep func(string) bool) bool {
	for dir := p; dir != "." && dir != "/"; {
		if keep(dir) {
			return true
		}
		i := len(dir) - 1
		for i >= 0 && dir[i] != '/' {
			i--
		}
		if i < 0 {
			return false
		}
		dir = dir[:i]
	}
	return false
}

// openToy opens an in-memory engine on the toy pack with the given policy.
func openToy(t testing.TB, rego string, mutate ...func(*Options)) *Engine {
	t.Helper()
	b := toyBundle(t, rego)
	opts := Options{InMemory: true, Bundle: &b}
	for _, m := range mutate {
		m(&opts)
	}
	e, err := Open(context.Background(), opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e
}
