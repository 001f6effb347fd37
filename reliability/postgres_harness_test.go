package reliability

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/internal/syncbuf"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/postgres"
)

// The PostgreSQL suites run engines in separate processes on one database, as a
// deployment of several hosts does: nothing but the database is shared between them.

func init() {
	children["pgsubmit"] = pgSubmitChild
	children["pgload"] = pgLoadChild
}

// childTimeout bounds the wait for a child's next line: far beyond what any step takes,
// it turns a hung child into a failure that shows its stderr instead of the suite's
// timeout.
const childTimeout = 2 * time.Minute

// pgSchema gives the test an empty schema of its own in the test database, migrated.
func pgSchema(t *testing.T) string {
	t.Helper()
	u := pgtest.URL(t)
	_, err := postgres.Migrate(context.Background(), store.Options{URL: u})
	require.NoError(t, err, "migrate")
	return u
}

// openPostgres opens an engine of this process on the store at u: the parent sets
// workflows up and checks them with it while children write.
func openPostgres(t testing.TB, u string) *engine.Engine {
	t.Helper()
	eng, err := engine.Open(context.Background(), engine.Options{StoreURL: u, EvalTimeout: testEvalTimeout, LazyPolicies: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = eng.Close() })
	return eng
}

// openChildEngine is the engine a child opens on the store HANDOFF_STORE_URL names.
func openChildEngine(ctx context.Context) (*engine.Engine, error) {
	return engine.Open(ctx, engine.Options{StoreURL: os.Getenv("HANDOFF_STORE_URL"), EvalTimeout: testEvalTimeout, LazyPolicies: true})
}

// verifyStore verifies every chain of the store at the end of a suite: each workflow
// with its snapshot and idempotency keys, and each tenant's audit stream.
func verifyStore(t *testing.T, eng *engine.Engine) {
	t.Helper()
	reps, err := eng.VerifyAll(context.Background())
	require.NoError(t, err)
	require.NotEmpty(t, reps)
	for _, r := range reps {
		require.True(t, r.OK, "chain %s/%s broken at %d: %s", r.Tenant, r.Workflow, r.BrokenSeq, r.Problem)
	}
}

// pgChild is the test binary running as a child role on the store at a URL: its stdin
// stays open until finish closes it (a child stops when it ends), and its stdout is read
// line by line.
type pgChild struct {
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string   // complete lines of its stdout, closed when it ends; a torn last line is dropped
	eof    chan struct{} // closed once its stdout ended and every line is in lines
	stderr *syncbuf.Buffer
}

// startPgChild starts the test binary as role on the store at u, with env added. It is
// killed, if still running, when the test ends (before the schema is dropped).
func startPgChild(t *testing.T, name, role, u string, env ...string) *pgChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"HANDOFF_CHILD=" + role, "HANDOFF_STORE_URL=" + u}, env...)...)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	c := &pgChild{name: name, cmd: cmd, stdin: stdin, lines: make(chan string, 256), eof: make(chan struct{}), stderr: &syncbuf.Buffer{}}
	cmd.Stderr = c.stderr
	require.NoError(t, cmd.Start())
	go func() {
		defer close(c.eof)
		defer close(c.lines)
		r := bufio.NewReaderSize(stdout, 1<<16)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			c.lines <- strings.TrimSuffix(line, "\n")
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return c
}

// next is the child's next line; it fails t when the child ended or said nothing for
// childTimeout.
func (c *pgChild) next(t *testing.T) string {
	t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			t.Fatalf("%s ended: %s", c.name, tail(c.stderr))
		}
		return line
	case <-time.After(childTimeout):
		t.Fatalf("%s said nothing for %v: %s", c.name, childTimeout, tail(c.stderr))
	}
	return ""
}

// send writes one line to the child's stdin.
func (c *pgChild) send(t *testing.T, format string, args ...any) {
	t.Helper()
	_, err := fmt.Fprintf(c.stdin, format+"\n", args...)
	require.NoError(t, err, "%s: %s", c.name, tail(c.stderr))
}

// finish closes the child's stdin, which tells it to stop, and checks that it exits 0.
// Whoever reads its lines gets them all.
func (c *pgChild) finish(t *testing.T) {
	t.Helper()
	require.NoError(t, c.stdin.Close())
	c.waitEOF(t)
	require.NoError(t, c.cmd.Wait(), "%s: %s", c.name, tail(c.stderr))
}

// kill9 kills the child with SIGKILL and waits for its stdout to end.
func (c *pgChild) kill9(t *testing.T) {
	t.Helper()
	require.NoError(t, c.cmd.Process.Kill())
	c.waitEOF(t)
	_ = c.cmd.Wait()
}

