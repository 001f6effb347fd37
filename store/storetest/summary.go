package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

// errEnough stops a walk of Summaries.
var errEnough = errors.New("enough")

// Summarize appends one record to workflow of tenant at time at with a summary naming
// the workflow and n (creating it at n 0).
func Summarize(t testing.TB, l store.Log, tenant, workflow string, n int, at time.Time) store.Head {
	t.Helper()
	h, err := l.Append(context.Background(), store.Append{Tenant: tenant, Workflow: workflow, Create: n == 0, Time: at,
		Records: []store.NewRecord{Rec("decision", n)}, Summary: fmt.Appendf(nil, `{"wf":%q,"n":%d}`, workflow, n)})
	require.NoError(t, err)
	return h
}

// SummaryWalk lists the workflows Summaries delivers for tenant after the cursor, at most
// limit of them (0: all).
func SummaryWalk(t testing.TB, l store.Log, tenant string, after *store.SummaryCursor, limit int) []store.Summary {
	t.Helper()
	var out []store.Summary
	err := l.Summaries(context.Background(), tenant, after, func(s store.Summary) error {
		out = append(out, s)
		if len(out) == limit {
			return errEnough
		}
		return nil
	})
	if limit > 0 && len(out) == limit {
		require.ErrorIs(t, err, errEnough, "the callback's error comes back as it is")
	} else {
		require.NoError(t, err)
	}
	return out
}

func workflowsOf(ss []store.Summary) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, s.Workflow)
	}
	return out
}

// testSummariesByActivity lists summaries newest first, ties by workflow id, pages them
// by cursor, moves a workflow to the top when it is appended to, and keeps tenants apart.
func testSummariesByActivity(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	// b and c tie at T0+2s; d is a nanosecond later; "a\x00" and "a" tie with e at T0+1s.
	Summarize(t, l, "acme", "b", 0, T0.Add(2*time.Second))
	Summarize(t, l, "acme", "c", 0, T0.Add(2*time.Second))
	Summarize(t, l, "acme", "d", 0, T0.Add(2*time.Second+time.Nanosecond))
	Summarize(t, l, "acme", "e", 0, T0.Add(time.Second))
	Summarize(t, l, "acme", "a\x00", 0, T0.Add(time.Second))
	Summarize(t, l, "acme", "a", 0, T0.Add(time.Second))
	Summarize(t, l, "acme", "old", 0, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC))
	Summarize(t, l, "other", "z", 0, T0.Add(time.Hour))

	all := SummaryWalk(t, l, "acme", nil, 0)
	assert.Equal(t, []string{"d", "b", "c", "a", "a\x00", "e", "old"}, workflowsOf(all))
	assert.Equal(t, T0.Add(2*time.Second+time.Nanosecond), all[0].Active)
	assert.Equal(t, `{"wf":"d","n":0}`, string(all[0].Data))
	assert.Equal(t, uint64(1), all[0].Head.Seq)
	assert.Equal(t, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), all[6].Active)

	// Pages of two, each from the last summary of the page before.
	var paged []string
	var after *store.SummaryCursor
	for range 10 {
		page := SummaryWalk(t, l, "acme", after, 2)
		paged = append(paged, workflowsOf(page)...)
		if len(page) < 2 {
			break
		}
		after = page[len(page)-1].Cursor()
	}
	assert.Equal(t, workflowsOf(all), paged)
	assert.Equal(t, []string{"a", "a\x00", "e", "old"}, workflowsOf(SummaryWalk(t, l, "acme", &store.SummaryCursor{Active: T0.Add(2 * time.Second), Workflow: "c"}, 0)))
	assert.Equal(t, []string{"c", "a", "a\x00", "e", "old"}, workflowsOf(SummaryWalk(t, l, "acme", &store.SummaryCursor{Active: T0.Add(2 * time.Second), Workflow: "bb"}, 0)),
		"a cursor need not name a workflow that is listed")

	// An append moves its workflow to the top, with the new summary, and its old entry goes.
	h := Summarize(t, l, "acme", "e", 1, T0.Add(time.Minute))
	all = SummaryWalk(t, l, "acme", nil, 0)
	assert.Equal(t, []string{"e", "d", "b", "c", "a", "a\x00", "old"}, workflowsOf(all))
	assert.Equal(t, `{"wf":"e","n":1}`, string(all[0].Data))
	assert.Equal(t, h, all[0].Head)
	// Two appends of the same time keep one entry.
	Summarize(t, l, "acme", "e", 2, T0.Add(time.Minute))
	assert.Equal(t, []string{"e", "d", "b", "c", "a", "a\x00", "old"}, workflowsOf(SummaryWalk(t, l, "acme", nil, 0)))

	// Tenants see their own only.
	assert.Equal(t, []string{"z"}, workflowsOf(SummaryWalk(t, l, "other", nil, 0)))
	assert.Empty(t, SummaryWalk(t, l, "nobody", nil, 0))
	require.NoError(t, l.Unsummarized(ctx, "acme", func(wf string, _ store.Head) error {
		t.Errorf("%q has a summary", wf)
		return nil
	}))
}

