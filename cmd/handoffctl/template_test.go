package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// TestTemplateValidates makes the plain JSON skeleton of every kind of every shipped
// pack, and of a handoff to every agent some agent hands work to, fills its ${ref:...}
// placeholders and requires the engine's contract validation to accept it.
func TestTemplateValidates(t *testing.T) {
	ctx := context.Background()
	b := engine.ShippedBundle()
	dc, err := engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &b, LazyPolicies: true})
	require.NoError(t, err)
	packs, err := contractPacks(b.Contracts)
	require.NoError(t, err)
	require.NotEmpty(t, packs)
	kinds := []string{"start", "handoff", "review", "approval", "failure", "resolution", "outcome", "cancel"}
	for _, pack := range packs {
		var cases [][2]string // kind, target
		for _, k := range kinds {
			cases = append(cases, [2]string{k, ""})
		}
		tables, ok := dc.Tables(pack)
		require.True(t, ok, pack)
		var info packInfo
		raw, err := json.Marshal(tables)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &info))
		for _, target := range handTargets(&info) {
			cases = append(cases, [2]string{"handoff", target})
		}
		for _, c := range cases {
			name := pack + "/" + c[0]
			if c[1] != "" {
				name += "/" + c[1]
			}
			t.Run(name, func(t *testing.T) {
				sources := []string{""}
				sk, err := requestSkeleton(b.Contracts, pack, c[0], c[1], "")
				var ue *usageError
				if errors.As(err, &ue) && strings.Contains(ue.msg, "choose one with --source") {
					sources = nil
					for name, a := range info.Agents {
						for _, to := range a.HandsTo {
							if to == c[1] {
								sources = append(sources, name)
							}
						}
					}
				} else {
					require.NoError(t, err)
				}
				for _, src := range sources {
					if src != "" {
						sk, err = requestSkeleton(b.Contracts, pack, c[0], c[1], src)
						require.NoError(t, err, src)
					}
					body := fillRefs(t, sk.render(false, ""))
					st := &engine.State{WorkflowID: "workflow_id", TenantID: "tenant_id", Pack: pack, Status: "X"}
					if c[0] == "start" {
						st = nil
					}
					verrs, err := dc.Validate(body, st)
					require.NoError(t, err)
					assert.Empty(t, verrs, "source %q: got validation errors for\n%s", src, body)
				}
			})
		}
	}
}

// fillRefs replaces every "${ref:TYPE@latest}" with a reference to version 1 of TYPE.
func fillRefs(t *testing.T, s string) []byte {
	t.Helper()
	for {
		i := strings.Index(s, `"${ref:`)
		if i < 0 {
			return []byte(s)
		}
		j := strings.Index(s[i:], `@latest}"`)
		require.Positive(t, j, s)
		typ := s[i+len(`"${ref:`) : i+j]
		ref := `{"id": "` + strings.ToLower(typ) + `", "type": "` + typ + `", "version": 1, "hash": "sha256:` + strings.Repeat("0", 64) + `"}`
		s = s[:i] + ref + s[i+j+len(`@latest}"`):]
	}
}

func TestTemplateUnknownNames(t *testing.T) {
	b := engine.ShippedBundle()
	_, err := requestSkeleton(b.Contracts, "vidoe", "start", "", "")
	var ue *usageError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, ue.msg, `no pack "vidoe" in the bundle; closest: video`)
	_, err = requestSkeleton(b.Contracts, "video", "hadnoff", "", "")
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, ue.msg, "closest: handoff")
	_, err = requestSkeleton(b.Contracts, "video", "handoff", "screenwritr", "")
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, ue.msg, "closest: screenwriter")
}
