package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/governance"
	"github.com/handoff-dev/handoff/service"
	"github.com/handoff-dev/handoff/store"
)

// shadowLogFile is the shadow log's default place, in a Badger store's directory.
const shadowLogFile = "shadow-disagreements.ndjson"

// shadowServe is what serve's --shadow-* flags ask for.
type shadowServe struct {
	bundle, log string
	queue       int
}

// startShadow starts the shadow bundle of serve's --shadow-bundle on e and hands it to
// the service through opts (its metrics on opts' registry, made when there is none yet).
// stop closes it. Without --shadow-bundle it does nothing.
func startShadow(ctx context.Context, c *cli, e *engine.Engine, opts *service.Options, sh shadowServe) (stop func(), err error) {
	if sh.bundle == "" {
		if sh.log != "" {
			return nil, usagef("--shadow-log goes with --shadow-bundle DIR")
		}
		return func() {}, nil
	}
	if sh.queue <= 0 {
		return nil, usagef("--shadow-queue takes a number of decisions, not %d", sh.queue)
	}
	if sh.log == "" {
		if store.IsURL(c.db.value) {
			return nil, usagef("--shadow-bundle with a PostgreSQL store needs --shadow-log FILE: where the disagreements go")
		}
		sh.log = filepath.Join(c.db.value, shadowLogFile)
	}
	b, err := dirBundle(sh.bundle, "--shadow-bundle DIR names a directory laid out as the repository: DIR/contracts (a CUE module) and DIR/policies")
	if err != nil {
		return nil, err
	}
	cand, err := engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &b})
	if err != nil {
		return nil, fmt.Errorf("shadow bundle %s: %w", sh.bundle, err)
	}
	s, err := e.StartShadow(cand, engine.ShadowOptions{Log: sh.log, Queue: sh.queue, Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	if opts.Registerer == nil {
		reg := prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		opts.Registerer, opts.Gatherer = reg, reg
	}
	opts.Registerer.MustRegister(service.ShadowCollector(e, s))
	opts.Shadow = s
	c.say(map[string]string{"event": "shadow", "candidate_digest": cand.BundleDigest(), "log": sh.log},
		fmt.Sprintf("shadow: bundle %s decides every request again (%s), disagreements to %s", sh.bundle, cand.BundleDigest(), sh.log))
	return func() {
		if err := s.Close(); err != nil {
			opts.Logger.Warn("shadow log", "error", err)
		}
	}, nil
}

var shadowCmd = &command{
	name:  "shadow",
	args:  "report [--from FILE] [--tenant T] [--pack P]",
	short: "summarise what a shadow bundle would decide otherwise",
	long: `Shadow report summarises the shadow log of 'handoffctl serve --shadow-bundle DIR': the
decisions the candidate bundle would make otherwise, each decided again exactly as
'handoffctl replay' decides it (the recorded request, on the state before it, at its
recorded time). The report is replay's: the decisions that would change, grouped by
transition (loosening first, then tightening, then decisions whose outcome stays), each
with the reasons the candidate drops (-CODE) and adds (+CODE), then the reasons added
and removed per code, and the disagreements per pack and kind.

The log is read from --from FILE, or through --server URL from the running server
(GET /v1/admin/shadow and /v1/admin/shadow/disagreements: an admin token's, in
HANDOFF_TOKEN), which adds its counters (decided, agreed, disagreed, unchanged,
skipped, dropped, errors, pending); default: the log beside the store of --store
(` + shadowLogFile + `). --tenant and --pack keep one tenant's or one pack's.

With -o json the output is one object: source, candidate_digests (the candidates the
log's disagreements name), stats (through --server), disagreements, packs (pack, kind,
count, flips), and replay's changed, flips, loosened, transitions and codes (see
'handoffctl help replay').`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		from := fs.String("from", "", "read the shadow log `FILE`")
		tenant := fs.String("tenant", "", "only the disagreements of tenant `T`")
		pack := fs.String("pack", "", "only the disagreements of pack `P`")
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) != 1 || args[0] != "report" {
				return usagef("shadow takes one subcommand: report")
			}
			if *from != "" && c.server != "" {
				return usagef("--from and --server do not go together: the log is read from one of them")
			}
			rep := shadowReport{CandidateDigests: []string{}, Packs: []shadowPackCount{}}
			var dis []engine.ShadowDisagreement
			collect := func(d engine.ShadowDisagreement) error { dis = append(dis, d); return nil }
			switch {
			case c.server != "":
				rep.Source = c.server
				st, err := shadowFromServer(ctx, c.server, *tenant, *pack, collect)
				if err != nil {
					return err
				}
				rep.Stats = st
			default:
				path := *from
				if path == "" {
					if store.IsURL(c.db.value) {
						return usagef("a PostgreSQL store keeps no shadow log: name it with --from FILE (serve's --shadow-log), or ask the server with --server URL")
					}
					path = filepath.Join(c.db.value, shadowLogFile)
				}
				rep.Source = path
				if err := governance.ReadShadowLog(path, *tenant, *pack, collect); err != nil {
					if errors.Is(err, os.ErrNotExist) {
						return withHint(err, "serve --shadow-bundle DIR writes the shadow log beside its store, or to --shadow-log FILE")
					}
					return err
				}
			}
			rep.summarise(dis)
			if c.json() {
				return writeJSON(c.stdout, rep)
			}
			rep.print(c)
			return nil
		}
	},
}

