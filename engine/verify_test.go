package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/store"
)

const (
	videoTenant   = "baimengke"
	videoWorkflow = "wf-video-01"
)

// videoStore plays the first steps of the video pack's happy path (the workflow reaches
// SCRIPTWRITING) into a store in a fresh directory and returns the directory and the
// request bodies, by request_id.
func videoStore(t *testing.T) (string, map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	sc, err := scenario.Load("../policies_test/handoff/video/scenarios/01-happy-path.scenario")
	require.NoError(t, err)
	sc.Steps = sc.Steps[:5]
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Options{Dir: dir, LazyPolicies: true})
	require.NoError(t, err)
	bodies := map[string][]byte{}
	require.NoError(t, scenario.Run(ctx, e, sc, func(r scenario.Result) {
		var req struct {
			RequestID string `json:"request_id"`
		}
		require.NoError(t, json.Unmarshal(r.Request, &req))
		bodies[req.RequestID] = r.Request
	}))
	st, err := e.State(ctx, videoTenant, videoWorkflow)
	require.NoError(t, err)
	require.Equal(t, "SCRIPTWRITING", st.Status)
	rep, err := e.Verify(ctx, videoTenant, videoWorkflow)
	require.NoError(t, err)
	require.True(t, rep.OK, rep.Problem)
	require.NoError(t, e.Close())
	return dir, bodies
}

// Raw keys of the Badger store (store/keys.go): each id ends with 0x00 0x01.
func snapshotKey(tenant, workflow string) []byte {
	return []byte("t/" + tenant + "\x00\x01w/" + workflow + "\x00\x01s")
}

func idemKey(tenant, key string) []byte {
	return []byte("t/" + tenant + "\x00\x01i/" + key + "\x00\x01")
}

// rewrite changes raw values of the store in dir behind the engine's back, as an
// attacker with disk access would.
func rewrite(t *testing.T, dir string, fn func(get func([]byte) []byte, set func(k, v []byte))) {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Update(func(txn *badger.Txn) error {
		get := func(k []byte) []byte {
			item, err := txn.Get(k)
			require.NoError(t, err, "key %q", k)
			v, err := item.ValueCopy(nil)
			require.NoError(t, err)
			return v
		}
		set := func(k, v []byte) {
			if v == nil {
				require.NoError(t, txn.Delete(k))
				return
			}
			require.NoError(t, txn.Set(k, v))
		}
		fn(get, set)
		return nil
	}))
}