// unsummarized lists the workflows Unsummarized delivers for tenant, with their heads.
func unsummarized(t *testing.T, l store.Log, tenant string) map[string]store.Head {
	t.Helper()
	out := map[string]store.Head{}
	require.NoError(t, l.Unsummarized(context.Background(), tenant, func(wf string, h store.Head) error {
		out[wf] = h
		return nil
	}))
	return out
}

// testSummariesBackfilled appends without summaries, as an earlier version did: the
// workflows are listed by Unsummarized and not by Summaries until SetSummary, which
// writes only for the head it was given.
func testSummariesBackfilled(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	Summarize(t, l, "acme", "kept", 0, T0)
	plain := Create(t, l, "acme", "plain", 2)
	Summarize(t, l, "acme", "dropped", 0, T0)
	dropped, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "dropped", ExpectedVersion: 0, Records: []store.NewRecord{Rec("decision", 1)}, Time: T0.Add(time.Second)})
	require.NoError(t, err)
	Create(t, l, "other", "theirs", 1)

	assert.Equal(t, map[string]store.Head{"plain": plain, "dropped": dropped}, unsummarized(t, l, "acme"), "an append without a summary drops the one before")
	assert.Equal(t, []string{"kept"}, workflowsOf(SummaryWalk(t, l, "acme", nil, 0)))

	require.NoError(t, l.SetSummary(ctx, "acme", "plain", plain.Seq-1, T0, []byte(`{"stale":true}`)))
	assert.Contains(t, unsummarized(t, l, "acme"), "plain", "not written for a head that has moved on")
	require.NoError(t, l.SetSummary(ctx, "acme", "plain", plain.Seq, T0.Add(time.Hour), []byte(`{"wf":"plain"}`)))
	require.NoError(t, l.SetSummary(ctx, "acme", "dropped", dropped.Seq, T0.Add(time.Second), []byte(`{"wf":"dropped"}`)))
	assert.Empty(t, unsummarized(t, l, "acme"))
	all := SummaryWalk(t, l, "acme", nil, 0)
	assert.Equal(t, []string{"plain", "dropped", "kept"}, workflowsOf(all))
	assert.Equal(t, `{"wf":"plain"}`, string(all[0].Data))
	assert.Equal(t, plain, all[0].Head)
	assert.Equal(t, map[string]store.Head{"theirs": MustHead(t, l, "other", "theirs")}, unsummarized(t, l, "other"))

	// A summary given again replaces the one it had, at its new time.
	require.NoError(t, l.SetSummary(ctx, "acme", "kept", 1, T0.Add(2*time.Hour), []byte(`{"wf":"kept","again":true}`)))
	all = SummaryWalk(t, l, "acme", nil, 0)
	assert.Equal(t, []string{"kept", "plain", "dropped"}, workflowsOf(all))
	assert.Equal(t, `{"wf":"kept","again":true}`, string(all[0].Data))

	require.ErrorIs(t, l.SetSummary(ctx, "other", "plain", plain.Seq, T0, []byte(`{}`)), store.ErrNotFound, "another tenant's workflow")
	require.ErrorIs(t, l.SetSummary(ctx, "acme", "nope", 1, T0, []byte(`{}`)), store.ErrNotFound)
	require.ErrorIs(t, l.SetSummary(ctx, "acme", "plain", plain.Seq, T0, nil), store.ErrInvalid)
	require.ErrorIs(t, l.SetSummary(ctx, "acme", "plain", plain.Seq, T0, make([]byte, store.MaxSummaryLen+1)), store.ErrInvalid)
	_, err = l.Append(ctx, store.Append{Tenant: "acme", Workflow: "big", Create: true, Records: []store.NewRecord{Rec("decision", 0)}, Time: T0,
		Summary: make([]byte, store.MaxSummaryLen+1)})
	require.ErrorIs(t, err, store.ErrInvalid)
}

