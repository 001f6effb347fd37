package governance

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/internal/canonjson"
	"github.com/handoff-dev/handoff/store"
)

// Verify checks everything the decisions of one workflow of tenant are made from, and
// reports the first problem:
//   - the hash chain of its records and its head (store.Log.Verify);
//   - its state snapshot, which must equal the fold of its recorded decisions, and the
//     head's state version, which must equal the fold's;
//   - its idempotency keys: every recorded request_id has its key, bound to the record
//     of that request (its seq and hash) with that request's digest, and no key of the
//     tenant names a record of the workflow that answers another request, or one that is
//     not in the chain (store.Log.VerifyIndexes);
//   - the record index: every recorded decision id names its record, and no id names a
//     record that is not there or holds another id;
//   - the head's standing record, which must be the last decision that was not a block.
//
// A state or key that disagrees with the chain would make the engine decide on facts
// nobody recorded, or answer a resent request with a decision nobody made. The fold uses
// the ledger's pack contracts: verify a log with the bundle it was recorded with. An
// error means the check could not be made (the workflow does not exist, the storage
// failed). It is safe for concurrent use, also with writers.
func (l *Ledger) Verify(ctx context.Context, tenant, workflow string) (store.VerifyReport, error) {
	v, err := l.verifyWorkflow(ctx, tenant, workflow)
	if err != nil || !v.rep.OK {
		return *v.rep, err
	}
	if err := l.verifyKeys(ctx, tenant, map[string]*verifiedWorkflow{workflow: v}, false); err != nil {
		return store.VerifyReport{}, err
	}
	refs, err := l.log.VerifyIndexes(ctx, store.IndexCheck{Tenant: tenant, Workflow: workflow, Claims: recordClaims})
	if err != nil {
		return store.VerifyReport{}, err
	}
	for _, r := range refs {
		if r.Workflow == workflow {
			v.fail(r.BrokenSeq, "%s", r.Problem)
		}
	}
	return *v.rep, nil
}

// VerifyAll verifies every workflow and every audit chain of every tenant.
func (l *Ledger) VerifyAll(ctx context.Context) ([]store.VerifyReport, error) {
	tenants, err := l.log.Tenants(ctx)
	if err != nil {
		return nil, err
	}
	// The keys and ids of every tenant in one pass: the record index is the store's, not
	// a tenant's.
	all, err := l.log.VerifyIndexes(ctx, store.IndexCheck{All: true, Claims: recordClaims})
	if err != nil {
		return nil, err
	}
	refs := map[string][]store.VerifyReport{}
	for _, r := range all {
		refs[r.Tenant] = append(refs[r.Tenant], r)
	}
	var out []store.VerifyReport
	for _, t := range tenants {
		reps, err := l.verifyTenant(ctx, t, refs[t])
		if err != nil {
			return nil, err
		}
		delete(refs, t)
		out = append(out, reps...)
	}
	// Index entries too damaged to name their tenant.
	for _, t := range slices.Sorted(maps.Keys(refs)) {
		out = append(out, refs[t]...)
	}
	return out, nil
}

// VerifyTenant verifies every workflow of one tenant as Verify does, every idempotency
// key of the tenant (a key that names a workflow the tenant does not have is reported
// under that workflow's id), the record ids of its records, and the tenant's audit chain.
func (l *Ledger) VerifyTenant(ctx context.Context, tenant string) ([]store.VerifyReport, error) {
	refs, err := l.log.VerifyIndexes(ctx, store.IndexCheck{Tenant: tenant, Claims: recordClaims})
	if err != nil {
		return nil, err
	}
	return l.verifyTenant(ctx, tenant, refs)
}

