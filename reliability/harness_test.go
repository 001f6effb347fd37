package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/internal/testsize"
)

// scenarioDir holds the shipped packs' scenario files.
var scenarioDir = filepath.Join("..", "policies_test", "handoff")

// size returns how large a suite runs: the soak size from the environment variable env
// when it is set (e.g. HANDOFF_RACE_ROUNDS=500), the CI size when HANDOFF_RELIABILITY=1
// (as .ci/run sets), else the smoke size that keeps a plain `go test ./...` quick.
func size(t testing.TB, env string, ci, smoke int) int {
	t.Helper()
	if s := os.Getenv(env); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "%s", env)
		return n
	}
	if os.Getenv("HANDOFF_RELIABILITY") == "1" {
		return ci
	}
	return smoke
}

// full says whether the suites that run in a plain `go test ./...` play every case:
// with HANDOFF_FULL=1 (as .ci/run sets) or HANDOFF_RELIABILITY=1; by default they play
// a deterministic sample of them.
func full() bool { return testsize.Full() || os.Getenv("HANDOFF_RELIABILITY") == "1" }

// sample is every stride-th of all, or all of it when full.
func sample[T any](all []T, stride int) []T {
	if full() {
		return all
	}
	return testsize.Sample(all, stride)
}

// flow is a shipped scenario whose requests can be replayed on any tenant and workflow.
type flow struct {
	steps    []map[string]any // raw, placeholders unresolved
	outcomes []engine.Outcome
	names    []string
	at       []time.Time // when each step is decided; zero when the scenario sets no time
}

var (
	flowsMu sync.Mutex
	flows   = map[string]*flow{}
)

// loadFlow reads a shipped campaign scenario.
func loadFlow(t testing.TB, name string) *flow {
	t.Helper()
	f, err := readFlow(name)
	require.NoError(t, err)
	return f
}

// readFlow reads a shipped scenario once: name is PACK/NAME, or a campaign scenario's
// NAME.
func readFlow(name string) (*flow, error) {
	flowsMu.Lock()
	defer flowsMu.Unlock()
	if f := flows[name]; f != nil {
		return f, nil
	}
	pack, base, found := strings.Cut(name, "/")
	if !found {
		pack, base = "campaign", name
	}
	sc, err := scenario.Load(filepath.Join(scenarioDir, pack, "scenarios", base+scenario.Ext))
	if err != nil {
		return nil, err
	}
	f := &flow{}
	var at time.Time
	for _, st := range sc.Steps {
		dec := json.NewDecoder(bytes.NewReader(st.Request))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if st.Now != "" {
			if at, err = time.Parse(time.RFC3339, st.Now); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		f.steps = append(f.steps, m)
		f.outcomes = append(f.outcomes, st.Expect.Outcome)
		f.names = append(f.names, st.Name)
		f.at = append(f.at, at)
	}
	flows[name] = f
	return f, nil
}

// stateReader is what rendering a step needs from an engine.
type stateReader interface {
	State(ctx context.Context, tenant, workflow string) (*engine.State, error)
}

// step renders step i of the flow for tenant and workflow: ids rewritten (request and
// trace ids prefixed by the workflow so they are unique), ${state_version} replaced by
// version and artifact placeholders resolved from the workflow's current state.
func (f *flow) step(ctx context.Context, eng stateReader, i int, tenant, workflow string, version uint64) ([]byte, error) {
	return f.render(ctx, eng, i, tenant, workflow, version, "")
}

func (f *flow) render(ctx context.Context, eng stateReader, i int, tenant, workflow string, version uint64, conflict string) ([]byte, error) {
	m := cloneJSON(f.steps[i]).(map[string]any)
	m["tenant_id"] = tenant
	m["workflow_id"] = workflow
	m["request_id"] = fmt.Sprintf("%s.%v", workflow, m["request_id"])
	m["trace_id"] = fmt.Sprintf("%s.%v", workflow, m["trace_id"])
	var st *engine.State
	out, err := resolve(m, func(name string) (any, error) {
		switch {
		case name == "workflow_id":
			return workflow, nil
		case name == "state_version":
			return version, nil
		case name == "conflict_id":
			return conflict, nil
		case strings.HasPrefix(name, "hash:"), strings.HasPrefix(name, "ref:"):
			if st == nil {
				var err error
				if st, err = eng.State(ctx, tenant, workflow); err != nil {
					return nil, err
				}
			}
			kind, spec, _ := strings.Cut(name, ":")
			typ, ver, _ := strings.Cut(spec, "@")
			h := st.Artifacts[typ]
			if h == nil || h.Versions[ver] == nil {
				return nil, fmt.Errorf("${%s}: no such recorded version", name)
			}
			ref := h.Versions[ver].Ref
			if kind == "hash" {
				return ref.Hash, nil
			}
			return map[string]any{"id": ref.ID, "type": ref.Type, "version": ref.Version, "hash": ref.Hash}, nil
		}
		return nil, fmt.Errorf("unknown placeholder ${%s}", name)
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// index is the step of the flow with the given name.
func (f *flow) index(t testing.TB, name string) int {
	t.Helper()
	for i, n := range f.names {
		if n == name {
			return i
		}
	}
	t.Fatalf("no step %q", name)
	return -1
}

// mustStep is step for tests.
func (f *flow) mustStep(t testing.TB, eng stateReader, i int, tenant, workflow string, version uint64) []byte {
	t.Helper()
	b, err := f.step(context.Background(), eng, i, tenant, workflow, version)
	require.NoError(t, err)
	return b
}

// resolve replaces "${name}" strings using fn.
func resolve(v any, fn func(string) (any, error)) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			r, err := resolve(e, fn)
			if err != nil {
				return nil, err
			}
			x[k] = r
		}
	case []any:
		for i, e := range x {
			r, err := resolve(e, fn)
			if err != nil {
				return nil, err
			}
			x[i] = r
		}
	case string:
		if strings.HasPrefix(x, "${") && strings.HasSuffix(x, "}") {
			return fn(x[2 : len(x)-1])
		}
	}
	return v, nil
}

// edit decodes a request body, changes it with fn and encodes it again.
func edit(t testing.TB, body []byte, fn func(map[string]any)) []byte {
	t.Helper()
	m := decodeObject(t, body)
	fn(m)
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return b
}

// decodeObject decodes a JSON object keeping numbers exact.
func decodeObject(t testing.TB, b []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	require.NoError(t, dec.Decode(&m))
	return m
}

func cloneJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = cloneJSON(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = cloneJSON(e)
		}
		return s
	}
	return v
}

