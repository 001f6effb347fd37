package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

// secretFlows are, per pack, a shipped scenario and the name of its first step that
// cites recorded artifacts: the request whose every string position gets a secret.
var secretFlows = []struct{ flow, step string }{
	{"campaign/01-happy-path", ""},
	{"assessment/eval-1-full-synthetic-pipeline", ""},
	{"support/00-full-happy-path", ""},
	{"video/01-happy-path", ""},
}

// TestSecretInEveryPositionIsNeverStored writes an AWS access key into every string
// position of a real request of each pack (every value, ids and references included,
// every object as an extra key, every list as an extra item), submits each variant to an
// engine on a Badger directory, and then looks for the keys in everything the engine
// keeps or shows: each workflow's log, the audit streams, the state, the decision-log
// export and the raw store files, before and after the store is closed. A marker in an
// ordinary request proves the search sees what is stored.
func TestSecretInEveryPositionIsNeverStored(t *testing.T) {
	ctx := context.Background()
	eng, dir := openDisk(t)
	var secrets []string
	tenants := map[string]bool{}
	marker := "stored-marker-7f3a9c2e51"
	for fi, sf := range secretFlows {
		f := loadFlow(t, sf.flow)
		tenant, workflow := fmt.Sprintf("sec%d", fi), fmt.Sprintf("wf-sec-%d", fi)
		tenants[tenant] = true
		k := firstCitingStep(t, f)
		var version uint64
		for i := range k {
			d, err := submitAtStep(ctx, eng, f, i, f.mustStep(t, eng, i, tenant, workflow, version))
			require.NoError(t, err)
			require.Equal(t, f.outcomes[i], d.Outcome, "%s step %d: %+v", sf.flow, i, d.Reasons)
			version = d.StateVersion
		}
		base := decodeMap(t, f.mustStep(t, eng, k, tenant, workflow, version))
		variants := secretVariants(base, func() string {
			s := fmt.Sprintf("AKIAZ%015d", len(secrets))
			secrets = append(secrets, s)
			return s
		})
		require.NotEmpty(t, variants)
		variants = sample(variants, 3) // every position when full(), else every third
		refused := 0
		for i, v := range variants {
			if v.path != "request_id" {
				v.req["request_id"] = fmt.Sprintf("%v-v%d", base["request_id"], i)
			}
			body, err := json.Marshal(v.req)
			require.NoError(t, err)
			d, err := submitAtStep(ctx, eng, f, k, body)
			if err != nil {
				// Nothing can be recorded when a field the log is keyed by holds the
				// secret: the engine refuses to record it at all.
				assert.Contains(t, []string{"request_id", "tenant_id", "workflow_id"}, v.path, "%s: %v", v.path, err)
				refused++
				continue
			}
			assert.Equal(t, engine.Block, d.Outcome, "%s %s", sf.flow, v.path)
			if assert.Contains(t, d.Codes(), "FORBIDDEN_CONTENT", "%s %s", sf.flow, v.path) {
				refused++
			}
		}
		assert.Equal(t, len(variants), refused, "%s: every variant refused", sf.flow)
		t.Logf("%s: %d positions, every one refused", sf.flow, len(variants))
		// The marker, in an ordinary request that is recorded whole.
		base["request_id"] = fmt.Sprintf("%v-marker", base["request_id"])
		base["trace_id"] = marker
		body, err := json.Marshal(base)
		require.NoError(t, err)
		_, err = submitAtStep(ctx, eng, f, k, body)
		require.NoError(t, err)
	}

	var shown bytes.Buffer
	for _, tenant := range append(slices.Sorted(mapsKeys(tenants)), "_unknown") {
		var wfs []string
		require.NoError(t, eng.Workflows(ctx, tenant, func(wf string, _ store.Head) error {
			wfs = append(wfs, wf)
			return nil
		}))
		for _, wf := range wfs {
			require.NoError(t, eng.History(ctx, tenant, wf, func(e engine.Entry) error { return writeJSON(&shown, e) }))
			st, err := eng.State(ctx, tenant, wf)
			require.NoError(t, err)
			require.NoError(t, writeJSON(&shown, st))
		}
		require.NoError(t, eng.Audit(ctx, tenant, func(e engine.Entry) error { return writeJSON(&shown, e) }))
	}
	require.NoError(t, eng.DecisionLog(ctx, engine.DecisionLogOptions{}, func(ev engine.DecisionLogEvent) error { return writeJSON(&shown, ev) }))
	assert.Contains(t, shown.String(), marker, "the search sees what the log shows")

	open := storeFiles(t, dir)
	require.NoError(t, eng.Close())
	closed := storeFiles(t, dir)
	assert.True(t, bytes.Contains(open, []byte(marker)) || bytes.Contains(closed, []byte(marker)), "the search sees what the store files hold")
	for _, s := range secrets {
		assert.NotContains(t, shown.String(), s, "the log, audit, state or export shows a secret")
		assert.False(t, bytes.Contains(open, []byte(s)), "the store files hold %s while open", s)
		assert.False(t, bytes.Contains(closed, []byte(s)), "the store files hold %s once closed", s)
	}
	t.Logf("%d secrets written, none found in %d bytes shown or %d+%d bytes of store files", len(secrets), shown.Len(), len(open), len(closed))
}

