// Package scenario plays scenario files through an engine: each a sequence of requests
// with the outcome and reason codes each must get. Packs ship scenarios for their seed
// workflows; `handoffctl run` plays them, and so do the tests.
package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

// Scenario is one scenario file.
type Scenario struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Pack        string `json:"pack"`
	Steps       []Step `json:"steps"`
}

// Step is one request and what its decision must be.
type Step struct {
	Name string `json:"name"`
	// Now, when set, is the time the request is decided at (RFC 3339 with a zone,
	// 2026-11-02T09:30:00Z): the decision's decided_at and the policies' input.now. A
	// scenario that sets it sets it on its first step; a step without it is decided at
	// the time of the step before, and a time never goes back. Without any, steps are
	// decided at the engine's clock.
	Now     string          `json:"now,omitempty"`
	Request json.RawMessage `json:"request"`
	Expect  Expect          `json:"expect"`

	at time.Time // Now, parsed; zero when the scenario sets no time
}

// Expect is what a step's decision must be. Outcome and Reasons (the exact set of
// reason codes) are always checked; the other fields only when given.
type Expect struct {
	Outcome      engine.Outcome `json:"outcome"`
	Reasons      []string       `json:"reasons"`
	StatusAfter  string         `json:"status_after,omitempty"`
	Next         []string       `json:"next,omitempty"`
	StateVersion *uint64        `json:"state_version,omitempty"`
	// Redacted, when given, says whether the log holds the request redacted (it carried
	// a secret or personal data: guardrails.redaction). The engine must be a Recorder.
	Redacted *bool `json:"redacted,omitempty"`
}

// Recorder is an Engine whose log a scenario reads to check Expect.Redacted.
type Recorder interface {
	History(ctx context.Context, tenant, workflow string, fn func(engine.Entry) error) error
	Audit(ctx context.Context, tenant string, fn func(engine.Entry) error) error
}

// Parse reads a scenario file strictly: unknown fields are an error.
func Parse(data []byte) (*Scenario, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if s.Name == "" || len(s.Steps) == 0 {
		return nil, fmt.Errorf("scenario: a scenario needs a name and at least one step")
	}
	for i, st := range s.Steps {
		if st.Expect.Outcome == "" {
			return nil, fmt.Errorf("scenario %s: step %d (%s) has no expected outcome", s.Name, i+1, st.Name)
		}
	}
	if err := s.clock(); err != nil {
		return nil, err
	}
	return &s, nil
}

// clock parses the steps' times: RFC 3339 with a zone, set on the first step when on
// any, never earlier than the step before; a step without one keeps the time before.
func (s *Scenario) clock() error {
	var last time.Time
	for i := range s.Steps {
		st := &s.Steps[i]
		if st.Now == "" {
			if i > 0 && !last.IsZero() {
				st.at = last
			}
			continue
		}
		if i > 0 && last.IsZero() {
			return fmt.Errorf("scenario %s: step %d (%s) sets now, but step 1 does not: a scenario that sets the time sets it from its first step", s.Name, i+1, st.Name)
		}
		t, err := time.Parse(time.RFC3339Nano, st.Now)
		if err != nil {
			return fmt.Errorf("scenario %s: step %d (%s): now %q is not an RFC 3339 time with a zone (2026-11-02T09:30:00Z)", s.Name, i+1, st.Name, st.Now)
		}
		if t.Before(last) {
			return fmt.Errorf("scenario %s: step %d (%s): now %s is earlier than the step before (%s): time never goes back", s.Name, i+1, st.Name, st.Now, last.UTC().Format(time.RFC3339Nano))
		}
		st.at, last = t, t
	}
	return nil
}

// At is the time the step is decided at, zero when the scenario sets no time.
func (st Step) At() time.Time { return st.at }

// Load reads a scenario file from disk.
func Load(file string) (*Scenario, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return s, nil
}

// Ext is the scenario files' extension. Their content is JSON, but OPA loads every .json
// file under policies_test/ as data, so scenarios use their own extension.
const Ext = ".scenario"

