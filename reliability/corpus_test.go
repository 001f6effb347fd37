package reliability

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

var (
	update = flag.Bool("update", false, "rewrite the codes: lines of the adversarial corpus")
	report = flag.Bool("corpus.report", false, "print one line per corpus case")
)

// corpusCase is one file of testdata/corpus: a hostile request and what it must get.
type corpusCase struct {
	file   string
	arch   *txtar.Archive
	header map[string]string
	body   []byte
}

func readCorpus(t testing.TB) []*corpusCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*", "*.txtar"))
	require.NoError(t, err)
	var out []*corpusCase
	for _, f := range files {
		a, err := txtar.ParseFile(f)
		require.NoError(t, err)
		c := &corpusCase{file: f, arch: a, header: map[string]string{}}
		for _, line := range strings.Split(strings.TrimSpace(string(a.Comment)), "\n") {
			k, v, ok := strings.Cut(line, ": ")
			require.True(t, ok, "%s: header line %q", f, line)
			c.header[k] = v
		}
		require.Len(t, a.Files, 1, f)
		body := strings.TrimSuffix(string(a.Files[0].Data), "\n")
		switch a.Files[0].Name {
		case "request":
		case "request.quoted":
			body, err = strconv.Unquote(body)
			require.NoError(t, err, f)
		default:
			t.Fatalf("%s: unknown section %s", f, a.Files[0].Name)
		}
		if exp := c.header["expand"]; exp != "" {
			parts := strings.SplitN(exp, " ", 3)
			require.Len(t, parts, 3, f)
			n, err := strconv.Atoi(parts[1])
			require.NoError(t, err, f)
			var text string
			require.NoError(t, json.Unmarshal([]byte(parts[2]), &text), f)
			body = strings.ReplaceAll(body, parts[0], strings.Repeat(text, n))
		}
		c.body = []byte(body)
		out = append(out, c)
	}
	return out
}

var placeholder = regexp.MustCompile(`"\$\{([^}"]+)\}"`)

// corpusSetup plays the workflows the corpus attacks.
func corpusSetup(t testing.TB, eng *engine.Engine) {
	t.Helper()
	ctx := context.Background()
	f := loadFlow(t, "01-happy-path")
	for _, w := range []struct {
		tenant, workflow string
		steps            int
	}{{"acme", "wf-adv", 8}, {"acme", "wf-prod", 5}, {"globex", "wf-globex", 8}} {
		var version uint64
		for i := range w.steps {
			body := edit(t, f.mustStep(t, eng, i, w.tenant, w.workflow, version), func(m map[string]any) {
				if out, ok := m["output"].(map[string]any); ok && w.tenant != "acme" {
					// Another tenant's artifacts differ from acme's, so their hashes do too.
					if c, ok := out["content"].(map[string]any); ok && c["target_audience"] != nil {
						c["target_audience"] = "Remote workers of " + w.tenant
					}
				}
				m["request_id"] = "adv-" + fmt.Sprint(f.steps[i]["request_id"])
				m["trace_id"] = "adv-" + fmt.Sprint(f.steps[i]["trace_id"])
				if w.workflow != "wf-adv" {
					m["request_id"] = w.workflow + "-" + fmt.Sprint(m["request_id"])
				}
			})
			d, err := eng.Submit(ctx, body)
			require.NoError(t, err)
			require.Equal(t, f.outcomes[i], d.Outcome, "setup %s step %d: %v", w.workflow, i, d.Codes())
			version = d.StateVersion
		}
	}
}

// recordCount is the number of records in every workflow log and audit stream.
func recordCount(t testing.TB, eng *engine.Engine) uint64 {
	t.Helper()
	ctx := context.Background()
	tenants, err := eng.Tenants(ctx)
	require.NoError(t, err)
	var n uint64
	for _, tenant := range tenants {
		reps, err := eng.VerifyTenant(ctx, tenant)
		require.NoError(t, err)
		for _, r := range reps {
			require.True(t, r.OK, "%s/%s: %s", r.Tenant, r.Workflow, r.Problem)
			n += r.Records
		}
	}
	return n
}

