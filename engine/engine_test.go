package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/open-policy-agent/opa/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine/internal/contract"
	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/engine/internal/policy"
	"github.com/handoff-dev/handoff/store"
)

const toyStart = `{"request_id":"r-start","kind":"start","tenant_id":"t1","workflow_id":"wf-1","trace_id":"tr-1","actor":{"type":"system","id":"host"},"pack":"toy","subject_id":"s1"}`

// toyHandoff is a writer→reader handoff delivering NOTE version v.
func toyHandoff(id string, v int, extra string) string {
	return fmt.Sprintf(`{"request_id":%q,"kind":"handoff","tenant_id":"t1","workflow_id":"wf-1","trace_id":"tr-1",
		"actor":{"type":"agent","id":"writer"},"source_agent":"writer","target_agent":"reader","task_type":"write",
		"input_artifacts":[],"output":{"id":"note-1","type":"NOTE","version":%d,"content":{"text":"v%d"}},
		"output_summary":"a note","assumptions":[],"limitations":[],"confidence_score":0.9%s}`, id, v, v, extra)
}

func submit(t *testing.T, e *Engine, body string) *Decision {
	t.Helper()
	d, err := e.Submit(context.Background(), []byte(body))
	require.NoError(t, err)
	return d
}

func TestSubmitRecordsAndFoldsState(t *testing.T) {
	e := openToy(t, toyAllow)
	ctx := context.Background()
	d := submit(t, e, toyStart)
	require.Equal(t, Allow, d.Outcome, "%+v", d.Reasons)
	assert.Equal(t, "NEW", d.StatusBefore)
	assert.Equal(t, "OPEN", d.StatusAfter)
	assert.Equal(t, uint64(1), d.StateVersion)
	assert.True(t, d.Recorded)
	assert.Equal(t, "data.handoff.toy.decision", d.Policy.Entrypoint)
	assert.Equal(t, e.Decider().BundleDigest(), d.Policy.BundleDigest)

	d = submit(t, e, toyHandoff("r-h1", 1, ""))
	require.Equal(t, Allow, d.Outcome, "%+v", d.Reasons)
	assert.Equal(t, uint64(2), d.StateVersion)

	st, err := e.State(ctx, "t1", "wf-1")
	require.NoError(t, err)
	assert.Equal(t, "OPEN", st.Status)
	assert.Equal(t, uint64(2), st.StateVersion)
	require.Contains(t, st.Artifacts, "NOTE")
	assert.Equal(t, 1, st.Artifacts["NOTE"].Approved)
	assert.Equal(t, "v1", st.Artifacts["NOTE"].Versions["1"].Content["text"])

	var seqs []uint64
	require.NoError(t, e.History(ctx, "t1", "wf-1", func(en Entry) error {
		seqs = append(seqs, en.Seq)
		return nil
	}))
	assert.Equal(t, []uint64{1, 2}, seqs)
	rep, err := e.Verify(ctx, "t1", "wf-1")
	require.NoError(t, err)
	assert.True(t, rep.OK, rep.Problem)
}

func TestEvaluateRecordsNothing(t *testing.T) {
	e := openToy(t, toyAllow)
	ctx := context.Background()
	d, err := e.Evaluate(ctx, []byte(toyStart))
	require.NoError(t, err)
	assert.Equal(t, Allow, d.Outcome)
	assert.False(t, d.Recorded)
	_, err = e.State(ctx, "t1", "wf-1")
	assert.ErrorIs(t, err, store.ErrNotFound)
	// The same request submitted afterwards is decided afresh, not replayed.
	assert.Equal(t, Allow, submit(t, e, toyStart).Outcome)
}

func TestIdempotency(t *testing.T) {
	e := openToy(t, toyAllow)
	first := submit(t, e, toyStart)
	again := submit(t, e, toyStart)
	a, _ := json.Marshal(first)
	b, _ := json.Marshal(again)
	assert.Equal(t, string(a), string(b), "a repeated request returns the original decision byte for byte")

	reused := submit(t, e, strings.Replace(toyStart, `"subject_id":"s1"`, `"subject_id":"s2"`, 1))
	assert.Equal(t, Block, reused.Outcome)
	assert.Contains(t, reused.Codes(), "IDEMPOTENCY_KEY_REUSED")

	st, err := e.State(context.Background(), "t1", "wf-1")
	require.NoError(t, err)
	assert.Equal(t, "s1", st.SubjectID, "the reused key changed nothing")
}

