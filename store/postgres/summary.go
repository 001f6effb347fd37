package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// summaryColumns are the values of summary, summary_seq and active_key for a summary
// written at the head seq, active at t: all NULL for none.
func summaryColumns(summary []byte, seq uint64, t time.Time) ([]byte, *uint64, []byte) {
	if summary == nil {
		return nil, nil, nil
	}
	return summary, &seq, store.ActiveKey(t)
}

// summaryChunk is how many summaries one statement of Summaries reads: most pages need
// one, and a walk that goes on reads the next chunk from where it stopped.
const summaryChunk = 64

// SetSummary gives a workflow of tenant the summary it lacks, as Badger's SetSummary
// does: one conditional UPDATE.
func (p *Log) SetSummary(ctx context.Context, tenant, workflow string, seq uint64, active time.Time, summary []byte) error {
	if err := p.begin(ctx); err != nil {
		return err
	}
	defer p.end()
	if err := chain.CheckSummaryArg(p.readOnly, tenant, workflow, seq, active, summary); err != nil {
		return err
	}
	data, summarySeq, key := summaryColumns(summary, seq, active)
	tag, err := p.pool.Exec(ctx, `UPDATE handoff_workflows SET summary = $4, summary_seq = $3, active_key = $5
		WHERE workflow = $1 AND tenant = $2 AND seq = $3`, []byte(workflow), []byte(tenant), summarySeq, data, key)
	if err != nil || tag.RowsAffected() > 0 {
		return pgWrap("set summary", err)
	}
	if owner, found, err := p.Owner(ctx, workflow); err != nil {
		return err
	} else if !found || owner != tenant {
		return fmt.Errorf("%w: %q", store.ErrNotFound, workflow)
	}
	return nil
}

// Summaries calls fn with the summary of each workflow of tenant that has one, the latest
// activity first, as Badger's Summaries does: a chunk of the index at a time, each read
// from where the one before stopped, so a walk is not one view of the database. A
// workflow is delivered at most once (one whose activity moves while the walk goes on
// moves to its start, behind it), and a summary that is not its head's (an earlier
// version appended since) is passed over: Unsummarized lists it.
func (p *Log) Summaries(ctx context.Context, tenant string, after *store.SummaryCursor, fn func(store.Summary) error) error {
	if err := p.begin(ctx); err != nil {
		return err
	}
	defer p.end()
	key, workflow := []byte{}, []byte{}
	if after != nil {
		key, workflow = store.ActiveKey(after.Active), []byte(after.Workflow)
	}
	for {
		var chunk []store.Summary
		var last store.Summary
		n := 0
		err := func() error {
			rows, err := p.pool.Query(ctx, `SELECT workflow, active_key, summary, summary_seq, `+headColumns+` FROM handoff_workflows
				WHERE tenant = $1 AND active_key IS NOT NULL AND (active_key, workflow) > ($2, $3)
				ORDER BY active_key, workflow LIMIT $4`, []byte(tenant), key, workflow, summaryChunk)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var s store.Summary
				var active []byte
				var seq uint64
				var h pgHead
				if err := rows.Scan(append([]any{(*bytesString)(&s.Workflow), &active, &s.Data, &seq}, h.targets()...)...); err != nil {
					return err
				}
				at, ok := store.ParseActiveKey(active)
				if !ok {
					return fmt.Errorf("%w: the summary of workflow %q has an undecodable time", store.ErrTampered, s.Workflow)
				}
				s.Active, s.Head = at, h.head()
				n++
				last = s
				if seq == s.Head.Seq {
					chunk = append(chunk, s)
				}
			}
			return rows.Err()
		}()
		if err != nil {
			return pgWrap("summaries", err)
		}
		for _, s := range chunk {
			if err := fn(s); err != nil {
				return err
			}
		}
		if n < summaryChunk {
			return nil
		}
		key, workflow = store.ActiveKey(last.Active), []byte(last.Workflow)
	}
}

// Unsummarized calls fn with every workflow of tenant that has no summary of its head,
// and its head, in workflow id order, as Badger's Unsummarized does.
func (p *Log) Unsummarized(ctx context.Context, tenant string, fn func(workflow string, head store.Head) error) error {
	if err := p.begin(ctx); err != nil {
		return err
	}
	defer p.end()
	// One statement, one view: no transaction, so that the look a list makes before
	// each page, which finds none once all are summarized, is one round trip.
	rows, err := p.pool.Query(ctx, `SELECT workflow, `+headColumns+` FROM handoff_workflows
		WHERE tenant = $1 AND (summary IS NULL OR summary_seq IS DISTINCT FROM seq) ORDER BY workflow`, []byte(tenant))
	if err != nil {
		return pgWrap("unsummarized", err)
	}
	defer rows.Close()
	for rows.Next() {
		var w string
		var h pgHead
		if err := rows.Scan(append([]any{(*bytesString)(&w)}, h.targets()...)...); err != nil {
			return pgWrap("unsummarized", err)
		}
		if err := fn(w, h.head()); err != nil {
			return err
		}
	}
	return pgWrap("unsummarized", rows.Err())
}

// SummaryOf reads the summary of a workflow of tenant and its head; found is false when
// it has none of its head.
func (p *Log) SummaryOf(ctx context.Context, tenant, workflow string) (s store.Summary, found bool, err error) {
	if err := p.begin(ctx); err != nil {
		return store.Summary{}, false, err
	}
	defer p.end()
	var active []byte
	var seq uint64
	var h pgHead
	err = p.pool.QueryRow(ctx, `SELECT active_key, summary, summary_seq, `+headColumns+` FROM handoff_workflows
		WHERE workflow = $1 AND tenant = $2 AND summary IS NOT NULL AND summary_seq = seq`, []byte(workflow), []byte(tenant)).
		Scan(append([]any{&active, &s.Data, &seq}, h.targets()...)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Summary{}, false, nil
	}
	if err != nil {
		return store.Summary{}, false, pgWrap("summary", err)
	}
	at, ok := store.ParseActiveKey(active)
	if !ok {
		return store.Summary{}, false, fmt.Errorf("%w: the summary of workflow %q has an undecodable time", store.ErrTampered, workflow)
	}
	s.Workflow, s.Head, s.Active = workflow, h.head(), at
	return s, true, nil
}
