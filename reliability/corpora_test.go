package reliability

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

// The labelled corpora (testdata/CORPORA.md) measure the engine's text scanning end to
// end: each line goes into a real request of its domain's pack, decided by an engine on
// a Badger store. Lines whose number is odd were the ones looked at while the patterns
// were written; the even ones were held out (for secrets, until a last round): both
// halves are reported (RELIABILITY.md says what each figure means).

// corpusFlows are, per domain, the shipped scenario whose first handoff carries a line.
var corpusFlows = map[string]string{
	"campaign":   "campaign/01-happy-path",
	"assessment": "assessment/eval-1-full-synthetic-pipeline",
	"support":    "support/00-full-happy-path",
	"video":      "video/01-happy-path",
}

var corpusLangs = []string{"en", "pt", "zh"}

// secretLine is one line of testdata/secrets.jsonl.
type secretLine struct {
	ID      string            `json:"id"`
	Lang    string            `json:"lang"`
	Label   string            `json:"label"`
	Form    string            `json:"form"`
	Domain  string            `json:"domain"`
	Fields  map[string]string `json:"fields"`
	Secrets []string          `json:"secrets"`
}

// injectionLine is one line of testdata/injection.jsonl.
type injectionLine struct {
	ID     string `json:"id"`
	Lang   string `json:"lang"`
	Label  string `json:"label"`
	Domain string `json:"domain"`
	Text   string `json:"text"`
}

func readLines[T any](t *testing.T, name string) []T {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	require.NoError(t, err)
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var v T
		require.NoError(t, json.Unmarshal(sc.Bytes(), &v), "%s: %s", name, sc.Text())
		out = append(out, v)
	}
	require.NoError(t, sc.Err())
	return out
}

// heldOut says a line was not looked at while the patterns were written: its number is
// even.
func heldOut(id string) bool {
	n, err := strconv.Atoi(id[strings.LastIndexByte(id, '-')+1:])
	return err == nil && n%2 == 0
}

// corpusWorkflow is a started workflow of a domain's pack and its first handoff, the
// request each line is put into.
type corpusWorkflow struct {
	flow              *flow
	tenant, workflow  string
	start, handoff    map[string]any
	startAt, handoffI int
}

// startCorpusWorkflows starts one workflow per domain on eng.
func startCorpusWorkflows(t *testing.T, eng *engine.Engine, prefix string) map[string]*corpusWorkflow {
	t.Helper()
	ctx := context.Background()
	out := map[string]*corpusWorkflow{}
	for domain, name := range corpusFlows {
		f := loadFlow(t, name)
		cw := &corpusWorkflow{flow: f, tenant: prefix + "-" + domain, workflow: "wf-" + prefix + "-" + domain, handoffI: 1}
		cw.start = decodeMap(t, f.mustStep(t, eng, 0, cw.tenant, cw.workflow, 0))
		d, err := submitAtStep(ctx, eng, f, 0, f.mustStep(t, eng, 0, cw.tenant, cw.workflow, 0))
		require.NoError(t, err)
		require.Equal(t, engine.Allow, d.Outcome, "%s start: %v", domain, d.Codes())
		cw.handoff = decodeMap(t, f.mustStep(t, eng, 1, cw.tenant, cw.workflow, d.StateVersion))
		out[domain] = cw
	}
	return out
}

// rate is a count of hits out of a total.
type rate struct{ hit, total int }

func (r rate) String() string {
	if r.total == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", r.hit, r.total, 100*float64(r.hit)/float64(r.total))
}

func (r rate) fraction() float64 {
	if r.total == 0 {
		return 1
	}
	return float64(r.hit) / float64(r.total)
}

