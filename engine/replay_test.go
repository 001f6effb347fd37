package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/backend"
)

// TestReplayRefusesADivergedState copies a recorded workflow into a store with its state
// snapshot altered: the fold of the recorded decisions no longer gives the stored state,
// and replay stops with ErrReplayDiverged instead of replaying on a guessed state.
func TestReplayRefusesADivergedState(t *testing.T) {
	ctx := context.Background()
	recs, snap, _ := recordedStartAndCancel(t)

	for name, state := range map[string][]byte{
		"intact":  snap,
		"altered": bytes.Replace(snap, []byte(`"status":"RESEARCH"`), []byte(`"status":"STRATEGY"`), 1),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			l, err := backend.Open(ctx, store.Options{Dir: dir})
			require.NoError(t, err)
			// As the engine wrote them: the start (allow) bumps the version and is the
			// standing decision, the cancel is a block.
			for i, r := range recs {
				a := store.Append{Tenant: "acme", Workflow: "wf-explain", Create: i == 0, ExpectedVersion: min(uint64(i), 1), BumpVersion: i == 0,
					Records: []store.NewRecord{{Type: r.Type, Payload: r.Payload}}, Time: r.Time}
				if i == 0 {
					a.Standing = "allow"
				}
				if i == len(recs)-1 {
					a.State = state
				}
				_, err = l.Append(ctx, a)
				require.NoError(t, err)
			}
			require.NoError(t, l.Close())

			e, err := engine.Open(ctx, engine.Options{Dir: dir})
			require.NoError(t, err)
			defer e.Close()
			n := 0
			err = e.Replay(ctx, nil, engine.ReplayOptions{}, func(r engine.ReplayResult) error {
				n++
				assert.True(t, r.Identical)
				return nil
			})
			assert.Equal(t, 2, n)
			if name == "intact" {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, engine.ErrReplayDiverged)
			}
		})
	}
}

// TestReplayBlockedStart replays a start the policy blocked: it created no workflow and
// is kept in the tenant's audit stream, and comes out byte for byte.
func TestReplayBlockedStart(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Options{InMemory: true})
	require.NoError(t, err)
	defer e.Close()
	body := bytes.Replace([]byte(explainStart), []byte(`{"type": "system", "id": "orchestrator"}`), []byte(`{"type": "agent", "id": "research_agent"}`), 1)
	d, err := e.Submit(ctx, body)
	require.NoError(t, err)
	require.Equal(t, engine.Block, d.Outcome)
	var got []engine.ReplayResult
	require.NoError(t, e.Replay(ctx, nil, engine.ReplayOptions{}, func(r engine.ReplayResult) error {
		got = append(got, r)
		return nil
	}))
	require.Len(t, got, 1)
	assert.True(t, got[0].Audit)
	assert.True(t, got[0].Identical, "changed %v", got[0].Changed)
	assert.Equal(t, d.DecisionID, got[0].Replayed.DecisionID)
}

// TestReplaySkipsUnchangedPacks: with SkipUnchanged, a record is left out only when the
// engine's bundle made it and the candidate has the same files for its pack.
func TestReplaySkipsUnchangedPacks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Options{Dir: dir, LazyPolicies: true})
	require.NoError(t, err)
	_, err = e.Submit(ctx, []byte(explainStart))
	require.NoError(t, err)
	_, err = e.Submit(ctx, []byte(explainCancel("req-c1", "sam.intern", "viewer")))
	require.NoError(t, err)
	blocked := bytes.Replace([]byte(explainStart), []byte(`{"type": "system", "id": "orchestrator"}`), []byte(`{"type": "agent", "id": "research_agent"}`), 1)
	blocked = bytes.Replace(blocked, []byte(`"req-start"`), []byte(`"req-agent-start"`), 1)
	blocked = bytes.Replace(blocked, []byte(`"wf-explain"`), []byte(`"wf-agent"`), 1)
	d, err := e.Submit(ctx, blocked)
	require.NoError(t, err)
	require.Equal(t, engine.Block, d.Outcome, "%+v", d.Reasons)

	videoEdited := editedBundle(t, "handoff/video/video.rego")
	campaignEdited := editedBundle(t, "handoff/campaign/campaign.rego")
	replay := func(e *engine.Engine, b engine.Bundle, skip bool) (skipped, decided int) {
		t.Helper()
		cand, err := engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &b, LazyPolicies: true})
		require.NoError(t, err)
		require.NoError(t, e.Replay(ctx, cand, engine.ReplayOptions{SkipUnchanged: skip}, func(r engine.ReplayResult) error {
			if r.Skipped != "" {
				assert.Equal(t, "unchanged", r.Skipped)
				assert.Nil(t, r.Replayed)
				skipped++
				return nil
			}
			assert.Empty(t, r.Changed, "the edit is a comment")
			decided++
			return nil
		}))
		return skipped, decided
	}
	s, n := replay(e, videoEdited, true)
	assert.Equal(t, [2]int{3, 0}, [2]int{s, n}, "the video edit leaves the campaign decisions out, the audit stream's too")
	s, n = replay(e, videoEdited, false)
	assert.Equal(t, [2]int{0, 3}, [2]int{s, n}, "without SkipUnchanged every record is decided")
	s, n = replay(e, campaignEdited, true)
	assert.Equal(t, [2]int{0, 3}, [2]int{s, n}, "the campaign edit decides the campaign records")
	assert.NotEqual(t, e.Decider().PackDigest("campaign"), "")
	require.NoError(t, e.Close())

	// Read with a bundle that did not record the log, nothing vouches for the records:
	// the same candidate decides them all.
	e, err = engine.Open(ctx, engine.Options{Dir: dir, Bundle: &campaignEdited, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	s, n = replay(e, campaignEdited, true)
	assert.Equal(t, [2]int{0, 3}, [2]int{s, n})
}

// editedBundle is the shipped bundle with a comment added to one policy file.
func editedBundle(t testing.TB, path string) engine.Bundle {
	t.Helper()
	b := engine.ShippedBundle()
	pfs := fstest.MapFS{}
	require.NoError(t, fs.WalkDir(b.Policies, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(b.Policies, p)
		if p == path {
			data = append(data, "\n# edited\n"...)
		}
		pfs[p] = &fstest.MapFile{Data: data}
		return err
	}))
	require.Contains(t, pfs, path)
	b.Policies = pfs
	return b
}

