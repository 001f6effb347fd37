package console

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// A reason carries its rule's title; one recorded before titles were carried is titled
// by the rules of its decision's pack and of core that carry its code when they agree,
// and otherwise by its code in words: never by another pack's rule.
func TestReasonTitles(t *testing.T) {
	rules := []engine.ReasonInfo{
		{Package: "handoff.core", Code: "TENANT_MISMATCH", Title: "Tenant mismatch"},
		{Package: "handoff.core", Code: "TENANT_MISMATCH", Title: "Tenant mismatch"},
		{Package: "handoff.core", Code: "UNAUTHORIZED_SUBJECT", Title: "Person or host with an agent's id"},
		{Package: "handoff.campaign", Code: "UNAUTHORIZED_SUBJECT", Title: "Start by an agent"},
		{Package: "handoff.assessment", Code: "UNAUTHORIZED_SUBJECT", Title: "Failure reported by a person"},
		{Package: "handoff.assessment", Code: "OUT_OF_SEQUENCE", Title: "No assessment rule decides the request"},
		{Package: "handoff.campaign", Code: "OUT_OF_SEQUENCE", Title: "Request out of sequence"},
		{Package: "handoff.campaign", Code: "OUT_OF_SEQUENCE", Title: "No campaign rule decides the request"},
		{Package: "handoff.video", Code: "OUT_OF_SEQUENCE", Title: "Request out of sequence"},
		{Package: "handoff.support.delivery", Code: "DELIVERY_UNRECONCILED", Title: "Delivery still in flight"},
		{Package: "other.rules", Code: "TENANT_MISMATCH", Title: "A rule outside the packs"},
	}
	tt := newTitles(rules)
	for _, tc := range []struct {
		pack string
		r    engine.Reason
		want string
	}{
		{"campaign", engine.Reason{Code: "OUT_OF_SEQUENCE", Title: "No campaign rule decides the request"}, "No campaign rule decides the request"},
		{"campaign", engine.Reason{Code: "OUT_OF_SEQUENCE"}, "Out of sequence"},                                           // two campaign titles
		{"video", engine.Reason{Code: "OUT_OF_SEQUENCE"}, "Request out of sequence"},                                      // the video rule's own
		{"assessment", engine.Reason{Code: "OUT_OF_SEQUENCE"}, "No assessment rule decides the request"},                  // the assessment rule's own
		{"support", engine.Reason{Code: "OUT_OF_SEQUENCE"}, "Out of sequence"},                                            // no rule of support or core
		{"campaign", engine.Reason{Code: "UNAUTHORIZED_SUBJECT"}, "Unauthorized subject"},                                 // core and campaign disagree
		{"video", engine.Reason{Code: "UNAUTHORIZED_SUBJECT"}, "Person or host with an agent's id"},                       // core's alone
		{"", engine.Reason{Code: "UNAUTHORIZED_SUBJECT"}, "Person or host with an agent's id"},                            // routed to no pack: core's
		{"campaign", engine.Reason{Code: "TENANT_MISMATCH"}, "Tenant mismatch"},                                           // two core rules that agree
		{"support", engine.Reason{Code: "DELIVERY_UNRECONCILED"}, "Delivery still in flight"},                             // a package under the pack's
		{"campaign", engine.Reason{Code: "DELIVERY_UNRECONCILED"}, "Delivery unreconciled"},                               // support's, not campaign's
		{"campaign", engine.Reason{Code: "POLICY_ERROR", Title: ""}, "Policy error"},                                      // the engine's own: no rule
		{"assessment", engine.Reason{Code: "UNAUTHORIZED_SUBJECT", Title: "Start by an agent"}, "Start by an agent"},      // the reason's title wins
		{"campaign", engine.Reason{Code: "SOMETHING_NEW", Title: "A title the rule carries"}, "A title the rule carries"}, // even for a code not listed
		{"core", engine.Reason{Code: "OUT_OF_SEQUENCE"}, "Out of sequence"},                                               // "core" is no pack
		{"campaign", engine.Reason{Code: ""}, ""},                                                                         // nothing to title
		{"campaign", engine.Reason{Code: "CONTEXT_TOO_LARGE"}, "Context too large"},                                       // no rule at all
		{"campaign.x", engine.Reason{Code: "OUT_OF_SEQUENCE"}, "Out of sequence"},                                         // not a pack's name
	} {
		assert.Equal(t, tc.want, tt.of(tc.pack, tc.r), "%s %+v", tc.pack, tc.r)
	}
}

// In the shipped bundle, the title of every code for every pack is its code in words or
// a title of a rule of that pack or of core that carries it.
func TestReasonTitlesOfTheShippedBundle(t *testing.T) {
	e, err := engine.Open(context.Background(), engine.Options{Dir: t.TempDir(), LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	rules := e.Decider().Reasons()
	tt := newTitles(rules)
	packs := []string{""}
	for _, p := range e.Decider().Packs() {
		packs = append(packs, p.Name)
	}
	require.Len(t, packs, 5)
	for _, pack := range packs {
		for _, r := range rules {
			got := tt.of(pack, engine.Reason{Code: r.Code})
			if got == words(r.Code) {
				continue
			}
			var owners []string
			for _, o := range rules {
				if o.Code == r.Code && o.Title == got {
					owners = append(owners, o.Package)
				}
			}
			assert.Condition(t, func() bool {
				for _, o := range owners {
					if o == "handoff.core" || o == "handoff."+pack {
						return true
					}
				}
				return false
			}, "pack %q, %s: %q is the title of rules of %v only", pack, r.Code, got, owners)
		}
	}
	assert.Equal(t, "Out of sequence", tt.of("campaign", engine.Reason{Code: "OUT_OF_SEQUENCE"}))
	assert.Equal(t, "Unauthorized subject", tt.of("campaign", engine.Reason{Code: "UNAUTHORIZED_SUBJECT"}))
}