// Files lists the scenario files (*.scenario) under fsys, sorted.
func Files(fsys fs.FS) ([]string, error) {
	var out []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && path.Ext(p) == Ext {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// Result is one played step.
type Result struct {
	Step     int
	Name     string
	Request  json.RawMessage // the request as submitted, its placeholders replaced
	Decision *engine.Decision
	Mismatch string // empty when the decision is as expected
}

// Engine is what a scenario is played against.
type Engine interface {
	Submit(ctx context.Context, body []byte) (*engine.Decision, error)
	SubmitAt(ctx context.Context, body []byte, at time.Time) (*engine.Decision, error)
	State(ctx context.Context, tenant, workflow string) (*engine.State, error)
}

// Run plays every step in order, calling fn after each, and stops at the first mismatch
// with an error that says what differed.
func Run(ctx context.Context, eng Engine, s *Scenario, fn func(Result)) error {
	return run(ctx, eng, s, fn, false)
}

// run plays the steps; keepGoing goes on after a mismatch (RunAll).
func run(ctx context.Context, eng Engine, s *Scenario, fn func(Result), keepGoing bool) error {
	p := &player{eng: eng}
	for i, st := range s.Steps {
		body, err := p.render(ctx, st.Request)
		if err != nil {
			return fmt.Errorf("scenario %s: step %d (%s): %w", s.Name, i+1, st.Name, err)
		}
		var d *engine.Decision
		if st.at.IsZero() {
			d, err = eng.Submit(ctx, body)
		} else {
			d, err = eng.SubmitAt(ctx, body, st.at)
		}
		if err != nil {
			return fmt.Errorf("scenario %s: step %d (%s): %w", s.Name, i+1, st.Name, err)
		}
		p.observe(body, d)
		res := Result{Step: i + 1, Name: st.Name, Request: body, Decision: d, Mismatch: mismatch(st.Expect, d)}
		if st.Expect.Redacted != nil && res.Mismatch == "" {
			if res.Mismatch, err = redactionMismatch(ctx, eng, *st.Expect.Redacted, d); err != nil {
				return fmt.Errorf("scenario %s: step %d (%s): %w", s.Name, i+1, st.Name, err)
			}
		}
		if fn != nil {
			fn(res)
		}
		if res.Mismatch != "" && !keepGoing {
			return fmt.Errorf("scenario %s: step %d (%s): %s", s.Name, i+1, st.Name, res.Mismatch)
		}
	}
	return nil
}

// Player renders the requests of one workflow as Run does: it replaces the placeholders
// (see Resolver) with what the workflow's earlier decisions, passed to Observe, and its
// state say. A Player
// is for one goroutine at a time.
type Player struct{ p player }

// NewPlayer returns a Player that reads workflow state from eng.
func NewPlayer(eng Engine) *Player { return &Player{player{eng: eng}} }

// Render returns the request to submit for a scenario step's request.
func (p *Player) Render(ctx context.Context, raw json.RawMessage) ([]byte, error) {
	return p.p.render(ctx, raw)
}

// Observe takes note of the decision a rendered request got.
func (p *Player) Observe(body []byte, d *engine.Decision) { p.p.observe(body, d) }

// player keeps what placeholders refer to.
type player struct {
	eng        Engine
	tenant     string
	workflow   string
	version    uint64
	conflictID string
}

func (p *player) observe(body []byte, d *engine.Decision) {
	if p.workflow == "" && d.Kind == "start" && d.Outcome != engine.Block {
		p.workflow, p.tenant = d.WorkflowID, d.TenantID
	}
	if d.WorkflowID == p.workflow && d.TenantID == p.tenant {
		p.version = d.StateVersion
	}
	if d.ConflictID != "" {
		p.conflictID = d.ConflictID
	}
}

// render replaces placeholders and injects the scenario's workflow id.
func (p *player) render(ctx context.Context, raw json.RawMessage) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("request is not JSON: %w", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		// Hostile payloads are sent as they are.
		return raw, nil
	}
	if _, has := obj["workflow_id"]; !has && obj["kind"] != "start" && p.workflow != "" {
		obj["workflow_id"] = p.workflow
	}
	r := Resolver{Tenant: p.tenant, Workflow: p.workflow, Version: &p.version, ConflictID: p.conflictID, State: p.eng.State}
	out, err := r.Replace(ctx, obj)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// redactionMismatch finds the decision's record (its workflow's log, else the tenant's
// audit stream) and says how its redaction differs from what was expected.
func redactionMismatch(ctx context.Context, eng Engine, want bool, d *engine.Decision) (string, error) {
	rec, ok := eng.(Recorder)
	if !ok {
		return "", fmt.Errorf("expect.redacted needs an engine whose log can be read")
	}
	var found *engine.Entry
	look := func(en engine.Entry) error {
		if en.Decision != nil && en.Decision.DecisionID == d.DecisionID {
			found = &en
		}
		return nil
	}
	if d.WorkflowID != "" {
		if err := rec.History(ctx, d.TenantID, d.WorkflowID, look); err != nil && !errors.Is(err, store.ErrNotFound) {
			return "", err
		}
	}
	if found == nil {
		if err := rec.Audit(ctx, d.TenantID, look); err != nil {
			return "", err
		}
	}
	switch {
	case found == nil:
		return "the decision is not in the log", nil
	case want && found.Redaction == nil:
		return "the request is recorded whole, want redacted", nil
	case !want && found.Redaction != nil:
		return fmt.Sprintf("the request is recorded redacted (%s), want whole", strings.Join(found.Redaction.Codes, ", ")), nil
	}
	return "", nil
}

// mismatch says how a decision differs from what was expected.
func mismatch(want Expect, d *engine.Decision) string {
	var diffs []string
	if d.Outcome != want.Outcome {
		diffs = append(diffs, fmt.Sprintf("outcome %s, want %s", d.Outcome, want.Outcome))
	}
	got := uniqueSorted(d.Codes())
	wantCodes := uniqueSorted(want.Reasons)
	if !slices.Equal(got, wantCodes) {
		diffs = append(diffs, fmt.Sprintf("reasons %v, want %v", got, wantCodes))
	}
	if want.StatusAfter != "" && d.StatusAfter != want.StatusAfter {
		diffs = append(diffs, fmt.Sprintf("status_after %s, want %s", d.StatusAfter, want.StatusAfter))
	}
	if want.Next != nil {
		var agents []string
		for _, n := range d.Next {
			agents = append(agents, n.Agent)
		}
		if !slices.Equal(uniqueSorted(agents), uniqueSorted(want.Next)) {
			diffs = append(diffs, fmt.Sprintf("next %v, want %v", uniqueSorted(agents), uniqueSorted(want.Next)))
		}
	}
	if want.StateVersion != nil && d.StateVersion != *want.StateVersion {
		diffs = append(diffs, fmt.Sprintf("state_version %d, want %d", d.StateVersion, *want.StateVersion))
	}
	if len(diffs) > 0 {
		msg := strings.Join(diffs, "; ")
		for _, r := range d.Reasons {
			msg += fmt.Sprintf("\n    reason %s: %s", r.Code, r.Message)
		}
		return msg
	}
	return ""
}

func uniqueSorted(s []string) []string {
	out := slices.Clone(s)
	if out == nil {
		out = []string{}
	}
	sort.Strings(out)
	return slices.Compact(out)
}