func TestCrossTenantIsBlockedAndAudited(t *testing.T) {
	e := openToy(t, toyAllow)
	ctx := context.Background()
	submit(t, e, toyStart)
	other := strings.Replace(toyHandoff("r-x", 1, ""), `"tenant_id":"t1"`, `"tenant_id":"t2"`, 1)
	d := submit(t, e, other)
	assert.Equal(t, Block, d.Outcome)
	assert.Equal(t, []string{"TENANT_MISMATCH"}, d.Codes())
	assert.Empty(t, d.Events)
	assert.NotContains(t, d.Reasons[0].Message, "t1", "the owner tenant is never named")

	_, err := e.State(ctx, "t2", "wf-1")
	assert.ErrorIs(t, err, store.ErrNotFound, "reads are scoped by tenant")
	var audited []Entry
	require.NoError(t, e.Audit(ctx, "t2", func(en Entry) error {
		audited = append(audited, en)
		return nil
	}))
	require.Len(t, audited, 1)
	assert.Equal(t, "TENANT_MISMATCH", audited[0].Decision.Reasons[0].Code)
	st, err := e.State(ctx, "t1", "wf-1")
	require.NoError(t, err)
	assert.Equal(t, uint64(1), st.StateVersion)
}

func TestStrictDecodingBlocks(t *testing.T) {
	e := openToy(t, toyAllow)
	cases := map[string]struct {
		body string
		code string
	}{
		"case-variant tenant": {`{"request_id":"r","kind":"start","tenant_id":"a","TENANT_ID":"b"}`, "DUPLICATE_KEY"},
		"duplicate key":       {`{"request_id":"r","request_id":"s"}`, "DUPLICATE_KEY"},
		"invalid utf-8":       {"{\"request_id\":\"\xff\"}", "INVALID_ENCODING"},
		"not json":            {`{"request_id":`, "INVALID_ENCODING"},
		"too deep":            {strings.Repeat("[", 40) + strings.Repeat("]", 40), "DEPTH_EXCEEDED"},
		"too large":           {`{"x":"` + strings.Repeat("a", 2<<20) + `"}`, "PAYLOAD_TOO_LARGE"},
		"unknown workflow":    {strings.Replace(toyHandoff("r-u", 1, ""), "wf-1", "wf-404", 1), "WORKFLOW_NOT_FOUND"},
		"unknown pack":        {strings.Replace(toyStart, `"pack":"toy"`, `"pack":"nope"`, 1), "UNKNOWN_PACK"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			d := submit(t, e, c.body)
			assert.Equal(t, Block, d.Outcome)
			assert.Contains(t, d.Codes(), c.code)
			assert.Equal(t, policy.CoreEntrypoint, d.Policy.Entrypoint)
		})
	}
}

func TestContractValidationListsEveryError(t *testing.T) {
	e := openToy(t, toyAllow)
	submit(t, e, toyStart)
	body := strings.Replace(toyHandoff("r-bad", 1, `,"smuggled":true`), `"content":{"text":"v1"}`, `"content":{"txt":"v1"}`, 1)
	d := submit(t, e, body)
	require.Equal(t, Block, d.Outcome)
	paths := map[string]string{}
	for _, r := range d.Reasons {
		paths[r.Path] = r.Code
	}
	assert.Equal(t, "UNKNOWN_FIELD", paths["smuggled"])
	assert.Equal(t, "UNKNOWN_FIELD", paths["output.content.txt"])
	assert.Equal(t, "SCHEMA_INVALID", paths["output.content.text"])
}

