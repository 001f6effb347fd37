package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/store"
)

// WorkflowFilter is handoff.WorkflowFilter.
type WorkflowFilter = handoff.WorkflowFilter

// WorkflowSummary is handoff.WorkflowSummary.
type WorkflowSummary = handoff.WorkflowSummary

// ListWorkflows lists a tenant's workflows that f selects, in id order. Each costs one
// read of its summary and head and none of its state or decisions: the head names the
// standing one's outcome, however long the workflow's history.
func (e *Engine) ListWorkflows(ctx context.Context, tenant string, f WorkflowFilter) ([]WorkflowSummary, error) {
	unkept, _, err := e.summarizeMissing(ctx, e.log, tenant)
	if err != nil {
		return nil, err
	}
	out := []WorkflowSummary{}
	keep := func(row WorkflowRow) {
		s := row.WorkflowSummary
		if f.Pack != "" && s.Pack != f.Pack || f.Status != "" && s.Status != f.Status || f.AwaitingHuman && s.Standing != AwaitHuman {
			return
		}
		out = append(out, s)
	}
	err = e.log.Summaries(ctx, tenant, nil, func(s store.Summary) error {
		row, err := e.summaryRow(ctx, tenant, s)
		if err == nil {
			keep(row)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, u := range unkept {
		row, err := e.standOn(ctx, tenant, u.row, u.head)
		if err != nil {
			return nil, err
		}
		keep(row)
	}
	slices.SortFunc(out, func(a, b WorkflowSummary) int { return strings.Compare(a.WorkflowID, b.WorkflowID) })
	return out, nil
}