// shadowFromServer reads a running server's shadow: its counters and its log.
func shadowFromServer(ctx context.Context, base, tenant, pack string, fn func(engine.ShadowDisagreement) error) (*engine.ShadowStats, error) {
	get := func(path string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+path, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+os.Getenv("HANDOFF_TOKEN"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			defer resp.Body.Close()
			var e struct{ Code, Message, Hint string }
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			_ = json.Unmarshal(b, &e)
			err := fmt.Errorf("server answered %d %s: %s", resp.StatusCode, e.Code, e.Message)
			if e.Hint != "" {
				return nil, withHint(err, e.Hint)
			}
			return nil, withHint(err, "the shadow is an admin token's: set HANDOFF_TOKEN")
		}
		return resp, nil
	}
	resp, err := get("/v1/admin/shadow")
	if err != nil {
		return nil, err
	}
	var st engine.ShadowStats
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	if tenant != "" {
		q.Set("tenant", tenant)
	}
	if pack != "" {
		q.Set("pack", pack)
	}
	resp, err = get("/v1/admin/shadow/disagreements?" + q.Encode())
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return &st, governance.DecodeShadowLog(resp.Body, "", "", fn)
}

// shadowReport is the summary of a shadow log; its JSON form is documented in the help.
type shadowReport struct {
	Source           string              `json:"source"`
	CandidateDigests []string            `json:"candidate_digests"`
	Stats            *engine.ShadowStats `json:"stats,omitempty"`
	Disagreements    int                 `json:"disagreements"`
	Packs            []shadowPackCount   `json:"packs"`
	Changed          int                 `json:"changed"`
	Flips            int                 `json:"flips"`
	Loosened         int                 `json:"loosened"`
	Transitions      []*replayTransition `json:"transitions"`
	Codes            []replayCode        `json:"codes"`
	changes          replayReport
}

// shadowPackCount is how many decisions of one pack and kind the candidate would change.
type shadowPackCount struct {
	Pack  string `json:"pack"`
	Kind  string `json:"kind"`
	Count int    `json:"count"`
	Flips int    `json:"flips"` // those whose outcome changes
}

// summarise groups the disagreements as replay groups its changes.
func (rep *shadowReport) summarise(dis []engine.ShadowDisagreement) {
	rep.changes = replayReport{Transitions: []*replayTransition{}, Codes: []replayCode{}}
	var changes []replayChange
	byPack := map[[2]string]*shadowPackCount{}
	for _, d := range dis {
		changes = append(changes, newReplayChange(engine.ReplayResult{
			Tenant: d.Tenant, Workflow: d.Workflow, Seq: d.Seq, Audit: d.Audit,
			Recorded: sideDecision(d, d.Live), Replayed: sideDecision(d, d.Candidate),
			Changed: d.Fields, ValidationChanged: d.ValidationChanged,
		}))
		if !slices.Contains(rep.CandidateDigests, d.Candidate.BundleDigest) {
			rep.CandidateDigests = append(rep.CandidateDigests, d.Candidate.BundleDigest)
		}
		k := [2]string{d.Pack, d.Kind}
		if byPack[k] == nil {
			byPack[k] = &shadowPackCount{Pack: d.Pack, Kind: d.Kind}
		}
		byPack[k].Count++
		if d.Live.Outcome != d.Candidate.Outcome {
			byPack[k].Flips++
		}
	}
	rep.changes.group(changes)
	rep.Disagreements = len(dis)
	rep.Changed, rep.Flips, rep.Loosened = rep.changes.Changed, rep.changes.Flips, rep.changes.Loosened
	rep.Transitions, rep.Codes = rep.changes.Transitions, rep.changes.Codes
	for _, p := range byPack {
		rep.Packs = append(rep.Packs, *p)
	}
	slices.SortFunc(rep.Packs, func(a, b shadowPackCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Pack, b.Pack), cmp.Compare(a.Kind, b.Kind))
	})
}

// sideDecision is one side of a disagreement as the decision replay compares.
func sideDecision(d engine.ShadowDisagreement, s engine.ShadowSide) *engine.Decision {
	return &engine.Decision{DecisionID: d.DecisionID, RequestID: d.RequestID, WorkflowID: d.Workflow, TenantID: d.Tenant,
		Kind: d.Kind, Pack: d.Pack, Outcome: s.Outcome, Reasons: s.Reasons, StatusAfter: s.StatusAfter}
}

func (rep *shadowReport) print(c *cli) {
	fmt.Fprintf(c.stdout, "shadow log of %s: %s", rep.Source, count(rep.Disagreements, "disagreement"))
	if len(rep.CandidateDigests) > 0 {
		fmt.Fprintf(c.stdout, " of candidate %s", strings.Join(rep.CandidateDigests, ", "))
	}
	fmt.Fprintln(c.stdout)
	if st := rep.Stats; st != nil {
		fmt.Fprintf(c.stdout, "candidate %s beside live %s%s\n", st.CandidateDigest, st.LiveDigest, map[bool]string{true: "", false: " (stopped: promoted)"}[st.Running])
		fmt.Fprintf(c.stdout, "decided %d again: %d agreed, %d disagreed; %d of unchanged packs, %d not replayable, %d dropped, %d errors, %d pending\n",
			st.Decided, st.Agreed, st.Disagreed, st.Unchanged, st.Skipped, st.Dropped, st.Errors, st.Pending)
	}
	if rep.Disagreements == 0 {
		fmt.Fprintln(c.stdout, "no decision would change")
		return
	}
	fmt.Fprintln(c.stdout, "\nby pack and kind (disagreements, flips)")
	t := newTable(c.stdout)
	for _, p := range rep.Packs {
		t.row("  "+p.Pack, p.Kind, fmt.Sprint(p.Count), fmt.Sprint(p.Flips))
	}
	t.flush()
	fmt.Fprintln(c.stdout)
	rep.changes.printChanges(c)
}