func TestFailClosed(t *testing.T) {
	cases := map[string]struct {
		rego string
		code string
		opts func(*Options)
	}{
		"malformed result": {"package handoff.toy\n\ndecision := 1\n", pipeline.CodePolicyError, nil},
		"unknown outcome":  {"package handoff.toy\n\ndecision := {\"outcome\": \"maybe\", \"status_after\": \"OPEN\"}\n", pipeline.CodePolicyError, nil},
		"undefined":        {"package handoff.toy\n\ndecision := 1 if input.never\n", pipeline.CodePolicyError, nil},
		"runtime error":    {"package handoff.toy\n\ndecision := {\"outcome\": \"allow\", \"status_after\": \"OPEN\", \"n\": to_number(\"x\")}\n", pipeline.CodePolicyError, nil},
		"unknown status":   {"package handoff.toy\n\ndecision := {\"outcome\": \"allow\", \"status_after\": \"GONE\"}\n", pipeline.CodePolicyError, nil},
		"block with events": {`package handoff.toy

decision := {"outcome": "block", "status_after": "NEW", "reasons": [{"code": "X", "message": "x"}], "events": [{"type": "counter", "name": "n", "delta": 1}]}
`, pipeline.CodePolicyError, nil},
		"artifact version skipped": {`package handoff.toy

decision := {"outcome": "allow", "status_after": "OPEN", "events": [{"type": "artifact_recorded", "ref": {"id": "n", "type": "NOTE", "version": 3, "hash": "sha256:0000000000000000000000000000000000000000000000000000000000000000"}, "status": "draft", "producer": "writer"}]}
`, pipeline.CodePolicyError, nil},
		"timeout": {`package handoff.toy

decision := {"outcome": "allow", "status_after": "OPEN"} if {
	count([x | some x in numbers.range(1, 100000000); x > 0]) > 0
}
`, pipeline.CodePolicyTimeout, func(o *Options) { o.EvalTimeout = 50 * time.Millisecond }},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var mut []func(*Options)
			if c.opts != nil {
				mut = append(mut, c.opts)
			}
			e := openToy(t, c.rego, mut...)
			d := submit(t, e, toyStart)
			assert.Equal(t, Block, d.Outcome)
			assert.Equal(t, []string{c.code}, d.Codes(), "%+v", d.Reasons)
			// No rule produced the reason: the engine titles it itself.
			assert.Equal(t, map[string]string{pipeline.CodePolicyError: "Policy error", pipeline.CodePolicyTimeout: "Policy timeout"}[c.code], d.Reasons[0].Title)
			assert.Equal(t, d.StatusBefore, d.StatusAfter)
			assert.Empty(t, d.Events)
			_, err := e.State(context.Background(), "t1", "wf-1")
			assert.ErrorIs(t, err, store.ErrNotFound, "a failed start creates no workflow")
		})
	}
}

func TestNonDeterministicBuiltinsDoNotLoad(t *testing.T) {
	for _, call := range []string{`http.send({"method": "get", "url": "http://x"})`, `time.now_ns()`, `rand.intn("x", 10)`, `uuid.rfc4122("x")`, `opa.runtime()`, `net.lookup_ip_addr("x")`} {
		t.Run(call, func(t *testing.T) {
			b := toyBundle(t, "package handoff.toy\n\ndecision := {\"outcome\": \"allow\", \"status_after\": \"OPEN\", \"x\": "+call+"}\n")
			_, err := Open(context.Background(), Options{InMemory: true, Bundle: &b})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "undefined function")
		})
	}
}

// TestTheCUETablesAreInForce: the engine reads the contract tables from CUE, whatever
// the committed copies say (they are what stock `opa test` reads, and CheckTables says
// when they are stale).
func TestTheCUETablesAreInForce(t *testing.T) {
	b := toyBundle(t, toyAllow)
	pfs := b.Policies.(fstest.MapFS)
	pfs[contract.PackTablesPath("toy")] = &fstest.MapFile{Data: []byte(`{"name": "toy"}`)}
	var stale *StaleTablesError
	require.ErrorAs(t, CheckTables(b), &stale)
	assert.Equal(t, contract.PackTablesPath("toy"), stale.Path)

	e, err := Open(context.Background(), Options{InMemory: true, Bundle: &b})
	require.NoError(t, err)
	defer e.Close()
	tables, ok := e.Decider().Tables("toy")
	require.True(t, ok)
	assert.Contains(t, tables, "agents", "the tables in force are CUE's, not the stale copy")
	data, err := storage.ReadOne(context.Background(), e.Decider().policies.Store(), storage.MustParsePath("/handoff/toy/contract"))
	require.NoError(t, err)
	table, err := ast.JSON(data.(ast.Value))
	require.NoError(t, err)
	assert.Contains(t, table, "agents", "the policies read CUE's tables")
}