// verifyTenant verifies a tenant's chains and keys, with refs the problems
// store.Log.VerifyIndexes found with its keys and record ids.
func (l *Ledger) verifyTenant(ctx context.Context, tenant string, refs []store.VerifyReport) ([]store.VerifyReport, error) {
	var wfs []string
	if err := l.log.Workflows(ctx, tenant, func(w string, _ store.Head) error {
		wfs = append(wfs, w)
		return nil
	}); err != nil {
		return nil, err
	}
	checked := map[string]*verifiedWorkflow{}
	for _, w := range wfs {
		v, err := l.verifyWorkflow(ctx, tenant, w)
		if err != nil {
			return nil, err
		}
		checked[w] = v
	}
	if err := l.verifyKeys(ctx, tenant, checked, true); err != nil {
		return nil, err
	}
	rep, err := l.log.VerifyAudit(ctx, tenant)
	if err != nil {
		return nil, err
	}
	audit := &verifiedWorkflow{rep: &rep}
	for _, r := range refs {
		w := checked[r.Workflow]
		switch {
		case r.Workflow == "" && strings.HasPrefix(r.Problem, "index:"):
			w = audit
		case r.Workflow == "":
			// A key that names no workflow: reported once, by verifyKeys or here.
			w = checked["\x00"+r.Problem]
			for _, v := range checked {
				if v.stray && v.rep.Problem == r.Problem {
					w = v
				}
			}
			if w == nil {
				w = &verifiedWorkflow{rep: &store.VerifyReport{Tenant: tenant, OK: true}, stray: true}
				checked["\x00"+r.Problem] = w
			}
		case w == nil:
			w = &verifiedWorkflow{rep: &store.VerifyReport{Tenant: tenant, Workflow: r.Workflow, OK: true}, stray: true}
			checked[r.Workflow] = w
		}
		w.fail(r.BrokenSeq, "%s", r.Problem)
	}
	var reps, strays []store.VerifyReport
	for _, w := range wfs {
		reps = append(reps, *checked[w].rep)
	}
	for _, v := range checked {
		if v.stray {
			strays = append(strays, *v.rep)
		}
	}
	sort.Slice(strays, func(i, j int) bool { return strays[i].Workflow < strays[j].Workflow })
	reps = append(reps, strays...)
	return append(reps, rep), nil
}

// recordClaims is what a log record says of itself: the request its decision answers,
// with the request's digest, and the decision id.
func recordClaims(payload []byte) store.Claims {
	if ev, ok := consolePayload(payload); ok {
		return store.Claims{ID: ev.ID} // a console event answers no request
	}
	ent, err := pipeline.DecodeRecordedEntry(payload)
	if err != nil {
		return store.Claims{}
	}
	d, err := pipeline.DecodeDecision(ent.Decision)
	if err != nil {
		return store.Claims{}
	}
	return store.Claims{Key: d.RequestID, Digest: recordedDigest(ent), ID: d.DecisionID}
}

// answeredRequest is a recorded request: the record that answers it and its digest.
type answeredRequest struct {
	seq    uint64
	hash   string
	digest string
}

// verifiedWorkflow is a workflow whose chain and fold were checked: its report, the
// requests its records answer and the last record walked (nil answered when the chain
// is broken). A stray one is named by a key only.
type verifiedWorkflow struct {
	rep      *store.VerifyReport
	answered map[string]answeredRequest
	last     uint64
	stray    bool
}

// fail records a problem in the report, unless it has one already.
func (w *verifiedWorkflow) fail(seq uint64, format string, args ...any) {
	if w.rep.OK {
		w.rep.OK, w.rep.BrokenSeq, w.rep.Problem = false, seq, fmt.Sprintf(format, args...)
	}
}

// verifyWorkflow checks a workflow's chain, then its snapshot and head against the fold
// of its records, and returns the requests its records answer.
func (l *Ledger) verifyWorkflow(ctx context.Context, tenant, workflow string) (*verifiedWorkflow, error) {
	rep, err := l.log.Verify(ctx, tenant, workflow)
	v := &verifiedWorkflow{rep: &rep}
	if err != nil || !rep.OK {
		return v, err
	}
	v.answered = map[string]answeredRequest{}
	var twice error
	var unindexed *indexProblem
	target := replayTarget{tenant, workflow}
	err = l.walkWorkflow(ctx, target, func(at visit) error {
		v.last = at.rec.Seq
		if unindexed == nil {
			var err error
			if unindexed, err = l.checkIndexed(ctx, target, at.rec, at.recorded.DecisionID); err != nil {
				return err
			}
		}
		id := at.recorded.RequestID
		if id == "" {
			return nil
		}
		if prev, ok := v.answered[id]; ok && twice == nil {
			twice = fmt.Errorf("request_id %s is answered twice, by records %d and %d", id, prev.seq, at.rec.Seq)
		}
		v.answered[id] = answeredRequest{seq: at.rec.Seq, hash: at.rec.Hash, digest: recordedDigest(at.ent)}
		return nil
	})
	switch {
	case errors.Is(err, ErrReplayDiverged):
		rep.OK, rep.Problem = false, "state: "+err.Error()
	case err != nil:
		return v, err
	case twice != nil:
		rep.OK, rep.Problem = false, "idempotency: "+twice.Error()
	case unindexed != nil:
		rep.OK, rep.BrokenSeq, rep.Problem = false, unindexed.seq, "index: "+unindexed.problem
	}
	return v, nil
}

// indexProblem is a recorded decision the record index does not name as it should.
type indexProblem struct {
	seq     uint64
	problem string
}