// waitEOF waits until the child's stdout has ended and been read: Wait closes it.
func (c *pgChild) waitEOF(t *testing.T) {
	t.Helper()
	select {
	case <-c.eof:
	case <-time.After(childTimeout):
		t.Fatalf("%s: stdout still open %v after it was told to stop: %s", c.name, childTimeout, tail(c.stderr))
	}
}

// tail is the end of what was written to b, for messages.
func tail(b *syncbuf.Buffer) string {
	s := b.String()
	if len(s) > 4000 {
		s = "…" + s[len(s)-4000:]
	}
	return s
}

// oneLine is an error as one line of a child's protocol; a store that cannot reach its
// database says so first.
func oneLine(err error) string {
	s := strings.ReplaceAll(err.Error(), "\n", " ")
	if errors.Is(err, store.ErrUnavailable) {
		return "[unavailable] " + s
	}
	return s
}

// The submit child's protocol. On stdin:
//
//	B <body, base64>   queue a request
//	G                  submit every queued request at once, one goroutine each
//
// and on stdout, READY once its engine is open, then for each G one line per queued
// request, in the order queued, and DONE:
//
//	A <decision JSON, base64>   Submit returned this decision
//	E <error>                   Submit returned an error
//
// It closes its engine and exits when its stdin ends.

// pgSubmitChild opens an engine on the store HANDOFF_STORE_URL names and submits what
// its parent sends it.
func pgSubmitChild() int {
	ctx := context.Background()
	eng, err := openChildEngine(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer eng.Close()
	if err := warmUp(ctx, eng); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, "READY")
	if err := out.Flush(); err != nil {
		return 1
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<16), 64<<20)
	var bodies [][]byte
	for in.Scan() {
		cmd, arg, _ := strings.Cut(in.Text(), " ")
		switch cmd {
		case "B":
			b, err := base64.StdEncoding.DecodeString(arg)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			bodies = append(bodies, b)
		case "G":
			answers := make([]string, len(bodies))
			together(len(bodies), func(i int) {
				d, err := eng.Submit(ctx, bodies[i])
				if err != nil {
					answers[i] = "E " + oneLine(err)
					return
				}
				b, err := json.Marshal(d)
				if err != nil {
					answers[i] = "E " + oneLine(err)
					return
				}
				answers[i] = "A " + base64.StdEncoding.EncodeToString(b)
			})
			for _, a := range answers {
				fmt.Fprintln(out, a)
			}
			fmt.Fprintln(out, "DONE")
			if err := out.Flush(); err != nil {
				return 1
			}
			bodies = nil
		default:
			fmt.Fprintf(os.Stderr, "unknown command %q\n", cmd)
			return 1
		}
	}
	return 0
}

// startSubmitters starts n submit children on the store at u and waits until each has
// its engine open.
func startSubmitters(t *testing.T, u string, n int) []*pgChild {
	t.Helper()
	kids := make([]*pgChild, n)
	for i := range kids {
		kids[i] = startPgChild(t, fmt.Sprintf("process %d", i), "pgsubmit", u)
	}
	for _, c := range kids {
		require.Equal(t, "READY", c.next(t), "%s: first line", c.name)
	}
	return kids
}

// pgAnswer is what one Submit in a child returned: a decision, as the child encoded it,
// or an error.
type pgAnswer struct {
	raw      []byte
	decision *engine.Decision
	err      string
}

// submitTogether queues bodies[i] in child i, then lets every child go: each submits
// its requests at once, within microseconds of the others. It returns the answers of
// child i in the order of bodies[i].
func submitTogether(t *testing.T, kids []*pgChild, bodies [][][]byte) [][]pgAnswer {
	t.Helper()
	for i, c := range kids {
		for _, b := range bodies[i] {
			c.send(t, "B %s", base64.StdEncoding.EncodeToString(b))
		}
	}
	// The requests are queued and decoded first so that the go lines reach the children
	// back to back.
	for _, c := range kids {
		c.send(t, "G")
	}
	answers := make([][]pgAnswer, len(kids))
	for i, c := range kids {
		for range bodies[i] {
			kind, arg, _ := strings.Cut(c.next(t), " ")
			switch kind {
			case "A":
				raw, err := base64.StdEncoding.DecodeString(arg)
				require.NoError(t, err)
				d, err := decodeAnswer(raw)
				require.NoError(t, err, "%s: %s", c.name, raw)
				answers[i] = append(answers[i], pgAnswer{raw: raw, decision: d})
			case "E":
				answers[i] = append(answers[i], pgAnswer{err: arg})
			default:
				t.Fatalf("%s: got line %q, want an answer", c.name, kind)
			}
		}
		require.Equal(t, "DONE", c.next(t), "%s: line after its answers", c.name)
	}
	return answers
}