// TestAdversarialCorpus submits every hostile request of testdata/corpus to the real
// engine: each is blocked, carries its expected reason code (and exactly the codes its
// file lists), is recorded exactly once (in a workflow log or an audit stream), changes
// no workflow's state, and crashes nothing. A case a pack flags rather than refuses
// (outcome: allow) is allowed with its code as a flag, and its dry run records nothing.
func TestAdversarialCorpus(t *testing.T) {
	all := readCorpus(t)
	require.GreaterOrEqual(t, len(all), 300)
	cases := sampleCases(all, size(t, "HANDOFF_CORPUS_STRIDE", 1, 4))
	ctx := context.Background()
	eng, _ := openDisk(t)
	corpusSetup(t, eng)
	versions := func() map[string]uint64 {
		out := map[string]uint64{}
		for _, tw := range [][2]string{{"acme", "wf-adv"}, {"acme", "wf-prod"}, {"globex", "wf-globex"}} {
			st, err := eng.State(ctx, tw[0], tw[1])
			require.NoError(t, err)
			out[tw[0]+"/"+tw[1]] = st.StateVersion
		}
		return out
	}
	before := versions()
	count := recordCount(t, eng)
	perCategory := map[string]int{}
	for _, c := range cases {
		name := strings.TrimSuffix(strings.TrimPrefix(c.file, filepath.Join("testdata", "corpus")+"/"), ".txtar")
		perCategory[filepath.Dir(name)]++
		t.Run(name, func(t *testing.T) {
			refs := c.header["refs"]
			if refs == "" {
				refs = c.header["target"]
			}
			tenant, wf, _ := strings.Cut(refs, "/")
			body := c.body
			if placeholder.Match(body) {
				st, err := eng.State(ctx, tenant, wf)
				require.NoError(t, err)
				var rerr error
				body = placeholder.ReplaceAllFunc(body, func(m []byte) []byte {
					v, err := resolvePlaceholder(st, string(placeholder.FindSubmatch(m)[1]))
					if err != nil {
						rerr = err
					}
					b, _ := json.Marshal(v)
					return b
				})
				require.NoError(t, rerr)
			}
			// A case whose header says outcome: allow is a request a pack flags and lets
			// through (instruction text where the pack's injection mode is flag): it is
			// decided as a dry run, so that the workflow it would move stays where the
			// other cases need it, and must be allowed with the expected code as a flag.
			outcome := engine.Outcome(c.header["outcome"])
			if outcome == "" {
				outcome = engine.Block
			}
			var d *engine.Decision
			var err error
			if outcome == engine.Block {
				d, err = eng.Submit(ctx, body)
			} else {
				d, err = eng.Evaluate(ctx, body)
			}
			require.NoError(t, err, "no decision")
			codes := d.Codes()
			sort.Strings(codes)
			codes = slices.Compact(codes)
			if *report {
				fmt.Printf("CASE %s %s %s expect=%s\n", name, d.Outcome, strings.Join(codes, ","), c.header["expect"])
			}
			assert.Equal(t, outcome, d.Outcome, "outcome %s %v", d.Outcome, codes)
			assert.Contains(t, codes, c.header["expect"], "reasons %v", codes)
			if outcome != engine.Block {
				for _, r := range d.Reasons {
					if r.Code == c.header["expect"] {
						assert.Equal(t, engine.Allow, r.Outcome, "the reason is a flag")
					}
				}
				for _, n := range d.Next {
					assert.NotEmpty(t, n.Context.Flags, "next %s sees the flag", n.Agent)
				}
			}
			if *update {
				c.header["codes"] = strings.Join(codes, " ")
				writeCase(t, c)
			} else {
				assert.Equal(t, c.header["codes"], strings.Join(codes, " "), "reason codes")
			}
			now := recordCount(t, eng)
			if outcome == engine.Block {
				assert.Equal(t, count+1, now, "records written")
			} else {
				assert.Equal(t, count, now, "a dry run records nothing")
			}
			count = now
			require.Equal(t, before, versions(), "a block changed a workflow's state")
		})
	}
	t.Logf("%d of %d hostile requests (HANDOFF_RELIABILITY=1 plays them all): %v", len(cases), len(all), perCategory)
}

// sampleCases keeps every stride-th case of each category and the first of each, so a
// plain go test plays every kind of attack quickly; stride 1 keeps them all.
func sampleCases(all []*corpusCase, stride int) []*corpusCase {
	var out []*corpusCase
	seen := map[string]int{}
	for _, c := range all {
		cat := filepath.Dir(c.file)
		if seen[cat]%stride == 0 {
			out = append(out, c)
		}
		seen[cat]++
	}
	return out
}

// resolvePlaceholder resolves ${ref:TYPE@N}, ${hash:TYPE@N} and ${state_version}.
func resolvePlaceholder(st *engine.State, name string) (any, error) {
	if name == "state_version" {
		return st.StateVersion, nil
	}
	kind, spec, _ := strings.Cut(name, ":")
	typ, ver, _ := strings.Cut(spec, "@")
	h := st.Artifacts[typ]
	if h == nil || h.Versions[ver] == nil {
		return nil, fmt.Errorf("${%s}: no such recorded version", name)
	}
	ref := h.Versions[ver].Ref
	switch kind {
	case "hash":
		return ref.Hash, nil
	case "ref":
		return map[string]any{"id": ref.ID, "type": ref.Type, "version": ref.Version, "hash": ref.Hash}, nil
	}
	return nil, fmt.Errorf("unknown placeholder ${%s}", name)
}

// writeCase rewrites a case file's header, keeping its request.
func writeCase(t testing.TB, c *corpusCase) {
	t.Helper()
	var hdr strings.Builder
	for _, k := range []string{"attack", "target", "expect", "outcome", "codes", "refs", "expand"} {
		if v, ok := c.header[k]; ok {
			fmt.Fprintf(&hdr, "%s: %s\n", k, v)
		}
	}
	c.arch.Comment = []byte(hdr.String())
	require.NoError(t, os.WriteFile(c.file, txtar.Format(c.arch), 0o644))
}