// submitAtStep submits body at the time of step i of the flow (the engine's clock when
// the scenario sets none).
func submitAtStep(ctx context.Context, eng *engine.Engine, f *flow, i int, body []byte) (*engine.Decision, error) {
	if f.at[i].IsZero() {
		return eng.Submit(ctx, body)
	}
	return eng.SubmitAt(ctx, body, f.at[i])
}

// firstCitingStep is the first step after the start whose request cites recorded
// artifacts (a non-empty input_artifacts): the variants reach every kind of field.
func firstCitingStep(t *testing.T, f *flow) int {
	t.Helper()
	for i := 1; i < len(f.steps); i++ {
		if refs, ok := f.steps[i]["input_artifacts"].([]any); ok && len(refs) > 0 {
			return i
		}
	}
	t.Fatal("no step cites artifacts")
	return -1
}

// secretVariant is a request with a secret at path.
type secretVariant struct {
	path string
	req  map[string]any
}

// secretVariants returns a copy of req for each string position: every string value
// replaced by a new secret, every object given an extra key that is a secret, every
// list an extra item that is one.
func secretVariants(req map[string]any, next func() string) []secretVariant {
	var out []secretVariant
	var paths []string
	collect(req, "", &paths)
	for _, p := range paths {
		cp := cloneJSON(req).(map[string]any)
		if putSecret(cp, p, next()) {
			out = append(out, secretVariant{path: strings.TrimSuffix(strings.TrimSuffix(p, "+key"), "+item"), req: cp})
		}
	}
	return out
}

// collect lists the positions of v: a string's path, an object's path+"+key" and a
// list's path+"+item", in the request notation with a leading "." stripped.
func collect(v any, path string, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		*out = append(*out, path+"+key")
		for _, k := range slices.Sorted(mapsKeys(x)) {
			collect(x[k], joinPath(path, k), out)
		}
	case []any:
		*out = append(*out, path+"+item")
		for i, e := range x {
			collect(e, fmt.Sprintf("%s[%d]", path, i), out)
		}
	case string:
		*out = append(*out, path)
	}
}

// putSecret puts secret at position p of v (see collect).
func putSecret(v any, p, secret string) bool {
	if base, ok := strings.CutSuffix(p, "+key"); ok {
		m, ok := at(v, base).(map[string]any)
		if ok {
			m[secret] = "x"
		}
		return ok
	}
	if base, ok := strings.CutSuffix(p, "+item"); ok {
		parent, key := splitLast(base)
		l, ok := at(v, base).([]any)
		if !ok {
			return false
		}
		return setAt(v, parent, key, append(l, secret))
	}
	parent, key := splitLast(p)
	return setAt(v, parent, key, secret)
}

func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// at is the value at a path built by collect (keys without dots or brackets).
func at(v any, path string) any {
	if path == "" {
		return v
	}
	for _, seg := range segments(path) {
		switch x := v.(type) {
		case map[string]any:
			v = x[seg.key]
		case []any:
			if seg.index < 0 || seg.index >= len(x) {
				return nil
			}
			v = x[seg.index]
		default:
			return nil
		}
	}
	return v
}

type segment struct {
	key   string
	index int
}

func segments(path string) []segment {
	var out []segment
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			out = append(out, segment{key: name, index: -1})
		}
		for rest != "" {
			var i int
			n, _ := fmt.Sscanf(rest, "%d]", &i)
			if n != 1 {
				break
			}
			out = append(out, segment{index: i})
			_, rest, _ = strings.Cut(rest, "[")
		}
	}
	return out
}

// splitLast splits a path into its parent and its last segment.
func splitLast(path string) (string, segment) {
	segs := segments(path)
	last := segs[len(segs)-1]
	if last.index >= 0 {
		return path[:strings.LastIndex(path, "[")], last
	}
	if i := strings.LastIndex(path, "."); i >= 0 {
		return path[:i], last
	}
	return "", last
}

func setAt(v any, parent string, seg segment, val any) bool {
	switch x := at(v, parent).(type) {
	case map[string]any:
		if seg.index >= 0 {
			return false
		}
		x[seg.key] = val
		return true
	case []any:
		if seg.index < 0 || seg.index >= len(x) {
			return false
		}
		x[seg.index] = val
		return true
	}
	return false
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func decodeMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	require.NoError(t, dec.Decode(&m))
	return m
}

func writeJSON(w *bytes.Buffer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Write(b)
	w.WriteByte('\n')
	return nil
}

// storeFiles is the bytes of every file under dir.
func storeFiles(t *testing.T, dir string) []byte {
	t.Helper()
	var all []byte
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		// Badger preallocates its files: the zeros hold nothing to look for.
		all = append(all, bytes.ReplaceAll(b, []byte{0}, nil)...)
		return nil
	}))
	return all
}
