package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/handoff-dev/handoff/engine/governance"
	"github.com/handoff-dev/handoff/store"
)

// Workflow summaries. Every append the engine makes gives the store the summary of its
// workflow (store.Append.Summary): the row the lists show, as of that decision, without
// what the store knows better and keeps beside it (the time of the decision, the head:
// how many records the log holds, the state version, the standing outcome). A list then
// reads one small summary per row, in the order of activity the store keeps, however long
// the workflows' histories: FindWorkflows a page at a time.
//
// A workflow recorded before summaries were kept has none: the store lists it as
// unsummarized, and the engine summarizes it from its log once, when it is first listed
// (summarizeMissing) or when a Badger store is upgraded at Open (UpgradeSummaries), and
// gives the store the summary (store.Log.SetSummary). A store that cannot be written
// (read-only, a standby) is summarized again at each list.

// summaryVersion is the version of the summaries this engine writes; one of another
// version is read as missing, and the workflow summarized from its log again.
const summaryVersion = 1

// storedSummary is a summary as the store keeps it: the fields of a row the head does
// not hold, under short names. It is read with every row of a page, so it is kept small:
// Badger keeps a value under 512 bytes beside its key, and a larger one in its value log
// with the records, where a page would read it from among them.
type storedSummary struct {
	Version   int      `json:"v"`
	Workflow  string   `json:"w"`
	Pack      string   `json:"p,omitempty"`
	Status    string   `json:"s,omitempty"`
	Terminal  bool     `json:"t,omitempty"`
	UpdatedAt string   `json:"u,omitempty"`
	Subject   string   `json:"j,omitempty"`
	CreatedAt string   `json:"c,omitempty"`
	Roles     []string `json:"r,omitempty"`
	Agents    []string `json:"a,omitempty"`
	Reasons   []string `json:"x,omitempty"`
}

// encodeSummary is the summary of row for the store; nil when it does not fit one
// (store.MaxSummaryLen), which leaves the workflow to be summarized from its log.
func encodeSummary(row WorkflowRow) []byte {
	b, err := json.Marshal(storedSummary{Version: summaryVersion, Workflow: row.WorkflowID, Pack: row.Pack, Status: row.Status,
		Terminal: row.Terminal, UpdatedAt: row.UpdatedAt, Subject: row.SubjectID, CreatedAt: row.CreatedAt,
		Roles: row.Roles, Agents: row.Agents, Reasons: row.Reasons})
	if err != nil || len(b) > store.MaxSummaryLen {
		return nil
	}
	return b
}

// decodeSummary reads a summary the store kept for workflow wf; ok is false when it is
// not one this engine writes, of that workflow.
func decodeSummary(wf string, b []byte) (row WorkflowRow, ok bool) {
	var s storedSummary
	if err := json.Unmarshal(b, &s); err != nil || s.Version != summaryVersion || s.Workflow != wf {
		return WorkflowRow{}, false
	}
	orEmpty := func(l []string) []string {
		if l == nil {
			return []string{}
		}
		return l
	}
	return WorkflowRow{
		WorkflowSummary: WorkflowSummary{WorkflowID: s.Workflow, Pack: s.Pack, Status: s.Status, Terminal: s.Terminal, UpdatedAt: s.UpdatedAt},
		SubjectID:       s.Subject, CreatedAt: s.CreatedAt,
		Roles: orEmpty(s.Roles), Agents: orEmpty(s.Agents), Reasons: orEmpty(s.Reasons),
	}, true
}

// recordedSummary is the summary an append of decision d gives its workflow: of the
// state the decision leaves (next), or of the one it was decided on when it changes
// nothing (a block). Nil when there is no state to summarize.
func (e *Engine) recordedSummary(next, decided *State, d *Decision, at time.Time) []byte {
	st := next
	if st == nil {
		st = decided
	}
	if st == nil {
		return nil
	}
	return encodeSummary(e.summarize(st, d, at))
}

// summaryRow is the row of the workflow a stored summary names: the summary's fields,
// with what the store keeps beside it (its time, its head) and the standing outcome
// the head names. A summary that does not decode is made again from the log.
func (e *Engine) summaryRow(ctx context.Context, tenant string, s store.Summary) (WorkflowRow, error) {
	row, ok := decodeSummary(s.Workflow, s.Data)
	if !ok {
		row, head, err := e.rowFromLog(ctx, e.log, tenant, s.Workflow)
		if err != nil {
			return WorkflowRow{}, err
		}
		if b := encodeSummary(row); b != nil {
			e.setSummary(ctx, e.log, tenant, s.Workflow, row, b)
		}
		return e.standOn(ctx, tenant, row, head)
	}
	row.Active, row.Decisions, row.StateVersion = s.Active, s.Head.Seq, s.Head.StateVersion
	return e.standOn(ctx, tenant, row, s.Head)
}