// corpusReport writes a Markdown table to the file HANDOFF_CORPUS_REPORT names (for
// RELIABILITY.md), and always to the test log.
func corpusReport(t *testing.T, title string, header []string, rows [][]string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n| %s |\n|%s\n", title, strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s |\n", strings.Join(r, " | "))
	}
	t.Log("\n" + b.String())
	if p := os.Getenv("HANDOFF_CORPUS_REPORT"); p != "" {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		require.NoError(t, err)
		_, err = f.WriteString(b.String() + "\n")
		require.NoError(t, errorsJoin(err, f.Close()))
	}
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// TestSecretCorpus puts each line of testdata/secrets.jsonl into the content of its
// domain's first handoff, submits it, and then looks for every listed secret in what
// the engine keeps and shows (the logs, audit streams, states, the decision-log export
// and the store files). Every secret must be refused with FORBIDDEN_CONTENT and never
// stored; an ordinary line refused with FORBIDDEN_CONTENT is a false positive.
func TestSecretCorpus(t *testing.T) {
	ctx := context.Background()
	lines := readLines[secretLine](t, "secrets.jsonl")
	require.GreaterOrEqual(t, len(lines), 400)
	// The secret lines go to a store of their own: an ordinary line, recorded whole, may
	// share a word with a secret (a brand name used as a password).
	eng, dir := openDisk(t)
	wfs := startCorpusWorkflows(t, eng, "sec")
	other, _ := openDisk(t)
	otherWfs := startCorpusWorkflows(t, other, "sec")

	detected := map[string]bool{}
	for _, l := range lines {
		e, cw := eng, wfs[l.Domain]
		if l.Label == "ordinary" {
			e, cw = other, otherWfs[l.Domain]
		}
		require.NotNil(t, cw, "%s: domain %q", l.ID, l.Domain)
		req := cloneJSON(cw.handoff).(map[string]any)
		req["request_id"] = fmt.Sprintf("%v.%s", req["request_id"], l.ID)
		content := req["output"].(map[string]any)["content"].(map[string]any)
		for k, v := range l.Fields {
			content[k] = v
		}
		body, err := json.Marshal(req)
		require.NoError(t, err)
		d, err := submitAtStep(ctx, e, cw.flow, cw.handoffI, body)
		require.NoError(t, err, l.ID)
		detected[l.ID] = slices.Contains(d.Codes(), "FORBIDDEN_CONTENT")
		if detected[l.ID] {
			assert.Equal(t, engine.Block, d.Outcome, l.ID)
		}
	}

	var shown bytes.Buffer
	tenants, err := eng.Tenants(ctx)
	require.NoError(t, err)
	for _, tenant := range tenants {
		require.NoError(t, eng.Workflows(ctx, tenant, func(wf string, _ store.Head) error {
			return eng.History(ctx, tenant, wf, func(e engine.Entry) error { return writeJSON(&shown, e) })
		}))
		require.NoError(t, eng.Audit(ctx, tenant, func(e engine.Entry) error { return writeJSON(&shown, e) }))
	}
	require.NoError(t, eng.DecisionLog(ctx, engine.DecisionLogOptions{}, func(ev engine.DecisionLogEvent) error { return writeJSON(&shown, ev) }))
	open := storeFiles(t, dir)
	require.NoError(t, eng.Close())
	closed := storeFiles(t, dir)
	// A secret is stored by its line when the store holds it and no other secret line
	// that was missed (and so recorded whole) holds it too.
	// A secret of digits only or of fewer than six characters (a PIN) is looked for in
	// what the engine shows only: the same digits occur by chance among the store files'
	// binary bytes.
	// The ids the engine makes (UUIDv7) are taken out of what it shows: a group of four
	// of their hex digits, between dashes, is a four-digit PIN one time in 4 096.
	shownText := uuidPattern.ReplaceAll(shown.Bytes(), []byte("<uuid>"))
	stored := func(l secretLine, s string) bool {
		distinctive := len(s) >= 6 && strings.Trim(s, "0123456789") != ""
		inFiles := distinctive && (containsWord(open, s) || containsWord(closed, s))
		if !containsWord(shownText, s) && !inFiles {
			return false
		}
		if !detected[l.ID] {
			return true
		}
		for _, o := range lines {
			if o.ID != l.ID && o.Label == "secret" && !detected[o.ID] && strings.Contains(fmt.Sprint(o.Fields), s) {
				return false
			}
		}
		return true
	}

	type key struct{ lang, form string }
	det, fp, kept := map[key]*rate{}, map[key]*rate{}, map[key]*rate{}
	split := map[bool]*[3]rate{true: {}, false: {}} // detection, false positives, never stored
	count := func(m map[key]*rate, k key, hit bool) {
		for _, k := range []key{k, {k.lang, ""}, {"", k.form}, {"", ""}} {
			if m[k] == nil {
				m[k] = &rate{}
			}
			m[k].total++
			if hit {
				m[k].hit++
			}
		}
	}
	var missed, falsePositives, leaked []string
	for _, l := range lines {
		k := key{l.Lang, l.Form}
		h := split[heldOut(l.ID)]
		if l.Label == "ordinary" {
			count(fp, k, detected[l.ID])
			h[1].total++
			if detected[l.ID] {
				h[1].hit++
				falsePositives = append(falsePositives, l.ID)
			}
			continue
		}
		count(det, k, detected[l.ID])
		h[0].total++
		if detected[l.ID] {
			h[0].hit++
		} else {
			missed = append(missed, l.ID)
		}
		never := true
		for _, s := range l.Secrets {
			if stored(l, s) {
				never = false
			}
		}
		count(kept, k, never)
		h[2].total++
		if never {
			h[2].hit++
		} else {
			leaked = append(leaked, l.ID)
		}
	}
	forms := []string{"labelled", "sentence", "encoded", "split", "key", "vendor"}
	var rows [][]string
	for _, lang := range append(slices.Clone(corpusLangs), "") {
		name := lang
		if name == "" {
			name = "all"
		}
		row := []string{name}
		for _, f := range append(slices.Clone(forms), "") {
			row = append(row, det[key{lang, f}].String())
		}
		rows = append(rows, append(row, kept[key{lang, ""}].String(), fp[key{lang, ""}].String()))
	}
	header := append(append([]string{"lang"}, forms...), "detected (all forms)", "never stored", "ordinary refused")
	corpusReport(t, "Secrets corpus: detected as refusal (FORBIDDEN_CONTENT), never stored, ordinary lines refused", header, rows)
	corpusReport(t, "Secrets corpus: odd lines (looked at while the rules were written) and even lines (held out, then looked at in a last round)", []string{"lines", "detected", "never stored", "ordinary refused"}, [][]string{
		{"odd lines", split[false][0].String(), split[false][2].String(), split[false][1].String()},
		{"even lines", split[true][0].String(), split[true][2].String(), split[true][1].String()},
	})
	t.Logf("missed: %v\nfalse positives: %v\nstored: %v", missed, falsePositives, leaked)
	for _, id := range missed {
		assert.Contains(t, knownSecretMisses, id, "a secret line the scan used to find is missed now")
	}
	for id := range knownSecretMisses {
		assert.Contains(t, missed, id, "a known miss is found now: take it off knownSecretMisses")
	}
	assert.Equal(t, missed, leaked, "every secret the scan finds is never stored")
	assert.GreaterOrEqual(t, det[key{}].fraction(), 0.95, "secrets detected as refusal")
	assert.LessOrEqual(t, fp[key{}].fraction(), 0.01, "ordinary lines refused")
}

