package console

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

// forms are the forms the signed-in person may send at a workflow's gate, each with an
// idempotency key of its own: a form sent twice is one request, decided once.
type forms struct {
	Version   uint64 // the state version the page was made from: expected_version
	CreatedAt string // when the page was made: the requests' created_at, the same however often a form is sent
	Approval  *approvalForm
	Conflicts []conflictForm
}

// approvalForm is APPROVE / REQUEST_REVISION / REJECT on artifact versions or a stage.
type approvalForm struct {
	RequestID string
	Stage     string // the status, when a role approves it as a stage
	Artifacts []refChoice
	Decisions []string // the decisions the policy takes now (engine.Waiting)
}

// Allows says whether the policy takes decision d now: its button is shown.
func (a *approvalForm) Allows(d string) bool { return slices.Contains(a.Decisions, d) }

// refChoice is one artifact version the person may cite, bound to its hash.
type refChoice struct {
	Ref       engine.ArtifactRef
	Status    string
	Producer  string
	Checked   bool   // under review: the versions the gate is about
	Value     string // the ref as the form sends it
	Revisable bool   // an agent of the pack produced it: it can go back to them
}

// conflictForm resolves one open conflict.
type conflictForm struct {
	RequestID string
	Conflict  *engine.Conflict
	Sides     []refChoice
}