// checkIndexed checks that the record index names the record of a recorded decision:
// a decision Explain would not find, or would find elsewhere, is reported.
func (l *Ledger) checkIndexed(ctx context.Context, t replayTarget, rec store.Record, id string) (*indexProblem, error) {
	if canary.SkipReferenceCheck || id == "" {
		return nil, nil
	}
	loc, err := l.log.Find(ctx, id)
	want := store.Location{Tenant: t.tenant, Workflow: t.workflow, Seq: rec.Seq, Hash: rec.Hash}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return &indexProblem{rec.Seq, fmt.Sprintf("decision %s of record %d is not in the record index", id, rec.Seq)}, nil
	case errors.Is(err, store.ErrTampered):
		return &indexProblem{rec.Seq, fmt.Sprintf("decision %s of record %d: %v", id, rec.Seq, err)}, nil
	case err != nil:
		return nil, err
	case loc != want:
		return &indexProblem{rec.Seq, fmt.Sprintf("the record index names record %d of workflow %q of tenant %q for decision %s of record %d", loc.Seq, loc.Workflow, loc.Tenant, id, rec.Seq)}, nil
	}
	return nil, nil
}

// recordedDigest is the digest of the request a record answers: the one its redaction
// kept, or the digest of the request as recorded.
func recordedDigest(ent pipeline.RecordedEntry) string {
	if ent.Redaction != nil {
		return ent.Redaction.RequestDigest
	}
	if ent.Request == nil {
		return ""
	}
	d, _ := canonjson.Hash(ent.Request)
	return d
}

// verifyKeys checks the tenant's idempotency keys against the checked workflows, after
// their walk: a key is written with its record, so every walked record's key is there.
// Keys bound past the last record walked belong to requests recorded since, and are left
// alone. With all, a key that names an unchecked workflow is reported as a stray.
func (l *Ledger) verifyKeys(ctx context.Context, tenant string, checked map[string]*verifiedWorkflow, all bool) error {
	if canary.TrustIdempotencyEntry {
		return nil
	}
	fail := func(w *verifiedWorkflow, seq uint64, format string, args ...any) {
		if w.rep.OK {
			w.rep.OK, w.rep.BrokenSeq, w.rep.Problem = false, seq, "idempotency: "+fmt.Sprintf(format, args...)
		}
	}
	keyed := map[string]map[string]bool{} // workflow -> request ids with a key bound to it
	var strays []store.Idempotency        // keys naming a workflow not checked
	err := l.log.IdempotencyKeys(ctx, tenant, func(k store.Idempotency) error {
		w, ok := checked[k.Workflow]
		if !ok {
			if all {
				strays = append(strays, k)
			}
			return nil
		}
		if keyed[k.Workflow] == nil {
			keyed[k.Workflow] = map[string]bool{}
		}
		if w.answered == nil || w.stray {
			return nil
		}
		a, answered := w.answered[k.Key]
		switch {
		case k.Unbound:
			fail(w, a.seq, "key %q was written by an earlier store format and is bound to no record: the answer it holds is no record's decision", k.Key)
		case !answered && k.Seq > w.last:
			// Recorded after the walk.
		case !answered:
			fail(w, k.Seq, "key %q is bound to record %d, which answers another request", k.Key, k.Seq)
		case k.Seq != a.seq || k.Hash != a.hash:
			fail(w, a.seq, "key %q is bound to record %d (%s), but record %d (%s) answers it", k.Key, k.Seq, k.Hash, a.seq, a.hash)
		case k.Digest != a.digest:
			fail(w, a.seq, "key %q holds digest %s, but record %d answers a request with digest %s", k.Key, k.Digest, a.seq, a.digest)
		}
		keyed[k.Workflow][k.Key] = true
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range strays {
		if k.Workflow == "" {
			w := &verifiedWorkflow{rep: &store.VerifyReport{Tenant: tenant, Workflow: "", OK: true}, stray: true}
			checked["\x00undecodable:"+k.Key] = w
			fail(w, 0, "key %q is undecodable", k.Key)
			continue
		}
		// A workflow created since the listing is not a stray.
		if _, _, err := l.log.State(ctx, tenant, k.Workflow); err == nil {
			continue
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		w := checked[k.Workflow]
		if w == nil {
			w = &verifiedWorkflow{rep: &store.VerifyReport{Tenant: tenant, Workflow: k.Workflow, OK: true}, stray: true}
			checked[k.Workflow] = w
		}
		fail(w, 0, "key %q names workflow %q, which tenant %s does not have", k.Key, k.Workflow, tenant)
	}
	for wf, w := range checked {
		if w.stray || w.answered == nil {
			continue
		}
		var missing []string
		for id := range w.answered {
			if !keyed[wf][id] {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			sort.Slice(missing, func(i, j int) bool { return w.answered[missing[i]].seq < w.answered[missing[j]].seq })
			id := missing[0]
			fail(w, w.answered[id].seq, "request_id %s (record %d) has no idempotency key: the same request would be decided and recorded again", id, w.answered[id].seq)
		}
	}
	return nil
}
