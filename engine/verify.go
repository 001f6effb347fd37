package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"

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
//     tenant names a record of the workflow that answers another request.
//
// A state or key that disagrees with the chain would make the engine decide on facts
// nobody recorded, or answer a resent request with a decision nobody made. The fold uses
// this engine's pack contracts: verify a log with the bundle it was recorded with. An
// error means the check could not be made (the workflow does not exist, the storage
// failed). It is safe for concurrent use, also with writers.
func (e *Engine) Verify(ctx context.Context, tenant, workflow string) (store.VerifyReport, error) {
	v, err := e.verifyWorkflow(ctx, tenant, workflow)
	if err != nil || !v.rep.OK {
		return *v.rep, err
	}
	if err := e.verifyKeys(ctx, tenant, map[string]*verifiedWorkflow{workflow: v}, false); err != nil {
		return store.VerifyReport{}, err
	}
	return *v.rep, nil
}

// VerifyAll verifies every workflow and every audit chain of every tenant.
func (e *Engine) VerifyAll(ctx context.Context) ([]store.VerifyReport, error) {
	tenants, err := e.log.Tenants(ctx)
	if err != nil {
		return nil, err
	}
	var out []store.VerifyReport
	for _, t := range tenants {
		reps, err := e.VerifyTenant(ctx, t)
		if err != nil {
			return nil, err
		}
		out = append(out, reps...)
	}
	return out, nil
}

// VerifyTenant verifies every workflow of one tenant as Verify does, every idempotency
// key of the tenant (a key that names a workflow the tenant does not have is reported
// under that workflow's id), and the tenant's audit chain.
func (e *Engine) VerifyTenant(ctx context.Context, tenant string) ([]store.VerifyReport, error) {
	var wfs []string
	if err := e.log.Workflows(ctx, tenant, func(w string, _ store.Head) error {
		wfs = append(wfs, w)
		return nil
	}); err != nil {
		return nil, err
	}
	checked := map[string]*verifiedWorkflow{}
	for _, w := range wfs {
		v, err := e.verifyWorkflow(ctx, tenant, w)
		if err != nil {
			return nil, err
		}
		checked[w] = v
	}
	if err := e.verifyKeys(ctx, tenant, checked, true); err != nil {
		return nil, err
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
	rep, err := e.log.VerifyAudit(ctx, tenant)
	if err != nil {
		return nil, err
	}
	return append(reps, rep), nil
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

// verifyWorkflow checks a workflow's chain, then its snapshot and head against the fold
// of its records, and returns the requests its records answer.
func (e *Engine) verifyWorkflow(ctx context.Context, tenant, workflow string) (*verifiedWorkflow, error) {
	rep, err := e.log.Verify(ctx, tenant, workflow)
	v := &verifiedWorkflow{rep: &rep}
	if err != nil || !rep.OK {
		return v, err
	}
	v.answered = map[string]answeredRequest{}
	var twice error
	err = e.walkWorkflow(ctx, replayTarget{tenant, workflow}, func(at visit) error {
		v.last = at.rec.Seq
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
	}
	return v, nil
}

// recordedDigest is the digest of the request a record answers: the one its redaction
// kept, or the digest of the request as recorded.
func recordedDigest(ent recordedEntry) string {
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
func (e *Engine) verifyKeys(ctx context.Context, tenant string, checked map[string]*verifiedWorkflow, all bool) error {
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
	err := e.log.IdempotencyKeys(ctx, tenant, func(k store.Idempotency) error {
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
		if _, _, err := e.log.State(ctx, tenant, k.Workflow); err == nil {
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