func TestStateMachineWithoutExitRefused(t *testing.T) {
	b := toyBundle(t, toyAllow)
	cfs := b.Contracts.(fstest.MapFS)
	src := strings.Replace(toyContract, `{from: "OPEN", to: "DONE"}`, `{from: "NEW", to: "DONE"}`, 1)
	cfs["toy/toy.cue"] = &fstest.MapFile{Data: []byte(src)}
	_, err := Open(context.Background(), Options{InMemory: true, Bundle: &b})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "status OPEN is not terminal and has no exit")
}

func TestConcurrentSubmitsAtOneVersion(t *testing.T) {
	e := openToy(t, toyAllow)
	submit(t, e, toyStart)
	const n = 32
	var wg sync.WaitGroup
	results := make([]*Decision, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = e.Submit(context.Background(), []byte(toyHandoff(fmt.Sprintf("r-c%d", i), 1, `,"expected_version":1`)))
		}()
	}
	wg.Wait()
	allowed := 0
	for i := range n {
		require.NoError(t, errs[i])
		switch results[i].Outcome {
		case Allow:
			allowed++
		default:
			assert.Contains(t, results[i].Codes(), "STALE_STATE_VERSION")
		}
	}
	assert.Equal(t, 1, allowed, "exactly one writer at version 1 wins")
	st, err := e.State(context.Background(), "t1", "wf-1")
	require.NoError(t, err)
	assert.Equal(t, uint64(2), st.StateVersion)
}

func TestStoreLockedIsTyped(t *testing.T) {
	dir := t.TempDir()
	b := toyBundle(t, toyAllow)
	e, err := Open(context.Background(), Options{Dir: dir, Bundle: &b})
	require.NoError(t, err)
	defer e.Close()
	_, err = Open(context.Background(), Options{Dir: dir, Bundle: &b})
	require.Error(t, err)
	assert.True(t, errors.Is(err, store.ErrLocked), "got %v", err)
}

func TestReasonsComeFromMetadata(t *testing.T) {
	e := openToy(t, toyAllow)
	byCode := map[string]ReasonInfo{}
	for _, r := range e.Decider().Reasons() {
		byCode[r.Code] = r
	}
	r, ok := byCode["TENANT_MISMATCH"]
	require.True(t, ok)
	assert.Equal(t, "handoff.core", r.Package)
	assert.NotEmpty(t, r.Title)
	assert.NotEmpty(t, r.Description)
	assert.Positive(t, r.Line)
}

func TestPackConfigIsExportedAndChecked(t *testing.T) {
	b := toyBundle(t, toyAllow)
	cfs := b.Contracts.(fstest.MapFS)
	cfs["toy/config.cue"] = &fstest.MapFile{Data: []byte("package toy\n\nconfig: {budget: 3, routes: [\"a\", \"b\"]}\n")}
	tables, err := ExportTables(b)
	require.NoError(t, err)
	require.JSONEq(t, `{"budget": 3, "routes": ["a", "b"]}`, string(tables[contract.PackConfigPath("toy")]))

	var stale *StaleTablesError
	require.ErrorAs(t, CheckTables(b), &stale, "a config value that is not committed is stale")
	assert.Equal(t, contract.PackConfigPath("toy"), stale.Path)

	pfs := b.Policies.(fstest.MapFS)
	pfs[contract.PackConfigPath("toy")] = &fstest.MapFile{Data: tables[contract.PackConfigPath("toy")]}
	require.NoError(t, CheckTables(b))
	e, err := Open(context.Background(), Options{InMemory: true, Bundle: &b})
	require.NoError(t, err)
	require.NoError(t, e.Close())
}