func decodeAnswer(raw []byte) (*engine.Decision, error) {
	var d engine.Decision
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		return nil, err
	}
	return &d, nil
}

// The load child's protocol is the crash child's (READY, S, A and E lines), E's error
// marked "[unavailable]" when it matches store.ErrUnavailable, and one more line:
//
//	X <error>   the workflow's state could not be read to build its next request
//
// A request whose Submit failed is sent again, the same bytes, after a pause: a client
// that got no answer retries with the same request_id.

// A load child's writers and the workflows they play, in crashTenants tenants. An
// engine makes 2 × GOMAXPROCS decisions at once: more writers would only queue.
const (
	pgLoadWriters   = 8
	pgLoadWorkflows = 32
)

// pgLoadChild plays campaign scenarios on the store HANDOFF_STORE_URL names with
// pgLoadWriters writers over pgLoadWorkflows workflows, as crashChild does, until it is
// killed or its stdin ends. Workflow ids carry HANDOFF_RUN.
func pgLoadChild() int {
	ctx := context.Background()
	run := os.Getenv("HANDOFF_RUN")
	seed, _ := strconv.ParseUint(os.Getenv("HANDOFF_SEED"), 10, 64)
	eng, err := openChildEngine(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var outMu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	emit := func(format string, args ...any) {
		outMu.Lock()
		fmt.Fprintf(out, format+"\n", args...)
		_ = out.Flush()
		outMu.Unlock()
	}
	// The campaign pack is compiled when first needed: a dry run does it before READY,
	// so that a kill lands on writes rather than on the compiler.
	if err := warmUp(ctx, eng); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	stop := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stop)
	}()
	emit("READY")
	// A failed call is tried again after a pause: writers spinning on a database that
	// is away would only take the CPU its restart needs.
	const pause = 20 * time.Millisecond
	var wg sync.WaitGroup
	for w := range pgLoadWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			per := pgLoadWorkflows / pgLoadWriters
			gen := 0
			newPlay := func(slot int) *play {
				gen++
				f, err := readFlow(campaignFlows[rng.IntN(len(campaignFlows))])
				if err != nil {
					panic(err)
				}
				tenant := fmt.Sprintf("tenant-%d", (w*per+slot)%crashTenants)
				return &play{f: f, tenant: tenant, workflow: fmt.Sprintf("r%s.w%d.s%d.g%d", run, w, slot, gen)}
			}
			plays := make([]*play, per)
			pending := make([][]byte, per) // a slot's request whose Submit failed
			for slot := range per {
				plays[slot] = newPlay(slot)
			}
			for {
				select {
				case <-stop:
					return
				default:
				}
				slot := rng.IntN(per)
				body := pending[slot]
				if body == nil {
					if plays[slot].done() {
						plays[slot] = newPlay(slot)
					}
					var err error
					if body, err = plays[slot].body(ctx, eng); err != nil {
						emit("X %s", oneLine(err))
						time.Sleep(pause)
						continue
					}
				}
				p := plays[slot]
				rid := requestIDOf(body)
				emit("S %s %s %s %s", p.tenant, p.workflow, rid, base64.StdEncoding.EncodeToString(body))
				d, err := p.submit(ctx, eng, body)
				if err != nil {
					emit("E %s %s", rid, oneLine(err))
					pending[slot] = body
					time.Sleep(pause)
					continue
				}
				pending[slot] = nil
				b, _ := json.Marshal(d)
				emit("A %s %s", rid, base64.StdEncoding.EncodeToString(b))
				_ = p.observe(d)
			}
		}()
	}
	wg.Wait()
	if err := eng.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// warmUp evaluates the start of a campaign workflow, recording nothing.
func warmUp(ctx context.Context, eng *engine.Engine) error {
	f, err := readFlow("01-happy-path")
	if err != nil {
		return err
	}
	body, err := f.step(ctx, eng, 0, "tenant-0", "warm-up", 0)
	if err != nil {
		return err
	}
	_, err = eng.Evaluate(ctx, body)
	return err
}