// formsFor builds the forms of the roles acting at p's gate.
func (c *Console) formsFor(p *pack, st *engine.State, acting []string) *forms {
	f := &forms{Version: st.StateVersion, CreatedAt: c.opts.Clock().UTC().Format(time.RFC3339)}
	var approves []string
	resolves := false
	for _, name := range acting {
		approves = append(approves, p.roles[name].Approves...)
		resolves = resolves || p.roles[name].ResolvesConflicts
	}
	if len(approves) > 0 {
		af := &approvalForm{RequestID: newRequestID()}
		if slices.Contains(approves, st.Status) {
			af.Stage = st.Status
		}
		for _, typ := range slices.Sorted(maps.Keys(st.Artifacts)) {
			h := st.Artifacts[typ]
			av := h.Versions[strconv.Itoa(h.Latest)]
			if av == nil || !slices.Contains(approves, typ) {
				continue
			}
			ch := choice(av.Ref, av.Status, av.Producer, av.Status == "under_review" || av.Status == "draft")
			_, ch.Revisable = p.agents[av.Producer]
			af.Artifacts = append(af.Artifacts, ch)
		}
		// The stage, the versions and the decisions are those of the approval the
		// policy takes now (engine.Waiting): none, no form.
		if step := approvalStep(p, st, acting); step != nil {
			af.Stage, af.Decisions = step.Stage, step.Answers
			for i := range af.Artifacts {
				af.Artifacts[i].Checked = slices.ContainsFunc(step.Cite, func(c engine.Citation) bool {
					return c.Ref != nil && *c.Ref == af.Artifacts[i].Ref
				})
			}
			f.Approval = af
		}
	}
	if resolves {
		ids := make([]string, 0, len(st.Conflicts))
		for id, cf := range st.Conflicts {
			if cf.Status == "open" {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		for _, id := range ids {
			cf := st.Conflicts[id]
			form := conflictForm{RequestID: newRequestID(), Conflict: cf}
			for _, ref := range cf.Artifacts {
				form.Sides = append(form.Sides, choice(ref, "", producerOf(st, ref), false))
			}
			f.Conflicts = append(f.Conflicts, form)
		}
	}
	if f.Approval == nil && len(f.Conflicts) == 0 {
		return nil
	}
	return f
}

// approvalStep is the approval one of the acting roles may send now, as engine.Waiting
// says: nil when the policy takes none.
func approvalStep(p *pack, st *engine.State, acting []string) *engine.Step {
	w, err := p.waiting(st)
	if err != nil {
		return nil
	}
	for _, party := range w.Parties {
		if party.Type != "human" || !slices.Contains(acting, party.ID) {
			continue
		}
		for i, s := range party.Requests {
			if s.Kind == "approval" && s.NotBefore == "" {
				return &party.Requests[i]
			}
		}
	}
	return nil
}

// choice is a ref offered on a form; its value carries the exact version and hash.
func choice(ref engine.ArtifactRef, status, producer string, checked bool) refChoice {
	b, _ := json.Marshal(ref)
	return refChoice{Ref: ref, Status: status, Producer: producer, Checked: checked, Value: string(b)}
}

func producerOf(st *engine.State, ref engine.ArtifactRef) string {
	if h := st.Artifacts[ref.Type]; h != nil {
		if av := h.Versions[strconv.Itoa(ref.Version)]; av != nil {
			return av.Producer
		}
	}
	return ""
}

// newRequestID is a fresh idempotency key for one form.
func newRequestID() string { return "console-" + uuid.Must(uuid.NewV7()).String() }

// coreStartFields are the fields of the core start request; any other top-level field of
// a workflow's start is the pack's scope (the assessment pack's assessment_id), which its
// every request repeats.
var coreStartFields = map[string]bool{"request_id": true, "kind": true, "tenant_id": true, "organization_id": true,
	"workflow_id": true, "trace_id": true, "actor": true, "expected_version": true, "created_at": true,
	"pack": true, "subject_id": true, "brief": true}

// scope reads the pack's scope fields from the workflow's start request, and its
// trace_id: a person's action goes on the workflow's trace.
func (c *Console) scope(ctx context.Context, tenant, workflow string) (map[string]any, error) {
	var start json.RawMessage
	errFound := errors.New("found")
	err := c.e.History(ctx, tenant, workflow, func(en engine.Entry) error {
		start = en.Request
		return errFound
	})
	if err != nil && !errors.Is(err, errFound) {
		return nil, err
	}
	var req map[string]any
	if json.Unmarshal(start, &req) != nil {
		return nil, nil
	}
	out := map[string]any{}
	for k, v := range req {
		if _, isString := v.(string); isString && (!coreStartFields[k] || k == "trace_id") {
			out[k] = v
		}
	}
	return out, nil
}

// envelope is what every request of the console carries: the signed-in person as the
// actor, their tenant, the state version the form was made from, the time it is sent,
// and the pack's scope fields of the workflow's start.
func (c *Console) envelope(r *http.Request, ss *session, st *engine.State, kind, requestID string, version uint64) (map[string]any, error) {
	createdAt, err := time.Parse(time.RFC3339, r.PostFormValue("created_at"))
	if err != nil {
		return nil, errBadForm
	}
	req, err := c.scope(r.Context(), ss.person.Tenant, st.WorkflowID)
	if err != nil {
		return nil, err
	}
	if req == nil {
		req = map[string]any{}
	}
	if _, ok := req["trace_id"]; !ok {
		req["trace_id"] = requestID
	}
	maps.Copy(req, map[string]any{
		"request_id":       requestID,
		"kind":             kind,
		"tenant_id":        ss.person.Tenant,
		"organization_id":  st.OrganizationID,
		"workflow_id":      st.WorkflowID,
		"actor":            map[string]any{"type": "human", "id": ss.person.ID, "roles": ss.person.Roles},
		"expected_version": version,
		"created_at":       createdAt.UTC().Format(time.RFC3339),
	})
	return req, nil
}

// formError is what is wrong with a form's fields.
type formError string

func (e formError) Error() string { return string(e) }

// errBadForm is a form that does not say when its page was made.
var errBadForm = formError("the form does not say when its page was made: reload the page")

// formRefs reads the refs a form sent: each is the JSON the page rendered, so the
// versions and hashes are those the person saw.
func formRefs(values []string) ([]engine.ArtifactRef, error) {
	refs := make([]engine.ArtifactRef, 0, len(values))
	for _, v := range values {
		var ref engine.ArtifactRef
		dec := json.NewDecoder(strings.NewReader(v))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ref); err != nil {
			return nil, formError("an artifact of the form is not one the page offered")
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

func (c *Console) approve(w http.ResponseWriter, r *http.Request, ss *session) {
	refs, err := formRefs(r.PostForm["artifact"])
	if err != nil {
		c.fail(w, r, ss, http.StatusBadRequest, err.Error())
		return
	}
	c.send(w, r, ss, "approval", func(req map[string]any) error {
		req["decision"] = r.PostFormValue("decision")
		req["artifacts"] = refs
		req["revise"] = append([]string{}, r.PostForm["revise"]...)
		if stage := r.PostFormValue("stage"); stage != "" {
			req["stage"] = stage
		}
		if comment := strings.TrimSpace(r.PostFormValue("comment")); comment != "" {
			req["comment"] = comment
		}
		return nil
	})
}

func (c *Console) resolve(w http.ResponseWriter, r *http.Request, ss *session) {
	c.send(w, r, ss, "resolution", func(req map[string]any) error {
		req["conflict_id"] = r.PostFormValue("conflict_id")
		req["rationale"] = strings.TrimSpace(r.PostFormValue("rationale"))
		if chosen := r.PostFormValue("chosen"); chosen != "" && chosen != "none" {
			refs, err := formRefs([]string{chosen})
			if err != nil {
				return err
			}
			req["chosen"] = refs[0]
		}
		return nil
	})
}

// send makes the request of kind a form posts: the envelope, then the body its kind's
// form fills in (an error is the form's, answered 400); then the engine decides it.
func (c *Console) send(w http.ResponseWriter, r *http.Request, ss *session, kind string, body func(req map[string]any) error) {
	st, ok := c.stateFor(w, r, ss)
	if !ok {
		return
	}
	version, err := strconv.ParseUint(r.PostFormValue("version"), 10, 64)
	if err != nil {
		c.fail(w, r, ss, http.StatusBadRequest, "The form does not say which state of the workflow it was made from.")
		return
	}
	if version < st.StateVersion && c.answered(w, r, ss, st, version) {
		return
	}
	req, err := c.envelope(r, ss, st, kind, r.PostFormValue("request_id"), version)
	if err == nil {
		err = body(req)
	}
	var fe formError
	switch {
	case errors.As(err, &fe):
		c.fail(w, r, ss, http.StatusBadRequest, err.Error())
	case err != nil:
		c.storeError(w, r, ss, err)
	default:
		c.submit(w, r, ss, st, req)
	}
}

// stateFor reads the workflow a form posts to, in the person's tenant.
func (c *Console) stateFor(w http.ResponseWriter, r *http.Request, ss *session) (*engine.State, bool) {
	st, err := c.e.State(r.Context(), ss.person.Tenant, r.PathValue("workflow"))
	if err != nil {
		c.storeError(w, r, ss, err)
		return nil, false
	}
	return st, true
}

// submit has the engine decide req as the signed-in person and shows the decision.
// The engine checks the request against the person (tenant, actor, roles): the form
// cannot act for anyone else.
func (c *Console) submit(w http.ResponseWriter, r *http.Request, ss *session, st *engine.State, req map[string]any) {
	body, err := json.Marshal(req)
	if err != nil {
		c.fail(w, r, ss, http.StatusInternalServerError, "The request could not be made.")
		return
	}
	p := ss.person
	d, err := c.e.SubmitFrom(r.Context(), body, engine.Principal{Tenant: p.Tenant, Type: "human", ID: p.ID, Roles: p.Roles})
	if err != nil {
		c.decideError(w, r, ss, err)
		return
	}
	if d.Recorded {
		c.seeDecided(w, r, st.WorkflowID, d.DecisionID, d.Resent())
		return
	}
	status := http.StatusOK
	if d.Outcome == engine.Block {
		status = http.StatusConflict
	}
	c.render(w, r, status, "decision.html", c.base(ss, map[string]any{"D": d, "Workflow": st.WorkflowID}))
}

// decidedCookie changes with every decision a person makes. Chromium keeps a page
// served no-store for Back only while the site's cookies stay as they were: a page
// with a form the decision answered is made again on Back, and says so, rather than
// shown as it was with its form still live.
const decidedCookie = "handoff_decided"

// seeDecided answers a form the engine decided with a redirect to the page of its
// decision (post/redirect/get): reloading that page sends nothing again, and Back
// leads to the workflow as it is now.
func (c *Console) seeDecided(w http.ResponseWriter, r *http.Request, workflow, id string, again bool) {
	setCookie(w, r, decidedCookie, randomToken(), 600)
	u := "/console/workflows/" + url.PathEscape(workflow) + "/decided/" + url.PathEscape(id)
	if again {
		u += "?again=1"
	}
	http.Redirect(w, r, u, http.StatusSeeOther)
}

// answered answers a form made at a state version the workflow has since moved past,
// without putting it to the engine: when the decision that moved it on is this form's
// own (sent twice, or again after Back), its page; else a page that says the gate was
// already decided, by whom, when and how (or, when no person moved it on, that the
// workflow did). It returns false when no decision went past the version: the engine
// then decides the form, and refuses it.
func (c *Console) answered(w http.ResponseWriter, r *http.Request, ss *session, st *engine.State, version uint64) bool {
	en, found, err := c.e.DecisionPast(r.Context(), ss.person.Tenant, st.WorkflowID, version)
	if err != nil {
		c.storeError(w, r, ss, err)
		return true
	}
	if !found {
		return false
	}
	if en.Decision.RequestID == r.PostFormValue("request_id") {
		c.seeDecided(w, r, st.WorkflowID, en.Decision.DecisionID, true)
		return true
	}
	byPerson := en.Decision.Kind == "approval" || en.Decision.Kind == "resolution"
	c.render(w, r, http.StatusConflict, "decision.html", c.base(ss, map[string]any{
		"D": en.Decision, "Step": newStep(en), "Workflow": st.WorkflowID, "Already": true, "Moved": !byPerson, "FormVersion": version}))
	return true
}

// decided shows a recorded decision of a workflow of the person's tenant, as the page
// a form leads to once the engine decided it.
func (c *Console) decided(w http.ResponseWriter, r *http.Request, ss *session) {
	en, err := c.e.Decision(r.Context(), r.PathValue("id"))
	if err == nil && (en.Decision == nil || en.Decision.TenantID != ss.person.Tenant || en.Decision.WorkflowID != r.PathValue("workflow")) {
		err = engine.ErrDecisionNotFound
	}
	if err != nil {
		c.storeError(w, r, ss, err)
		return
	}
	c.render(w, r, http.StatusOK, "decision.html", c.base(ss, map[string]any{
		"D": en.Decision, "Step": newStep(en), "Workflow": en.Decision.WorkflowID, "Again": r.URL.Query().Get("again") == "1"}))
}

// decideError answers a form no decision could be made for. The page says whether
// sending it again can help (store.Retryable) and never quotes the error, whose detail
// (a socket address, a database message) goes to the log.
func (c *Console) decideError(w http.ResponseWriter, r *http.Request, ss *session, err error) {
	c.opts.Logger.LogAttrs(r.Context(), slog.LevelError, "console decision", slog.String("error", err.Error()))
	switch {
	case store.Retryable(err):
		c.fail(w, r, ss, http.StatusServiceUnavailable, "No decision could be made: the store's database cannot be reached or is busy. Nothing was recorded; send the form again in a moment.")
	case errors.Is(err, store.ErrReadOnly):
		c.fail(w, r, ss, http.StatusServiceUnavailable, "No decision could be made: the store takes no writes now. Nothing was recorded; sending the form again will not help until an operator points the server at a store that does.")
	default:
		c.fail(w, r, ss, http.StatusInternalServerError, "No decision could be made, and nothing was recorded. Sending the form again will not help: an operator has the cause in the server's log.")
	}
}