// MustHead reads the head of a workflow of tenant.
func MustHead(t testing.TB, l store.Log, tenant, workflow string) store.Head {
	t.Helper()
	_, h, err := l.State(context.Background(), tenant, workflow)
	require.NoError(t, err)
	return h
}

// testSummariesInAGroup appends to the same workflows concurrently: each ends with one
// entry, its last append's.
func testSummariesInAGroup(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	const workflows, appends = 4, 8
	for w := range workflows {
		Summarize(t, l, "acme", fmt.Sprintf("wf-%d", w), 0, T0)
	}
	errs := make(chan error, workflows*appends)
	for w := range workflows {
		for i := range appends {
			go func() {
				_, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: fmt.Sprintf("wf-%d", w), Time: T0.Add(time.Duration(1+i) * time.Second),
					Records: []store.NewRecord{Rec("decision", i)}, Summary: fmt.Appendf(nil, `{"i":%d}`, i)})
				errs <- err
			}()
		}
	}
	for range workflows * appends {
		require.NoError(t, <-errs)
	}
	all := SummaryWalk(t, l, "acme", nil, 0)
	require.Len(t, all, workflows, "one entry per workflow")
	for _, s := range all {
		assert.Equal(t, uint64(1+appends), s.Head.Seq)
	}
}

// testSummaryFollowsTheStandingRecord fills in the standing record of a head an earlier
// version wrote: the head Summaries delivers with the summary is the head as filled in.
func testSummaryFollowsTheStandingRecord(t *testing.T, bs []Backend) {
	eachDurableBackend(t, bs, func(t *testing.T, b Backend, l store.Log, where string) {
		ctx := context.Background()
		first := Summarize(t, l, "acme", "wf", 0, T0)
		l = tamperWith(t, b, l, where, func(tm Tamperer) {
			tm.SetHead("acme", "wf", store.Head{Seq: first.Seq, Hash: first.Hash, StandingUnknown: true})
		})
		h := Summarize(t, l, "acme", "wf", 1, T0.Add(time.Second))
		require.True(t, h.StandingUnknown)
		all := SummaryWalk(t, l, "acme", nil, 0)
		require.Len(t, all, 1)
		assert.Equal(t, h, all[0].Head)

		fill := h
		fill.StandingUnknown, fill.StandingSeq, fill.Standing = false, 1, "allow"
		require.NoError(t, l.SetStanding(ctx, "acme", "wf", fill))
		all = SummaryWalk(t, l, "acme", nil, 0)
		require.Len(t, all, 1)
		assert.Equal(t, fill, all[0].Head)
		assert.Equal(t, `{"wf":"wf","n":1}`, string(all[0].Data))
	})
}