// TestReplayComparesWithoutTitles: a store recorded before reasons carried titles, or
// with other titles (a rule renamed since), replays unchanged: a title names the rule
// that produced a reason and decides nothing. Any other difference in a reason is still
// a change.
func TestReplayComparesWithoutTitles(t *testing.T) {
	ctx := context.Background()
	recs, snap, d := recordedStartAndCancel(t)
	require.Equal(t, engine.Block, d.Outcome)
	require.NotEmpty(t, d.Reasons)
	for _, r := range d.Reasons {
		require.NotEmpty(t, r.Title, "reason %s", r.Code)
	}

	for name, tc := range map[string]struct {
		edit    func(reason map[string]any)
		changed []string
	}{
		"recorded before titles":       {edit: func(r map[string]any) { delete(r, "title") }},
		"recorded under another title": {edit: func(r map[string]any) { r["title"] = "A rule since renamed" }},
		"reworded":                     {edit: func(r map[string]any) { r["message"] = "something else" }, changed: []string{"reasons"}},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			l, err := backend.Open(ctx, store.Options{Dir: dir})
			require.NoError(t, err)
			// The start, which stands, then the blocked cancel, as the engine appends them.
			require.Len(t, recs, 2)
			start := store.Append{Tenant: "acme", Workflow: "wf-explain", Create: true, BumpVersion: true, State: snap, Time: recs[0].Time,
				Standing: string(engine.Allow), Records: []store.NewRecord{{Type: recs[0].Type, Payload: editReasons(t, recs[0].Payload, tc.edit)}}}
			_, err = l.Append(ctx, start)
			require.NoError(t, err)
			_, err = l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-explain", ExpectedVersion: 1, Time: recs[1].Time,
				Records: []store.NewRecord{{Type: recs[1].Type, Payload: editReasons(t, recs[1].Payload, tc.edit)}}})
			require.NoError(t, err)
			require.NoError(t, l.Close())

			e, err := engine.Open(ctx, engine.Options{Dir: dir})
			require.NoError(t, err)
			defer e.Close()
			var blocked []engine.ReplayResult
			require.NoError(t, e.Replay(ctx, nil, engine.ReplayOptions{}, func(r engine.ReplayResult) error {
				if r.Recorded.Outcome == engine.Block {
					blocked = append(blocked, r)
				}
				return nil
			}))
			require.Len(t, blocked, 1)
			r := blocked[0]
			assert.Equal(t, tc.changed == nil, r.Identical, "changed %v", r.Changed)
			assert.Equal(t, append([]string{}, tc.changed...), r.Changed)
			assert.Equal(t, d.Reasons, r.Replayed.Reasons, "the replayed decision keeps its titles")
		})
	}
}

// editReasons applies edit to every reason of the decision a log record's payload holds.
func editReasons(t *testing.T, payload []byte, edit func(map[string]any)) []byte {
	t.Helper()
	var ent map[string]any
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&ent))
	d, ok := ent["decision"].(map[string]any)
	require.True(t, ok, "a record without a decision")
	rs, _ := d["reasons"].([]any)
	for _, r := range rs {
		edit(r.(map[string]any))
	}
	out, err := json.Marshal(ent)
	require.NoError(t, err)
	return out
}

// recordedStartAndCancel records a start and a blocked cancel on a store of its own and
// returns its records, its state snapshot and the cancel's decision.
func recordedStartAndCancel(t *testing.T) ([]store.Record, []byte, *engine.Decision) {
	t.Helper()
	ctx := context.Background()
	src := t.TempDir()
	e, err := engine.Open(ctx, engine.Options{Dir: src})
	require.NoError(t, err)
	_, err = e.Submit(ctx, []byte(explainStart))
	require.NoError(t, err)
	d, err := e.Submit(ctx, []byte(explainCancel("req-c1", "sam.intern", "viewer")))
	require.NoError(t, err)
	require.NoError(t, e.Close())

	l, err := backend.Open(ctx, store.Options{Dir: src})
	require.NoError(t, err)
	defer l.Close()
	var recs []store.Record
	require.NoError(t, l.Records(ctx, "acme", "wf-explain", 1, func(r store.Record) error {
		recs = append(recs, r)
		return nil
	}))
	snap, _, err := l.State(ctx, "acme", "wf-explain")
	require.NoError(t, err)
	return recs, snap, d
}