// loadRun is what the parent learned from a load child, read as its lines arrive.
type loadRun struct {
	mu        sync.Mutex
	ready     bool
	sent      map[string]sentRequest
	acked     map[string][]byte // request_id → the decision, as the child encoded it
	order     []string          // request ids in the order first sent
	failed    map[string]string // request_id → the last error its Submit returned
	errs      []string          // E lines
	readErrs  []string          // X lines
	lines     int
	mark      int // lines read when mark was last set
	sentAt    map[string]int
	freshAcks int // acks of requests sent after the mark
	readyCh   chan struct{}
	done      chan struct{}
}

// readLoad reads c's lines into a loadRun until c's stdout ends.
func readLoad(c *pgChild) *loadRun {
	lr := &loadRun{sent: map[string]sentRequest{}, acked: map[string][]byte{}, failed: map[string]string{},
		sentAt: map[string]int{}, readyCh: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(lr.done)
		for line := range c.lines {
			lr.parse(line)
		}
	}()
	return lr
}

func (lr *loadRun) parse(line string) {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	lr.lines++
	f := strings.SplitN(line, " ", 5)
	switch f[0] {
	case "READY":
		lr.ready = true
		close(lr.readyCh)
	case "S":
		body, _ := base64.StdEncoding.DecodeString(f[4])
		if _, again := lr.sent[f[3]]; !again {
			lr.order = append(lr.order, f[3])
		}
		lr.sent[f[3]] = sentRequest{tenant: f[1], workflow: f[2], body: body}
		lr.sentAt[f[3]] = lr.lines
	case "A":
		d, _ := base64.StdEncoding.DecodeString(f[2])
		lr.acked[f[1]] = d
		if lr.sentAt[f[1]] > lr.mark {
			lr.freshAcks++
		}
	case "E":
		lr.errs = append(lr.errs, line)
		_, msg, _ := strings.Cut(line[2:], " ")
		lr.failed[f[1]] = msg
	case "X":
		lr.readErrs = append(lr.readErrs, line)
	}
}

// setMark starts counting acks of the requests sent from now on.
func (lr *loadRun) setMark() {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	lr.mark, lr.freshAcks = lr.lines, 0
}

// acksSinceMark is how many requests sent after the mark were answered.
func (lr *loadRun) acksSinceMark() int {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	return lr.freshAcks
}

// waitReady waits for the child's READY line, failing t after childTimeout.
func (lr *loadRun) waitReady(t *testing.T, c *pgChild) {
	t.Helper()
	select {
	case <-lr.readyCh:
	case <-lr.done:
		t.Fatalf("%s ended before its engine was open: %s", c.name, tail(c.stderr))
	case <-time.After(childTimeout):
		t.Fatalf("%s not ready after %v: %s", c.name, childTimeout, tail(c.stderr))
	}
}

// checkPgLog checks the store after what runs did to it, as checkAfterCrash checks a
// directory: every chain (of the store with full set, else of the workflows the runs
// wrote to) verifies and holds whole decisions with contiguous state versions matching
// head and snapshot; every acknowledged request is recorded and answered again byte for
// byte; every other request sent (in flight at a kill, or failed) is recorded whole or
// not at all, and a recorded one is answered from its record. where names the check in
// messages. Runs must have ended.
func checkPgLog(t *testing.T, eng *engine.Engine, where string, runs []*loadRun, full bool) (acked, unanswered, recordedUnanswered int) {
	t.Helper()
	ctx := context.Background()
	touched := map[string]bool{}
	for _, lr := range runs {
		for _, s := range lr.sent {
			touched[s.tenant+"/"+s.workflow] = true
		}
	}
	recorded := checkChains(t, eng, where, touched, full)

	for _, lr := range runs {
		for _, rid := range lr.order {
			s := lr.sent[rid]
			want, wasAcked := lr.acked[rid]
			rec, isRecorded := recorded[rid]
			if wasAcked {
				acked++
				require.True(t, isRecorded, "%s: acknowledged request %s is missing", where, rid)
			} else {
				unanswered++
				if isRecorded {
					recordedUnanswered++
				}
			}
			if isRecorded {
				require.Equal(t, s.workflow, rec.WorkflowID)
				require.Equal(t, s.tenant, rec.TenantID)
			}
			d, err := eng.Submit(ctx, s.body)
			require.NoError(t, err)
			got, err := json.Marshal(d)
			require.NoError(t, err)
			switch {
			case wasAcked:
				require.Equal(t, string(want), string(got), "%s: request %s answered differently when sent again", where, rid)
				fallthrough
			case isRecorded:
				fromLog, err := json.Marshal(rec)
				require.NoError(t, err)
				require.Equal(t, string(fromLog), string(got), "%s: request %s: idempotency record and log disagree", where, rid)
			}
		}
	}
	return acked, unanswered, recordedUnanswered
}
