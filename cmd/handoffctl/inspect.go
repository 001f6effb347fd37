package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

var stateCmd = &command{
	name:  "state",
	args:  "--tenant T [--full] WORKFLOW",
	short: "show a workflow's current state",
	long: `State prints the current state of a workflow of tenant T from the store of --store:
its pack and status, the state version, every artifact version with its status and
hash, the counters, handoffs, approvals (one row each, with the stages and artifact
types it stands for), open conflicts, defects and side effects.

Hashes are shortened to 12 hex digits. With --full the artifacts are listed one
version a row with its id and full hash, and the approvals with the full hashes of the
versions they approved: what a hand-written request can quote (or refer to with
${ref:TYPE@N}, which submit, eval and validate resolve).

With -o json the output is the engine's State object (hashes are always full).`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		tenant := fs.String("tenant", "", "the workflow's tenant `T` (required)")
		full := fs.Bool("full", false, "print full hashes, one artifact version a row")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if *tenant == "" {
				return usagef("--tenant is required: every read is scoped by tenant")
			}
			if len(args) != 1 {
				return usagef("state takes one WORKFLOW id")
			}
			e, err := c.backend(ctx, existingStore)
			if err != nil {
				return err
			}
			defer closeBackend(e, &err)
			st, err := e.State(ctx, *tenant, args[0])
			if err != nil {
				return serverHint(err)
			}
			if c.json() {
				return writeJSON(c.stdout, st)
			}
			printState(c.stdout, st, *full)
			return nil
		}
	},
}

// printState writes a workflow state as text sections; empty sections are left out.
// full prints whole hashes, one artifact version a row.
func printState(w io.Writer, st *engine.State, full bool) {
	t := newTable(w)
	row := func(label, value string) { fmt.Fprintf(t, "%s\t%s\n", label, value) }
	row("workflow", st.WorkflowID)
	row("tenant", st.TenantID)
	if st.OrganizationID != "" {
		row("organization", st.OrganizationID)
	}
	row("pack", st.Pack)
	row("subject", orDash(st.SubjectID))
	row("status", st.Status)
	row("terminal", yesNo(st.Terminal))
	row("state_version", strconv.FormatUint(st.StateVersion, 10))
	row("created_at", orDash(st.CreatedAt))
	row("updated_at", orDash(st.UpdatedAt))
	t.flush()

	section := func(title string) *table {
		fmt.Fprintf(w, "\n%s\n", title)
		return newTable(w)
	}

	s := section("ARTIFACTS")
	switch {
	case len(st.Artifacts) == 0:
		s.row("  (none)")
	case full:
		s.row("  TYPE", "VERSION", "STATUS", "ROLE", "ID", "HASH")
		for _, typ := range sortedKeys(st.Artifacts) {
			h := st.Artifacts[typ]
			for _, k := range versionKeys(h.Versions) {
				v := h.Versions[k]
				s.row("  "+typ, "v"+k, v.Status, versionRole(h, v.Ref.Version), orDash(v.Ref.ID), orDash(v.Ref.Hash))
			}
		}
	default:
		s.row("  TYPE", "LATEST", "APPROVED", "VERSIONS")
		for _, typ := range sortedKeys(st.Artifacts) {
			h := st.Artifacts[typ]
			var versions []string
			for _, k := range versionKeys(h.Versions) {
				v := h.Versions[k]
				versions = append(versions, fmt.Sprintf("v%s %s %s", k, v.Status, hashPrefix(v.Ref.Hash)))
			}
			s.row("  "+typ, version(h.Latest), version(h.Approved), strings.Join(versions, ", "))
		}
	}
	s.flush()

	if len(st.Counters) > 0 {
		s := section("COUNTERS")
		for _, k := range sortedKeys(st.Counters) {
			s.row("  "+k, strconv.Itoa(st.Counters[k]))
		}
		s.flush()
	}
	if len(st.Edges) > 0 {
		s := section("HANDOFFS")
		for _, k := range sortedKeys(st.Edges) {
			s.row("  "+k, strconv.Itoa(st.Edges[k]))
		}
		s.flush()
	}
	if len(st.Approvals) > 0 {
		s := section("APPROVALS")
		s.row("  STAGE", "DECISION", "BY", "ARTIFACTS")
		for _, a := range approvals(st.Approvals) {
			s.row("  "+orDash(strings.Join(a.stages, ", ")), a.rec.Decision, a.rec.By, refsString(a.rec.Artifacts, full))
		}
		s.flush()
	}
	if len(st.Conflicts) > 0 {
		s := section(fmt.Sprintf("CONFLICTS (%d open)", st.OpenConflicts))
		for _, k := range sortedKeys(st.Conflicts) {
			cf := st.Conflicts[k]
			by := "raised by " + orDash(cf.RaisedBy)
			if cf.ResolvedBy != "" {
				by += ", resolved by " + cf.ResolvedBy
			}
			s.row("  "+cf.ID, cf.Status, orDash(cf.ConflictType), by, cf.Description)
		}
		s.flush()
	}
	if len(st.Defects) > 0 {
		s := section("DEFECTS")
		for _, k := range sortedKeys(st.Defects) {
			d := st.Defects[k]
			s.row("  "+d.Defect.ID, d.Defect.Severity, d.Defect.Artifact, d.Status, d.Defect.Description)
		}
		s.flush()
	}
	if len(st.Effects) > 0 {
		s := section("EFFECTS")
		for _, k := range sortedKeys(st.Effects) {
			s.row("  "+k, st.Effects[k])
		}
		s.flush()
	}
}

