package console

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// contractValues reads the string values of the disjunction named def in a file of the
// core contract: the values the engine may write, which the pages must have words for.
func contractValues(t *testing.T, file, def string) []string {
	t.Helper()
	b, err := os.ReadFile("../../contracts/core/" + file)
	require.NoError(t, err)
	line := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(def) + `\s*:?\s*(.*)$`).FindSubmatch(b)
	require.NotNil(t, line, "%s in %s", def, file)
	var out []string
	for _, m := range regexp.MustCompile(`"([^"]+)"`).FindAllSubmatch(line[1], -1) {
		out = append(out, string(m[1]))
	}
	require.NotEmpty(t, out, "%s in %s", def, file)
	return out
}

// said checks that s is words for value: not empty, not the value itself, not an
// identifier, and begun as a sentence is.
func said(t *testing.T, what, value, s string) {
	t.Helper()
	assert.NotEmpty(t, s, "%s %s", what, value)
	if s == "" {
		return
	}
	assert.NotEqual(t, value, s, "%s %s is said as its value", what, value)
	assert.NotContains(t, s, "_", "%s %s: %q is an identifier", what, value, s)
	assert.True(t, unicode.IsUpper([]rune(s)[0]), "%s %s: %q", what, value, s)
}

// TestWordsForEveryValue: every outcome, request kind, artifact status and answer of the
// core contract, and every reason code of the bundle for every pack (and those the
// engine gives itself), has words of its own on the pages.
func TestWordsForEveryValue(t *testing.T) {
	for _, o := range contractValues(t, "decision.cue", "#DecisionOutcome") {
		_, ok := outcomeWords[engine.Outcome(o)]
		assert.True(t, ok, "no words for the outcome %s", o)
		said(t, "outcome", o, outcomeSaid(engine.Outcome(o)))
	}
	for _, k := range contractValues(t, "request.cue", "#Kind") {
		_, ok := kindWords[k]
		assert.True(t, ok, "no words for the kind %s", k)
		said(t, "kind", k, kindSaid(k))
	}
	for _, s := range contractValues(t, "artifact.cue", "#ArtifactStatus") {
		_, ok := artifactStatusWords[s]
		assert.True(t, ok, "no words for the artifact status %s", s)
		said(t, "artifact status", s, artifactStatusSaid(s))
	}
	for _, a := range contractValues(t, "request.cue", "decision!") {
		_, ok := answerWords[a]
		assert.True(t, ok, "no words for the answer %s", a)
		said(t, "answer", a, answerSaid(a))
	}

	e, err := engine.Open(context.Background(), engine.Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	c := New(e, Options{})
	codes := map[string]bool{}
	for _, r := range e.Decider().Reasons() {
		codes[r.Code] = true
	}
	require.Greater(t, len(codes), 100, "the bundle's reason codes")
	for _, code := range engineCodes {
		codes[code] = true
	}
	packs := []string{""}
	for _, p := range e.Decider().Packs() {
		packs = append(packs, p.Name)
	}
	for code := range codes {
		for _, pack := range packs {
			said(t, "reason of pack "+pack, code, c.reasonSaid(pack, engine.Reason{Code: code}))
		}
	}
	// The engine's own texts are reworded.
	for code, engineText := range map[string]string{"IDEMPOTENCY_KEY_REUSED": "Idempotency key reused", "STALE_STATE_VERSION": "Stale state version"} {
		got := c.reasonSaid("campaign", engine.Reason{Code: code, Title: engineText})
		assert.NotEqual(t, engineText, got)
		assert.False(t, strings.Contains(strings.ToLower(got), "idempotency"), got)
	}
	assert.Equal(t, "QA", statusSaid("QA"))
	assert.Equal(t, "SoA approval", statusSaid("SOA_APPROVAL"))
	assert.Equal(t, "Strategy approval", statusSaid("STRATEGY_APPROVAL"))
	// A reason the rewording does not touch keeps its rule's title.
	assert.Equal(t, "Self approval", c.reasonSaid("campaign", engine.Reason{Code: "SELF_APPROVAL", Title: "Self approval"}))
}