// knownSecretMisses are the secret lines no rule finds, and why. They are recorded whole:
// the bar of never storing every secret of the corpus is not met for them.
var knownSecretMisses = map[string]string{
	"sec-en-019": "no word names the credential (\"it's Sunflower_Q3_2026 now\"), and an underscore is its only symbol",
	"sec-en-020": "a passphrase of plain words with spaces",
	"sec-pt-023": "a passphrase of plain words with spaces",
	"sec-zh-024": "a passphrase of plain words with spaces",
}

// TestInjectionCorpus puts each line of testdata/injection.jsonl where its domain's
// free text goes (a support customer's message in the start, otherwise the first
// handoff's output_summary) and decides it without recording. A line is flagged when the
// decision carries INJECTION_SUSPECTED; precision and recall are per language. An
// ordinary line whose request is refused is an ordinary text refused.
func TestInjectionCorpus(t *testing.T) {
	ctx := context.Background()
	lines := readLines[injectionLine](t, "injection.jsonl")
	require.GreaterOrEqual(t, len(lines), 450)
	eng, _ := openDisk(t)
	wfs := startCorpusWorkflows(t, eng, "inj")

	type tally struct{ tp, fp, fn, tn, refused, ordinary int }
	by := map[string]*tally{}
	heldBy := map[bool]*tally{true: {}, false: {}}
	var missed, falsePositives, refused []string
	for _, l := range lines {
		cw := wfs[l.Domain]
		require.NotNil(t, cw, "%s: domain %q", l.ID, l.Domain)
		var req map[string]any
		step := cw.handoffI
		if l.Domain == "support" {
			// A customer's message opens the case.
			req = cloneJSON(cw.start).(map[string]any)
			req["workflow_id"] = fmt.Sprintf("%s.%s", cw.workflow, l.ID)
			req["brief"].(map[string]any)["message"] = l.Text
			step = 0
		} else {
			req = cloneJSON(cw.handoff).(map[string]any)
			req["output_summary"] = l.Text
		}
		req["request_id"] = fmt.Sprintf("%v.%s", req["request_id"], l.ID)
		body, err := json.Marshal(req)
		require.NoError(t, err)
		var d *engine.Decision
		if at := cw.flow.at[step]; at.IsZero() {
			d, err = eng.Evaluate(ctx, body)
		} else {
			d, err = eng.EvaluateAt(ctx, body, at)
		}
		require.NoError(t, err, l.ID)
		flagged := slices.Contains(d.Codes(), "INJECTION_SUSPECTED")
		for _, tl := range []*tally{ensure(by, l.Lang), ensure(by, "all"), heldBy[heldOut(l.ID)]} {
			switch {
			case l.Label == "injection" && flagged:
				tl.tp++
			case l.Label == "injection":
				tl.fn++
			case flagged:
				tl.fp++
			default:
				tl.tn++
			}
			if l.Label == "ordinary" {
				tl.ordinary++
				if d.Outcome == engine.Block {
					tl.refused++
				}
			}
		}
		switch {
		case l.Label == "injection" && !flagged:
			missed = append(missed, l.ID)
		case l.Label == "ordinary" && flagged:
			falsePositives = append(falsePositives, l.ID)
		}
		if l.Label == "ordinary" && d.Outcome == engine.Block {
			refused = append(refused, fmt.Sprintf("%s %v", l.ID, d.Codes()))
		}
		if flagged && l.Domain != "assessment" {
			// Flagged, not refused, in a pack that flags: the hit decides nothing, and the
			// next agent sees the flag.
			for _, r := range d.Reasons {
				if r.Code == "INJECTION_SUSPECTED" {
					assert.Equal(t, engine.Allow, r.Outcome, "%s", l.ID)
				}
			}
			for _, n := range d.Next {
				assert.NotEmpty(t, n.Context.Flags, "%s: next %s sees no flag", l.ID, n.Agent)
			}
		}
		if flagged && l.Domain == "assessment" {
			assert.Equal(t, engine.Block, d.Outcome, "%s: the assessment pack refuses injection", l.ID)
		}
	}
	row := func(name string, tl *tally) []string {
		precision := rate{tl.tp, tl.tp + tl.fp}
		recall := rate{tl.tp, tl.tp + tl.fn}
		return []string{name, precision.String(), recall.String(), rate{tl.refused, tl.ordinary}.String()}
	}
	var rows [][]string
	for _, lang := range append(slices.Clone(corpusLangs), "all") {
		rows = append(rows, row(lang, by[lang]))
	}
	rows = append(rows, row("odd lines (looked at)", heldBy[false]), row("even lines (held out)", heldBy[true]))
	corpusReport(t, "Injection corpus: precision and recall of INJECTION_SUSPECTED, ordinary texts refused", []string{"lines", "precision", "recall", "ordinary refused"}, rows)
	t.Logf("missed: %v\nfalse positives: %v\nordinary refused: %v", missed, falsePositives, refused)
	all := by["all"]
	assert.LessOrEqual(t, rate{all.refused, all.ordinary}.fraction(), 0.01, "ordinary domain texts refused")
	// Regex patterns never find every injection; the design does not depend on them (free
	// text never decides, and reaches agents as untrusted data). These bars hold the
	// measured figures against regressions.
	assert.GreaterOrEqual(t, rate{all.tp, all.tp + all.fp}.fraction(), 0.95, "precision")
	assert.GreaterOrEqual(t, rate{all.tp, all.tp + all.fn}.fraction(), 0.55, "recall")
	for _, lang := range corpusLangs {
		assert.GreaterOrEqual(t, rate{by[lang].tp, by[lang].tp + by[lang].fn}.fraction(), 0.5, "recall in %s", lang)
	}
}

func ensure[V any](m map[string]*V, k string) *V {
	if m[k] == nil {
		m[k] = new(V)
	}
	return m[k]
}

// containsWord reports s in b where no letter or digit touches it: a PIN of four digits
// is not stored because a hash holds the same digits.
// uuidPattern matches a UUID as the engine writes it.
var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func containsWord(b []byte, s string) bool {
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte(s))
		if i < 0 {
			return false
		}
		i += off
		before, after := i == 0 || !alnum(b[i-1]), i+len(s) >= len(b) || !alnum(b[i+len(s)])
		if before && after {
			return true
		}
		off = i + 1
	}
}

func alnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
