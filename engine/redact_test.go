package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/canonjson"
)

// Secrets the redaction tests send; none may reach the store.
const (
	secretPassword = "hunter2-Zq9vX"                             // in free text, after "password:"
	secretKeyName  = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"          // an object key
	secretTrace    = "token=AKIAIOSFODNN7EXAMPLE"                // in trace_id, a kept field
	secretBadValue = "api_key: 9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c" // a value CUE quotes in its message
)

var allSecrets = []string{secretPassword, secretKeyName, "AKIAIOSFODNN7EXAMPLE", "9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c"}

// leakyHandoff is a toy handoff whose output text carries a password, and whose context
// has a key that is a Stripe secret key.
func leakyHandoff(id string) string {
	return toyHandoff(id, 1, `,"context":{"`+secretKeyName+`":"x"}`)
}

func withSecretText(body string) string {
	return strings.Replace(body, `"content":{"text":"v1"}`, `"content":{"text":"ship it; db password: `+secretPassword+` thanks"}`, 1)
}

// openToyDir opens the toy pack on a Badger store on disk.
func openToyDir(t *testing.T, dir string) *Engine {
	t.Helper()
	return openToy(t, toyAllow, func(o *Options) { o.InMemory, o.Dir = false, dir })
}

func TestRedactedRequestNeverReachesTheStore(t *testing.T) {
	dir := t.TempDir()
	e := openToyDir(t, dir)
	ctx := context.Background()
	submit(t, e, toyStart)

	leaky := withSecretText(leakyHandoff("r-leak"))
	d := submit(t, e, leaky)
	require.Equal(t, Block, d.Outcome)
	assert.Contains(t, d.Codes(), "FORBIDDEN_CONTENT")
	assert.Equal(t, uint64(1), d.StateVersion, "a redacted request changes nothing")
	first, err := json.Marshal(d)
	require.NoError(t, err)
	for _, s := range allSecrets {
		assert.NotContains(t, string(first), s, "the decision quotes no secret")
	}

	// The same request again: the recorded decision, byte for byte.
	again := submit(t, e, leaky)
	second, err := json.Marshal(again)
	require.NoError(t, err)
	assert.Equal(t, string(first), string(second))
	// The dry run decides the same.
	ev, err := e.Evaluate(ctx, []byte(leaky))
	require.NoError(t, err)
	evb, _ := json.Marshal(ev)
	assert.Equal(t, string(first), string(evb))

	// Another payload under the same request_id is still a reuse of the key.
	reused := submit(t, e, strings.Replace(leaky, `"output_summary":"a note"`, `"output_summary":"another note"`, 1))
	assert.Equal(t, Block, reused.Outcome)
	assert.Contains(t, reused.Codes(), "IDEMPOTENCY_KEY_REUSED")

	// A secret in trace_id, a kept field: the copy and the decision drop it.
	traced := strings.Replace(withSecretText(toyHandoff("r-trace", 1, "")), `"trace_id":"tr-1"`, `"trace_id":"`+secretTrace+`"`, 1)
	dt := submit(t, e, traced)
	require.Equal(t, Block, dt.Outcome)
	assert.Equal(t, "[REDACTED]", dt.TraceID)

	// A secret CUE quotes in a validation message (a string where a number belongs).
	invalid := strings.Replace(toyHandoff("r-invalid", 1, ""), `"confidence_score":0.9`, `"confidence_score":"`+secretBadValue+`"`, 1)
	di := submit(t, e, invalid)
	require.Equal(t, Block, di.Outcome)
	assert.Contains(t, di.Codes(), "FORBIDDEN_CONTENT", "forbidden content is found in invalid requests too")

	// Another tenant's workflow, with a secret: the audit stream holds it redacted.
	foreign := strings.Replace(withSecretText(toyHandoff("r-foreign", 1, "")), `"tenant_id":"t1"`, `"tenant_id":"t2"`, 1)
	df := submit(t, e, foreign)
	assert.ElementsMatch(t, []string{"FORBIDDEN_CONTENT", "TENANT_MISMATCH"}, slices.Compact(slices.Sorted(slices.Values(df.Codes()))))

	var hist []Entry
	require.NoError(t, e.History(ctx, "t1", "wf-1", func(en Entry) error {
		hist = append(hist, en)
		return nil
	}))
	require.Len(t, hist, 4, "start, leak, trace, invalid")
	leak := hist[1]
	require.NotNil(t, leak.Redaction)
	assert.Equal(t, []string{"FORBIDDEN_CONTENT"}, leak.Redaction.Codes)
	digest, err := canonjson.Hash(mustDecode(t, leaky))
	require.NoError(t, err)
	assert.Equal(t, digest, leak.Redaction.RequestDigest, "an auditor holding the original proves it")
	sum := sha256.Sum256([]byte(leaky))
	assert.Equal(t, "sha256:"+hex.EncodeToString(sum[:]), leak.Redaction.BodySHA256)
	var req map[string]any
	require.NoError(t, json.Unmarshal(leak.Request, &req))
	assert.Equal(t, "r-leak", req["request_id"])
	assert.Equal(t, "writer", req["source_agent"])
	assert.Equal(t, map[string]any{"type": "agent", "id": "writer"}, req["actor"])
	assert.Equal(t, "[REDACTED]", req["output_summary"])
	out := req["output"].(map[string]any)
	assert.Equal(t, "NOTE", out["type"])
	assert.Equal(t, map[string]any{"text": "[REDACTED]"}, out["content"])
	assert.Equal(t, map[string]any{"[REDACTED]#1": "[REDACTED]"}, req["context"])
	assert.Nil(t, hist[0].Redaction, "a clean request is recorded whole")
	require.NotNil(t, hist[2].Redaction)
	require.NotNil(t, hist[3].Redaction)

	var audited []Entry
	require.NoError(t, e.Audit(ctx, "t1", func(en Entry) error {
		audited = append(audited, en)
		return nil
	}))
	require.Len(t, audited, 1, "the reused key")
	assert.NotNil(t, audited[0].Redaction)
	audited = nil
	require.NoError(t, e.Audit(ctx, "t2", func(en Entry) error {
		audited = append(audited, en)
		return nil
	}))
	require.Len(t, audited, 1)
	assert.NotNil(t, audited[0].Redaction)

	// Every consumer says so: replay skips, explain and the decision log show the copy.
	var skipped, replayed int
	require.NoError(t, e.Replay(ctx, nil, ReplayOptions{}, func(r ReplayResult) error {
		if r.Skipped != "" {
			skipped++
			assert.Equal(t, "redacted", r.Skipped)
			assert.Nil(t, r.Replayed)
			return nil
		}
		replayed++
		assert.True(t, r.Identical)
		return nil
	}))
	assert.Equal(t, 3, skipped)
	assert.Equal(t, 1, replayed)
	ex, err := e.Explain(ctx, d.DecisionID)
	require.NoError(t, err)
	require.NotNil(t, ex.Redaction)
	assert.False(t, ex.Reproduced)
	assert.Contains(t, string(ex.Request), "[REDACTED]")
	require.NotEmpty(t, ex.Reasons)
	var events []DecisionLogEvent
	require.NoError(t, e.DecisionLog(ctx, DecisionLogOptions{}, func(ev DecisionLogEvent) error {
		events = append(events, ev)
		return nil
	}))
	redacted := 0
	for _, ev := range events {
		b, err := json.Marshal(ev)
		require.NoError(t, err)
		for _, s := range allSecrets {
			assert.NotContains(t, string(b), s)
		}
		if ev.Custom["redaction"] != nil {
			redacted++
		}
	}
	assert.Equal(t, 5, redacted, "three workflow records and two audit records")

	require.NoError(t, e.Close())
	scanStore(t, dir, allSecrets)
}