// play is one workflow playing a flow step by step.
type play struct {
	f        *flow
	tenant   string
	workflow string
	next     int // the step to submit next
	version  uint64
	conflict string
}

// done reports whether every step was submitted.
func (p *play) done() bool { return p.next >= len(p.f.steps) }

// submit submits body at the time the next step is decided at, as the scenario plays
// it (a step after a timed one keeps that time); at the clock's when the scenario sets
// no time.
func (p *play) submit(ctx context.Context, eng *engine.Engine, body []byte) (*engine.Decision, error) {
	if at := p.f.at[p.next]; !at.IsZero() {
		return eng.SubmitAt(ctx, body, at)
	}
	return eng.Submit(ctx, body)
}

// evaluate is submit's dry run.
func (p *play) evaluate(ctx context.Context, eng *engine.Engine, body []byte) (*engine.Decision, error) {
	if at := p.f.at[p.next]; !at.IsZero() {
		return eng.EvaluateAt(ctx, body, at)
	}
	return eng.Evaluate(ctx, body)
}

// body renders the next step.
func (p *play) body(ctx context.Context, eng stateReader) ([]byte, error) {
	return p.f.render(ctx, eng, p.next, p.tenant, p.workflow, p.version, p.conflict)
}

// observe takes the decision of the step just submitted and moves on; it returns an
// error when the outcome is not the scenario's.
func (p *play) observe(d *engine.Decision) error {
	want := p.f.outcomes[p.next]
	p.next++
	if d.TenantID == p.tenant && d.WorkflowID == p.workflow {
		p.version = d.StateVersion
	}
	if d.ConflictID != "" {
		p.conflict = d.ConflictID
	}
	if d.Outcome != want {
		return fmt.Errorf("%s/%s step %d: outcome %s %v, want %s", p.tenant, p.workflow, p.next, d.Outcome, d.Codes(), want)
	}
	return nil
}

// untimedCampaignFlows are the campaign flows that set no time on any step: a client
// over HTTP cannot set the time a decision is made at.
func untimedCampaignFlows(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, name := range campaignFlows {
		timed := false
		for _, at := range loadFlow(t, name).at {
			timed = timed || !at.IsZero()
		}
		if !timed {
			out = append(out, name)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// campaignFlows are the shipped campaign scenarios that run on a single tenant.
var campaignFlows = []string{
	"01-happy-path", "02-weak-research-hg2", "03-strategy-version-mismatch", "04-qa-two-cycles-escalate",
	"05-s3-fails-safe", "06-upstream-defect", "07-delivery-without-approval", "08-delivery-of-draft",
	"09-change-approved-strategy", "11-s1-targeted-repair", "12-human-request-revision",
	"13-human-reject", "14-qa-subjective-defect", "15-stale-expected-version", "16-self-approval",
	"17-strategy-rejected", "18-research-cycles-escalate", "19-delivery-retry-reconcile",
	"20-failure-retry-cancel",
}