// versionKeys sorts artifact version keys ("1", "2", "10") by number.
func versionKeys[V any](m map[string]V) []string {
	keys := sortedKeys(m)
	sort.SliceStable(keys, func(i, j int) bool {
		a, aerr := strconv.Atoi(keys[i])
		b, berr := strconv.Atoi(keys[j])
		if aerr != nil || berr != nil {
			return keys[i] < keys[j]
		}
		return a < b
	})
	return keys
}

func version(n int) string {
	if n <= 0 {
		return "-"
	}
	return "v" + strconv.Itoa(n)
}

// hashPrefix shortens "sha256:<64 hex>" to its first 12 hex digits.
func hashPrefix(h string) string {
	alg, hex, ok := strings.Cut(h, ":")
	if !ok || len(hex) <= 12 {
		return orDash(h)
	}
	return alg + ":" + hex[:12]
}

// refsString lists artifact versions, with their full hashes when full is set.
func refsString(refs []engine.ArtifactRef, full bool) string {
	var parts []string
	for _, r := range refs {
		p := fmt.Sprintf("%s v%d", r.Type, r.Version)
		if full {
			p += " " + orDash(r.Hash)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// versionRole says whether version n is its type's latest, approved one, both or
// neither ("-").
func versionRole(h *engine.ArtifactHistory, n int) string {
	var roles []string
	if n == h.Latest {
		roles = append(roles, "latest")
	}
	if n == h.Approved {
		roles = append(roles, "approved")
	}
	if len(roles) == 0 {
		return "-"
	}
	return strings.Join(roles, ",")
}

// approval is one recorded approval and the stages it is filed under in
// State.Approvals (it is also filed under each artifact type it approved).
type approval struct {
	stages []string
	rec    *engine.ApprovalRecord
}

// approvals lists State.Approvals one approval a row: the engine files one approval
// under its stage and under each artifact type it approved.
func approvals(m map[string]*engine.ApprovalRecord) []approval {
	var out []approval
	index := map[string]int{}
	for _, k := range sortedKeys(m) {
		rec := m[k]
		id, err := json.Marshal(rec)
		if err != nil {
			id = []byte(k)
		}
		i, ok := index[string(id)]
		if !ok {
			i = len(out)
			index[string(id)] = i
			out = append(out, approval{rec: rec})
		}
		if !slices.ContainsFunc(rec.Artifacts, func(r engine.ArtifactRef) bool { return r.Type == k }) {
			out[i].stages = append(out[i].stages, k)
		}
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

var logCmd = &command{
	name:  "log",
	args:  "--tenant T WORKFLOW | --tenant T --audit",
	short: "show a workflow's decisions, oldest first",
	long: `Log prints the recorded decisions of a workflow of tenant T, oldest first, one line
each: sequence number, record time, request kind, actor, outcome, status before and
after, state version and reason codes. Blocks are recorded too.

A request blocked because it carries a secret, a credential or personal data (a reason
code of the core table guardrails.redaction: FORBIDDEN_CONTENT, PERSONAL_DATA_EXPOSED,
CONTEXT_FORBIDDEN) is never recorded whole: the log holds a copy in which every string
outside the routing and identity fields is "[REDACTED]", with the SHA-256 of the
original; its line says "(request recorded redacted)" and its JSON Entry carries
redaction.

With --audit it prints the tenant's security audit stream instead: the requests too
broken to trust their workflow (undecodable, unknown or foreign workflow). Requests
whose tenant could not be read are audited under the tenant _unknown.

With -o json the output is one JSON object: tenant_id, workflow_id (or audit: true) and
entries, the engine Entry objects oldest first.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		tenant := fs.String("tenant", "", "the workflow's tenant `T` (required)")
		audit := fs.Bool("audit", false, "show the tenant's security audit stream")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if *tenant == "" {
				return usagef("--tenant is required: every read is scoped by tenant")
			}
			switch {
			case *audit && len(args) != 0:
				return usagef("log --audit takes no WORKFLOW: the audit stream is the tenant's")
			case !*audit && len(args) != 1:
				return usagef("log takes one WORKFLOW id (or --audit)")
			}
			e, err := c.backend(ctx, existingStore)
			if err != nil {
				return err
			}
			defer closeBackend(e, &err)
			entries := []engine.Entry{}
			collect := func(ent engine.Entry) error {
				entries = append(entries, ent)
				return nil
			}
			doc := logDocument{Tenant: *tenant, Audit: *audit}
			if *audit {
				err = e.Audit(ctx, *tenant, collect)
				if err == nil && len(entries) == 0 {
					err = knownTenant(ctx, e, *tenant)
				}
			} else {
				doc.Workflow = args[0]
				err = e.History(ctx, *tenant, args[0], collect)
			}
			if err != nil {
				return serverHint(err)
			}
			if c.json() {
				doc.Entries = entries
				return writeJSON(c.stdout, doc)
			}
			printLog(c.stdout, entries, *audit)
			return nil
		}
	},
}

// logDocument is the JSON form of a log.
type logDocument struct {
	Tenant   string         `json:"tenant_id"`
	Workflow string         `json:"workflow_id,omitempty"`
	Audit    bool           `json:"audit,omitempty"`
	Entries  []engine.Entry `json:"entries"`
}

// knownTenant returns a not-found error for a tenant the store holds no workflow of.
func knownTenant(ctx context.Context, b backend, tenant string) error {
	list, err := b.ListWorkflows(ctx, tenant, engine.WorkflowFilter{})
	if err != nil || len(list) > 0 {
		return err
	}
	return unknownTenant(tenant)
}

// unknownTenant is the error for a tenant of whom the store holds nothing.
func unknownTenant(tenant string) error {
	return withHint(fmt.Errorf("tenant %q: %w", tenant, errTenantNotFound),
		"check --tenant: tenants are named by the requests they sent ('handoffctl verify' lists every chain)")
}

// errTenantNotFound is a tenant the store holds no record of.
var errTenantNotFound = errors.New("no record of this tenant in the store")

// printLog writes one line per recorded decision; an audit stream's lines also name the
// workflow the request asked for.
func printLog(w io.Writer, entries []engine.Entry, audit bool) {
	if len(entries) == 0 {
		fmt.Fprintln(w, "(no records)")
		return
	}
	t := newTable(w)
	header := []string{"SEQ", "TIME", "KIND", "ACTOR", "OUTCOME", "STATUS", "VERSION", "REASONS"}
	if audit {
		header = slices.Insert(header, 2, "WORKFLOW")
	}
	t.row(header...)
	for _, ent := range entries {
		kind, outcome, status, ver, codes, wf := "-", "-", "-", "-", "-", "-"
		if d := ent.Decision; d != nil {
			kind, outcome, wf = orDash(d.Kind), upper(d.Outcome), orDash(d.WorkflowID)
			status = d.StatusBefore + " → " + d.StatusAfter
			ver = "v" + strconv.FormatUint(d.StateVersion, 10)
			if len(d.Reasons) > 0 {
				codes = strings.Join(d.Codes(), ",")
			}
		}
		if ent.Redaction != nil {
			codes += "  (request recorded redacted)"
		}
		cells := []string{strconv.FormatUint(ent.Seq, 10), ent.Time, kind, actorID(ent.Request), outcome, status, ver, codes}
		if audit {
			cells = slices.Insert(cells, 2, wf)
		}
		t.row(cells...)
	}
	t.flush()
}

// actorID reads the actor id of a recorded request, "-" when it has none.
func actorID(req json.RawMessage) string {
	var r struct {
		Actor struct {
			ID any `json:"id"`
		} `json:"actor"`
	}
	if json.Unmarshal(req, &r) != nil {
		return "-"
	}
	if s, ok := r.Actor.ID.(string); ok && s != "" {
		return s
	}
	return "-"
}

var verifyCmd = &command{
	name:  "verify",
	args:  "[--tenant T] [WORKFLOW] | --checkpoint FILE [--pub FILE]",
	short: "verify the log and everything decisions are made from",
	long: `Verify checks the store of --store. For each workflow: its hash chain (every record's
hash is recomputed, every prev_hash must name the record before, sequence numbers must
run without a gap and the head must name the last record); its state snapshot and the
head's state version and standing decision (the last one that was not a block), which
must equal the fold of its recorded decisions (a rewritten snapshot would make the next
decision on facts nobody recorded); its idempotency records, each bound to the record
of its request with that request's digest (a rewritten one would answer a resent
request with a decision nobody made), with every recorded request holding one; and the
record index, which must name every decision's record. For each tenant, the audit
chain, and every idempotency record and record id the tenant has, each of which must
name a record that is there, unaltered, within its chain (a chain cut at its end, its
head set back, still has them), answering that request or holding that id. It prints
one line per chain, OK or BROKEN at the first problem, and exits 3 when any is broken.
The fold uses the bundle of --bundle: verify a log with the bundle it was recorded
with.

With --tenant T and WORKFLOW it verifies that workflow; with --tenant T alone, every
workflow and the audit stream of T; with neither, every chain of every tenant.

A tenant the store holds nothing of is not found (exit 1), not an empty success.

With -o json the output is one JSON object: ok, broken (how many chains), and chains,
each with tenant, workflow ("" for an audit stream), records, ok, broken_seq, problem.

With --checkpoint FILE (from handoffctl checkpoint) it proves the log still extends the
signed checkpoint, which a bare hash chain cannot: the signature and Merkle root must
verify (with the public key of --pub; without it, the key the checkpoint names), and
every chain the checkpoint names must still exist, reach its head, hold the same hash
at that seq and verify. It reports each chain MISSING, TRUNCATED (truncation or a
rollback to an older copy), REWRITTEN (hashes recomputed after a change) or BROKEN,
and exits 3 on any. With -o json the output is one object: checkpoint, created_at,
root, chains, signature, key_pinned, ok, findings (tenant_id, workflow_id, kind, seq,
problem).`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		tenant := fs.String("tenant", "", "verify only the chains of tenant `T`")
		checkpoint := fs.String("checkpoint", "", "prove the log still extends the signed checkpoint `FILE`")
		pub := fs.String("pub", "", "with --checkpoint: the signer's public key `FILE` (from keygen)")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if *checkpoint != "" {
				if len(args) > 0 || *tenant != "" {
					return usagef("verify --checkpoint checks every chain: no --tenant, no WORKFLOW")
				}
				if err := c.local("verify --checkpoint"); err != nil {
					return err
				}
				e, err := c.open(ctx, existingStore)
				if err != nil {
					return err
				}
				defer closeEngine(e, &err)
				return c.verifyCheckpoint(ctx, e, *checkpoint, *pub)
			}
			switch {
			case len(args) > 1:
				return usagef("verify takes at most one WORKFLOW id")
			case len(args) == 1 && *tenant == "":
				return usagef("verify WORKFLOW needs --tenant: every read is scoped by tenant")
			case c.server != "" && *tenant == "":
				return usagef("verify through --server needs --tenant: a token reads its tenant")
			}
			if c.server != "" {
				return c.verifyThrough(ctx, *tenant, args)
			}
			e, err := c.open(ctx, existingStore)
			if err != nil {
				return err
			}
			defer closeEngine(e, &err)
			var reps []store.VerifyReport
			if len(args) == 1 {
				rep, err := e.Verify(ctx, *tenant, args[0])
				if err != nil {
					return err
				}
				reps = append(reps, rep)
			} else {
				all, err := e.VerifyAll(ctx)
				if err != nil {
					return err
				}
				for _, rep := range all {
					if *tenant == "" || rep.Tenant == *tenant {
						reps = append(reps, rep)
					}
				}
			}
			return c.verified(*tenant, reps)
		}
	},
}

// verifyThrough verifies a tenant's chains, or one workflow's, through the server.
func (c *cli) verifyThrough(ctx context.Context, tenant string, args []string) (err error) {
	b, err := c.backend(ctx, existingStore)
	if err != nil {
		return err
	}
	defer closeBackend(b, &err)
	var reps []store.VerifyReport
	if len(args) == 1 {
		rep, err := b.Verify(ctx, tenant, args[0])
		if err != nil {
			return serverHint(err)
		}
		reps = append(reps, rep)
	} else if reps, err = b.VerifyTenant(ctx, tenant); err != nil {
		return serverHint(err)
	}
	return c.verified(tenant, reps)
}

// verifyLine is the JSON form of a store.VerifyReport.
type verifyLine struct {
	Tenant    string `json:"tenant"`
	Workflow  string `json:"workflow"`
	Records   uint64 `json:"records"`
	OK        bool   `json:"ok"`
	BrokenSeq uint64 `json:"broken_seq,omitempty"`
	Problem   string `json:"problem,omitempty"`
}

// verifyDocument is the JSON form of a verify run.
type verifyDocument struct {
	OK     bool         `json:"ok"`
	Broken int          `json:"broken"`
	Chains []verifyLine `json:"chains"`
}

func (c *cli) verified(tenant string, reps []store.VerifyReport) error {
	if tenant != "" && len(reps) == 0 {
		return unknownTenant(tenant)
	}
	broken := 0
	doc := verifyDocument{Chains: []verifyLine{}}
	t := newTable(c.stdout)
	for _, r := range reps {
		if !r.OK {
			broken++
		}
		if c.json() {
			doc.Chains = append(doc.Chains, verifyLine{r.Tenant, r.Workflow, r.Records, r.OK, r.BrokenSeq, r.Problem})
			continue
		}
		chain := r.Workflow
		switch {
		case chain == "" && strings.HasPrefix(r.Problem, "idempotency:"):
			chain = "(idempotency)"
		case chain == "":
			chain = "(audit)"
		}
		switch {
		case r.OK:
			fmt.Fprintf(t, "OK\t%s\t%s\t%s\n", r.Tenant, chain, count(r.Records, "record"))
		case r.BrokenSeq > 0:
			fmt.Fprintf(t, "BROKEN\t%s\t%s\tat seq %d: %s\n", r.Tenant, chain, r.BrokenSeq, r.Problem)
		default:
			fmt.Fprintf(t, "BROKEN\t%s\t%s\t%s\n", r.Tenant, chain, r.Problem)
		}
	}
	if c.json() {
		doc.OK, doc.Broken = broken == 0, broken
		if err := writeJSON(c.stdout, doc); err != nil {
			return err
		}
	} else {
		if len(reps) == 0 {
			fmt.Fprintln(c.stdout, "(no chains)")
		}
		t.flush()
	}
	if broken > 0 {
		return negativef("%d of %s broken: the log was altered outside the engine", broken, count(len(reps), "chain"))
	}
	return nil
}