func TestRedactionRefusesASecretInTheKeys(t *testing.T) {
	e := openToy(t, toyAllow)
	submit(t, e, toyStart)
	body := toyHandoff("AKIAIOSFODNN7EXAMPLE", 1, "")
	_, err := e.Submit(context.Background(), []byte(body))
	require.ErrorIs(t, err, ErrUnrecordable, "request_id is a store key: the request cannot be recorded")
	n := 0
	require.NoError(t, e.History(context.Background(), "t1", "wf-1", func(Entry) error { n++; return nil }))
	assert.Equal(t, 1, n, "nothing recorded")
}

func TestRedactionFailsClosedWhenThePolicyDoesNotBlock(t *testing.T) {
	// A pack that turns FORBIDDEN_CONTENT into a revise: the engine blocks anyway.
	e := openToy(t, `package handoff.toy

import data.handoff.core

decision := {"outcome": "revise", "status_after": "OPEN", "reasons": [{"code": "FORBIDDEN_CONTENT", "message": "m", "path": "output.content.text", "outcome": "revise"}], "next": [], "revise": [], "events": [], "requires_human_review": false} if input.request.kind == "handoff"

else := core.decide(core.reasons, {"outcome": "allow", "status_after": "OPEN"})
`)
	submit(t, e, toyStart)
	d := submit(t, e, withSecretText(toyHandoff("r-1", 1, "")))
	assert.Equal(t, Block, d.Outcome)
	assert.Equal(t, []string{"POLICY_ERROR"}, d.Codes())
	var last Entry
	require.NoError(t, e.History(context.Background(), "t1", "wf-1", func(en Entry) error { last = en; return nil }))
	require.NotNil(t, last.Redaction, "still recorded redacted")
	assert.NotContains(t, string(last.Request), secretPassword)
}

func mustDecode(t *testing.T, s string) map[string]any {
	t.Helper()
	var v map[string]any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&v))
	return v
}

// scanStore reads every key and value of every version in a closed Badger store, and
// every byte of its files, and fails when any holds one of the strings.
func scanStore(t *testing.T, dir string, secrets []string) {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	require.NoError(t, err)
	n := 0
	err = db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.AllVersions = true
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			val, err := item.ValueCopy(nil)
			if err != nil {
				return err
			}
			n++
			for _, s := range secrets {
				assert.NotContains(t, string(item.Key()), s)
				assert.NotContains(t, string(val), s, "key %s", item.Key())
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, db.Close())
	require.NotZero(t, n)
	require.NoError(t, filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			assert.False(t, bytes.Contains(b, []byte(s)), "file %s holds %q", p, s)
		}
		return nil
	}))
}