func verifyAll(t *testing.T, dir string) []store.VerifyReport {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Options{Dir: dir, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	reps, err := e.VerifyAll(context.Background())
	require.NoError(t, err)
	return reps
}

func brokenReport(t *testing.T, reps []store.VerifyReport, workflow string) store.VerifyReport {
	t.Helper()
	for _, r := range reps {
		if r.Workflow == workflow {
			require.False(t, r.OK, "verify found nothing wrong with %s", workflow)
			return r
		}
	}
	t.Fatalf("no report for %s in %+v", workflow, reps)
	return store.VerifyReport{}
}

// TestVerifyDetectsARewrittenSnapshot rewrites the state snapshot of a workflow waiting
// for its script so that it reads COMPLETED and terminal: the chain still verifies, but
// the snapshot is not the fold of the chain, and verify says so.
func TestVerifyDetectsARewrittenSnapshot(t *testing.T) {
	dir, _ := videoStore(t)
	rewrite(t, dir, func(get func([]byte) []byte, set func(k, v []byte)) {
		snap := get(snapshotKey(videoTenant, videoWorkflow))
		forged := bytes.Replace(snap, []byte(`"status":"SCRIPTWRITING"`), []byte(`"status":"COMPLETED"`), 1)
		forged = bytes.Replace(forged, []byte(`"terminal":false`), []byte(`"terminal":true`), 1)
		require.NotEqual(t, snap, forged)
		set(snapshotKey(videoTenant, videoWorkflow), forged)
	})
	rep := brokenReport(t, verifyAll(t, dir), videoWorkflow)
	assert.Contains(t, rep.Problem, "state snapshot differs from the fold")

	e, err := engine.Open(context.Background(), engine.Options{Dir: dir, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	one, err := e.Verify(context.Background(), videoTenant, videoWorkflow)
	require.NoError(t, err)
	assert.False(t, one.OK)
}

// TestVerifyDetectsARewrittenIdempotencyRecord alters the idempotency record of one
// request in the ways an attacker could: verify reports each, and a resend of the request
// gets no forged answer.
func TestVerifyDetectsARewrittenIdempotencyRecord(t *testing.T) {
	ctx := context.Background()
	// The requests of steps 2 and 3 of the scenario.
	const victim, other = "v01-02", "v01-03"
	cases := map[string]struct {
		tamper  func(get func([]byte) []byte, set func(k, v []byte))
		problem string
		resend  func(t *testing.T, d *engine.Decision, err error)
	}{
		"one byte flipped": {
			tamper: func(get func([]byte) []byte, set func(k, v []byte)) {
				v := get(idemKey(videoTenant, victim))
				v[len(v)-1] ^= 0x01
				set(idemKey(videoTenant, victim), v)
			},
			problem: "is bound to record",
			resend: func(t *testing.T, _ *engine.Decision, err error) {
				require.ErrorIs(t, err, store.ErrTampered)
			},
		},
		"bound to another request's record": {
			tamper: func(get func([]byte) []byte, set func(k, v []byte)) {
				set(idemKey(videoTenant, victim), get(idemKey(videoTenant, other)))
			},
			problem: "is bound to record 3",
			resend: func(t *testing.T, d *engine.Decision, err error) {
				// The digest the key now holds is the other request's: the resend is a
				// reused request_id, refused and sent to the audit stream.
				require.NoError(t, err)
				assert.Equal(t, engine.Block, d.Outcome)
				assert.Equal(t, "IDEMPOTENCY_KEY_REUSED", d.Reasons[0].Code)
			},
		},
		"deleted": {
			tamper: func(_ func([]byte) []byte, set func(k, v []byte)) {
				set(idemKey(videoTenant, victim), nil)
			},
			problem: "has no idempotency key",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir, bodies := videoStore(t)
			rewrite(t, dir, c.tamper)
			rep := brokenReport(t, verifyAll(t, dir), videoWorkflow)
			assert.Contains(t, rep.Problem, "idempotency: ")
			assert.Contains(t, rep.Problem, c.problem)
			if c.resend == nil {
				return
			}
			e, err := engine.Open(ctx, engine.Options{Dir: dir, LazyPolicies: true})
			require.NoError(t, err)
			defer e.Close()
			d, err := e.Submit(ctx, bodies[victim])
			c.resend(t, d, err)
		})
	}
}

// TestAnswerIsTheRecordOfItsRequest binds a request's key to the record of another
// request, with that request's digest, so that the store's binding holds: the engine
// still refuses to answer with a decision that is not the request's own.
func TestAnswerIsTheRecordOfItsRequest(t *testing.T) {
	ctx := context.Background()
	dir, bodies := videoStore(t)
	var victimEntry []byte
	rewrite(t, dir, func(get func([]byte) []byte, set func(k, v []byte)) {
		victimEntry = get(idemKey(videoTenant, "v01-02"))
		other := get(idemKey(videoTenant, "v01-03"))
		// Keep the victim's digest (the first field), take the other's binding.
		n := 1 + 8 + int(beUint64(victimEntry[1:9]))
		m := 1 + 8 + int(beUint64(other[1:9]))
		set(idemKey(videoTenant, "v01-02"), append(append([]byte{}, victimEntry[:n]...), other[m:]...))
	})
	e, err := engine.Open(ctx, engine.Options{Dir: dir, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	d, err := e.Submit(ctx, bodies["v01-02"])
	require.ErrorIs(t, err, store.ErrTampered, "answered with %+v", d)
	rep, err := e.Verify(ctx, videoTenant, videoWorkflow)
	require.NoError(t, err)
	assert.False(t, rep.OK)
	assert.Contains(t, rep.Problem, "idempotency: ")
}

func beUint64(b []byte) uint64 {
	var n uint64
	for _, c := range b[:8] {
		n = n<<8 | uint64(c)
	}
	return n
}

// TestVerifyWhileWriting verifies a store again and again while requests are recorded:
// records, keys and snapshots appended during a walk are never taken for tampering.
func TestVerifyWhileWriting(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Options{Dir: t.TempDir(), LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	const writers, each = 2, 6
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("wf-%d-%d", w, i)
				start := `{"request_id": "s-` + id + `", "kind": "start", "tenant_id": "acme", "organization_id": "acme-marketing", "trace_id": "trace-` + id + `", "actor": {"type": "system", "id": "orchestrator"}, "pack": "campaign", "subject_id": "brightbrew", "brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups", "product": "Brightbrew Cold Brew"}, "workflow_id": "` + id + `"}`
				cancel := `{"request_id": "c-` + id + `", "kind": "cancel", "tenant_id": "acme", "workflow_id": "` + id + `", "organization_id": "acme-marketing", "trace_id": "trace-` + id + `", "actor": {"type": "human", "id": "maria", "roles": ["viewer"]}, "reason": "stop"}`
				for _, b := range []string{start, cancel} {
					if _, err := e.Submit(ctx, []byte(b)); err != nil {
						errs <- err
					}
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	rounds := 0
	for running := true; running || rounds == 0; rounds++ {
		select {
		case <-done:
			running = false
		default:
		}
		reps, err := e.VerifyAll(ctx)
		require.NoError(t, err)
		for _, r := range reps {
			require.True(t, r.OK, "round %d: %s/%s: %s", rounds, r.Tenant, r.Workflow, r.Problem)
		}
	}
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		t.Fatal("canceled")
	}
}
