package console

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// entry is a recorded decision of kind and outcome by actor, with the request's extra
// fields.
func entry(seq uint64, actor, kind string, outcome engine.Outcome, codes []string, extra map[string]any) engine.Entry {
	typ, id, _ := strings.Cut(actor, ":")
	req := map[string]any{"kind": kind, "actor": map[string]any{"type": typ, "id": id}}
	for k, v := range extra {
		req[k] = v
	}
	b, _ := json.Marshal(req)
	d := &engine.Decision{DecisionID: fmt.Sprintf("d%d", seq), Kind: kind, Outcome: outcome, StatusBefore: "QA", StatusAfter: "QA"}
	for _, c := range codes {
		d.Reasons = append(d.Reasons, engine.Reason{Code: c})
	}
	return engine.Entry{Seq: seq, Request: b, Decision: d}
}

// TestTimelineFolds: runs of alike decisions fold into one line; a person's words, an
// artifact recorded, another actor, outcome or reason end a run.
func TestTimelineFolds(t *testing.T) {
	refused := func(seq uint64, codes ...string) engine.Entry {
		return entry(seq, "human:viewer", "cancel", engine.Block, codes, nil)
	}
	recorded := entry(9, "agent:copywriter", "handoff", engine.Allow, nil, nil)
	recorded.Decision.Events = []engine.Event{{Type: "artifact_recorded"}}
	recordedAgain := entry(10, "agent:copywriter", "handoff", engine.Allow, nil, nil)
	recordedAgain.Decision.Events = []engine.Event{{Type: "artifact_recorded"}}
	page := engine.HistoryPage{Last: 12, Entries: []engine.Entry{
		entry(1, "system:orchestrator", "start", engine.Allow, nil, nil),
		refused(2, "UNKNOWN_FIELD"), refused(3, "UNKNOWN_FIELD"), refused(4, "UNKNOWN_FIELD"),
		refused(5, "UNAUTHORIZED_SUBJECT"),
		entry(6, "human:maria", "approval", engine.Block, []string{"SELF_APPROVAL"}, map[string]any{"decision": "APPROVE", "comment": "<b>mine</b>"}),
		entry(7, "human:maria", "approval", engine.Block, []string{"SELF_APPROVAL"}, map[string]any{"decision": "APPROVE", "comment": "<b>mine</b>"}),
		entry(8, "human:maria", "resolution", engine.Allow, nil, map[string]any{"rationale": "both hold"}),
		recorded, recordedAgain,
		refused(11, "UNKNOWN_FIELD"), refused(12, "UNKNOWN_FIELD"),
	}}
	tl := newTimeline(page)
	var counts []int
	for _, l := range tl.Lines {
		counts = append(counts, l.Count)
		assert.Equal(t, l.Count > 1, l.Folded())
		if l.Folded() {
			require.Len(t, l.Run, l.Count)
			assert.Equal(t, l.Seq, l.Run[0].Seq)
			assert.Equal(t, l.Last.Seq, l.Run[l.Count-1].Seq)
		}
	}
	assert.Equal(t, []int{1, 3, 1, 1, 1, 1, 1, 1, 2}, counts)
	assert.Equal(t, "<b>mine</b>", tl.Lines[3].Comment, "a person's words, kept as they are for the page to escape")
	assert.Equal(t, "APPROVE", tl.Lines[3].Answer)
	assert.Equal(t, "human:maria", tl.Lines[3].Actor)
	assert.Equal(t, "both hold", tl.Lines[5].Comment, "a resolution's rationale")
	assert.Equal(t, uint64(0), tl.Older, "the page starts at the first decision")
	assert.False(t, tl.Newer)
	assert.Equal(t, uint64(12), tl.Total)

	// A page in the middle of a long history links to both sides.
	mid := newTimeline(engine.HistoryPage{Last: 500, Entries: []engine.Entry{refused(200), refused(201)}})
	assert.Equal(t, uint64(200), mid.Older)
	assert.True(t, mid.Newer)
	assert.Equal(t, uint64(202+timelinePage), mid.NewerBefore)
	// The page just before the latest links to the latest, without ?before=.
	last := newTimeline(engine.HistoryPage{Last: 500, Entries: []engine.Entry{refused(449), refused(450)}})
	assert.True(t, last.Newer)
	assert.Equal(t, uint64(0), last.NewerBefore)
}
