package console_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// gateReading is what a person reads at a pack's gate before deciding: a field of
// a version's content and words of the contract's description of it.
type gateReading struct {
	pack, scenario, stop string // the scenario played up to the step named stop ("" for all of it)
	id                   string // the workflow's id, when the scenario's start is named "start"
	tenant, token        string
	artifact             string // the artifact type whose version is decided on
	field                string // a text field of its content
	described, label     string // a field of its content and words of the contract's description of it
	decision             string // the button the person presses; "" where the workflow ends at the gate
	after                string // the status the decision leads to, when the scenario says
}

// TestConsoleContentAtEveryGate: at each pack's human gate the person reads the
// content of the version they decide on, on the page of the form, labelled by the
// contract's descriptions, and then decides; v1 is as readable as any later version.
func TestConsoleContentAtEveryGate(t *testing.T) {
	s := newSite(t)
	for _, g := range []gateReading{
		{pack: "campaign", scenario: "08-delivery-of-draft", stop: "strategy v1 approved", tenant: "acme", token: mariaToken,
			artifact: "STRATEGY_BRIEF", field: "core_proposition", described: "core_proposition", label: "the campaign promise", decision: "#approve", after: "PRODUCTION"},
		{pack: "campaign", scenario: "01-happy-path", stop: "final approval", id: "wf-final-approval", tenant: "acme", token: mariaToken,
			artifact: "COPY_PACKAGE", field: "notes", described: "cta", label: "the call to action used", decision: "#approve", after: "DELIVERY"},
		{pack: "video", scenario: "56-waits-for-the-client", tenant: "baimengke", token: chenToken,
			artifact: "CLIENT_CONFIRMATION", field: "summary", described: "summary", label: "what the client is asked to confirm", decision: "#approve", after: "COMPLETED"},
		// Support hands an escalated case to a person and ends: the specialist reads it,
		// and the host reports the handoff's outcome.
		{pack: "support", scenario: "20-unresolved-evidence-escalates", stop: "a person acknowledges the handoff", tenant: "northwind", token: samToken,
			artifact: "ESCALATION_RECORD", field: "summary", described: "reasons", label: "the reason codes that led to the escalation"},
		{pack: "assessment", scenario: "06-gates-revision-and-reject", stop: "decision for another stage", tenant: "acme", token: anaToken,
			artifact: "STATEMENT_OF_APPLICABILITY", field: "assessment_id", described: "assessment_id", label: "the assessment the output belongs to", decision: "#approve", after: "EVIDENCE"},
	} {
		s.run(t, g.pack+" "+g.artifact, func(t *testing.T) {
			f := s.packFlow(g.pack, g.scenario)
			wf := g.id
			if wf != "" {
				f.until(g.stop, withID(wf))
			} else {
				f.until(g.stop, nil)
				wf = f.workflowOfPack(g.tenant, g.pack)
			}
			st, err := s.e.State(context.Background(), g.tenant, wf)
			require.NoError(t, err)
			h := st.Artifacts[g.artifact]
			require.NotNil(t, h, "the workflow has a %s", g.artifact)
			want, _ := h.Versions[strconv.Itoa(h.Latest)].Content[g.field].(string)
			require.NotEmpty(t, want, "%s v%d has a text %s", g.artifact, h.Latest, g.field)

			s.signIn(g.token)
			s.follow(`#inbox tr[data-workflow="`+wf+`"] a`, "#reading")
			version := `#reading details.reading[data-type="` + g.artifact + `"][data-version="` + strconv.Itoa(h.Latest) + `"]`
			field := version + ` .content > [data-field="` + g.field + `"]`
			assert.Equal(t, want, s.text(field+` > :is(.text, .long)`), "the content is on the page of the form")
			assert.Contains(t, s.text(field+` > .label`), g.field, "the field is named")
			assert.Contains(t, s.text(version+` .content > [data-field="`+g.described+`"] > .label`), g.label, "the field is described as the contract does")
			assert.Contains(t, s.text(version+` .hash`), h.Versions[strconv.Itoa(h.Latest)].Ref.Hash, "the hash decided on is shown with the content")
			s.inert()

			// Its own page, one click away, shows it alike.
			s.follow(version+` summary a.version-link`, "article.version")
			assert.Equal(t, g.artifact+" v"+strconv.Itoa(h.Latest), s.text("main h1"))
			assert.Equal(t, want, s.text(`.content > [data-field="`+g.field+`"] > :is(.text, .long)`))
			s.follow("#back", "#reading")
			if g.decision == "" {
				assert.NotEmpty(t, s.text("#gate-note"), "the page says nothing sent from it changes the workflow")
				assert.Equal(t, float64(0), s.eval(`document.querySelectorAll('#gate form').length`), "no form is offered")
				return
			}

			// The form cites the versions the policy asks for, the one read among them.
			assert.Equal(t, true, s.eval(`document.querySelector('#approval-form input[name="artifact"][data-type="`+g.artifact+`"]').checked`))
			s.follow(g.decision, "#decision")
			assert.NotEqual(t, "block", s.eval(`document.querySelector('#decision').dataset.outcome`), s.text("#decision"))
			if g.after != "" {
				assert.Equal(t, g.after, s.text("#status-after"), s.text("#decision"))
			}
		})
	}
}

// workflowOfPack is the id of the flow's workflow of pack in tenant.
func (f *flow) workflowOfPack(tenant, pack string) string {
	list, err := f.s.e.ListWorkflows(context.Background(), tenant, engine.WorkflowFilter{})
	require.NoError(f.s.t, err)
	for _, w := range list {
		if w.Pack == pack {
			return w.WorkflowID
		}
	}
	f.s.t.Fatalf("no %s workflow in tenant %s", pack, tenant)
	return ""
}