// standOn completes a row with the standing outcome its head names: the roles that may
// act are those of a workflow that awaits a person.
func (e *Engine) standOn(ctx context.Context, tenant string, row WorkflowRow, head store.Head) (WorkflowRow, error) {
	standing, err := e.standingOutcome(ctx, tenant, row.WorkflowID, head)
	if err != nil {
		return WorkflowRow{}, err
	}
	row.Standing = standing
	if standing != AwaitHuman {
		row.Roles = []string{}
	}
	return row, nil
}

// rowFromLog summarizes a workflow from its log: its state and head, read together, and
// its latest record. The row's standing outcome is left to standOn.
func (e *Engine) rowFromLog(ctx context.Context, l store.Log, tenant, wf string) (WorkflowRow, store.Head, error) {
	snap, head, err := l.State(ctx, tenant, wf)
	if err != nil {
		return WorkflowRow{}, store.Head{}, err
	}
	st, _, err := e.states.read(tenant, wf, snap) // read, never changed
	if err != nil {
		return WorkflowRow{}, store.Head{}, err
	}
	rec, err := l.Record(ctx, tenant, wf, head.Seq)
	if err != nil {
		return WorkflowRow{}, store.Head{}, err
	}
	ent, err := governance.DecodeEntry(rec)
	if err != nil {
		return WorkflowRow{}, store.Head{}, err
	}
	row := e.summarize(st, ent.Decision, rec.Time)
	row.Decisions, row.StateVersion = head.Seq, head.StateVersion
	return row, head, nil
}

// setSummary gives the store the summary b of row, for the head at row.Decisions: a
// failure is logged, and the workflow summarized again next time.
func (e *Engine) setSummary(ctx context.Context, l store.Log, tenant, wf string, row WorkflowRow, b []byte) bool {
	err := l.SetSummary(ctx, tenant, wf, row.Decisions, row.Active, b)
	if err != nil && !errors.Is(err, store.ErrReadOnly) {
		e.logger.Warn("could not record the summary of a workflow", "tenant_id", tenant, "workflow_id", wf, "error", err)
	}
	return err == nil
}

// unkeptRow is the row of a workflow the store could not keep the summary of, with its
// head, for standOn.
type unkeptRow struct {
	row  WorkflowRow
	head store.Head
}

// summarizeMissing summarizes the workflows of tenant that have no summary, from their
// logs, and gives the store their summaries. It returns the rows the store could not
// keep (it cannot be written), most recent activity first, which a list must show beside
// the summaries it reads, and how many it kept. Once every workflow is summarized it
// costs one look at the store.
func (e *Engine) summarizeMissing(ctx context.Context, l store.Log, tenant string) (unkept []unkeptRow, kept int, err error) {
	var todo []unkeptRow
	err = l.Unsummarized(ctx, tenant, func(wf string, head store.Head) error {
		todo = append(todo, unkeptRow{row: WorkflowRow{WorkflowSummary: WorkflowSummary{WorkflowID: wf}}, head: head})
		return nil
	})
	if err != nil || len(todo) == 0 {
		return nil, 0, err
	}
	for _, m := range todo {
		wf := m.row.WorkflowID
		row, head, err := e.rowFromLog(ctx, l, tenant, wf)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, kept, fmt.Errorf("engine: summarize workflow %s: %w", wf, err)
		}
		if b := encodeSummary(row); b != nil && e.setSummary(ctx, l, tenant, wf, row, b) {
			kept++
			continue
		}
		unkept = append(unkept, unkeptRow{row, head})
	}
	slices.SortFunc(unkept, func(a, b unkeptRow) int { return compareRows(a.row, b.row) })
	return unkept, kept, nil
}

// UpgradeSummaries summarizes every workflow of the store that has no summary, tenant by
// tenant, and returns how many it summarized. Open does it for a Badger store; a
// PostgreSQL store's workflows are summarized as their tenants are first listed, or by
// this. It is safe beside decisions, and does nothing more once done.
func (e *Engine) UpgradeSummaries(ctx context.Context) (int, error) {
	return e.upgradeSummaries(ctx, e.log)
}

func (e *Engine) upgradeSummaries(ctx context.Context, l store.Log) (int, error) {
	tenants, err := l.Tenants(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, tenant := range tenants {
		_, kept, err := e.summarizeMissing(ctx, l, tenant)
		n += kept
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
