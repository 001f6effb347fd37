package governance

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine/internal/pipeline"
)

// ShadowOptions configure a Shadow.
type ShadowOptions struct {
	// Log is the file the disagreements are appended to, one JSON object per line
	// (created when missing, kept when present). Required.
	Log string
	// Queue is how many recorded decisions may wait for the candidate; past it a
	// decision is dropped and counted. Default 4096.
	Queue int
	// Logger receives the errors of deciding again. Nil is silent.
	Logger *slog.Logger
}

// Shadow decides every recorded decision again with a candidate bundle, in the
// background, exactly as Replay decides it (Ledger.ReplayRecord: the recorded request on
// the state before it, at its recorded time), and appends every decision the candidate
// would change to its log. It never touches the live decision: Offer only queues it, and
// a full queue drops it (counted).
type Shadow struct {
	live      func() *Ledger // the live bundle's ledger, read per decision
	candidate *pipeline.Pipeline
	logger    *slog.Logger
	queue     chan *handoff.Decision
	stop      chan struct{}
	done      chan struct{}
	stopOnce  sync.Once
	stopped   atomic.Bool

	logMu sync.Mutex
	log   *os.File
	path  string

	offered, handled                                       atomic.Uint64
	agreed, disagreed, unchanged, skipped, dropped, failed atomic.Uint64

	countsMu sync.Mutex
	counts   map[DisagreementKey]uint64
}

// DisagreementKey labels the disagreements counted: the pack and kind of the decision,
// and one code that differs (ShadowDisagreement.Differences).
type DisagreementKey struct{ Pack, Kind, Code string }

// ShadowStats are a Shadow's counters.
type ShadowStats struct {
	CandidateDigest string `json:"candidate_digest"`
	LiveDigest      string `json:"live_digest"`
	// Running is false once the shadow stopped (closed or promoted).
	Running bool `json:"running"`
	// Decided counts the decisions the candidate decided again: Agreed plus Disagreed.
	Decided   uint64 `json:"decided"`
	Agreed    uint64 `json:"agreed"`
	Disagreed uint64 `json:"disagreed"`
	// Unchanged counts the decisions of packs the candidate does not change, made by the
	// live bundle: the same files decide them alike, so they are not decided again.
	Unchanged uint64 `json:"unchanged"`
	// Skipped counts the decisions no bundle can decide again: a request recorded
	// redacted, or blocked by the engine before any policy was asked.
	Skipped uint64 `json:"skipped"`
	// Dropped counts the decisions the full queue turned away.
	Dropped uint64 `json:"dropped"`
	// Errors counts the decisions that could not be decided again (logged).
	Errors uint64 `json:"errors"`
	// Pending is how many decisions were queued and not yet handled; QueueDepth how
	// many of them wait in the queue, of QueueCapacity.
	Pending       uint64 `json:"pending"`
	QueueDepth    int    `json:"queue_depth"`
	QueueCapacity int    `json:"queue_capacity"`
}

// ShadowDisagreement is one line of the shadow log: a recorded decision and the
// candidate's, which differ.
type ShadowDisagreement struct {
	Tenant     string `json:"tenant_id"`
	Workflow   string `json:"workflow_id"`
	Seq        uint64 `json:"seq"`
	Audit      bool   `json:"audit"` // a blocked start, in the tenant's audit stream
	DecisionID string `json:"decision_id"`
	Pack       string `json:"pack"`
	Kind       string `json:"kind"`
	RequestID  string `json:"request_id"`
	RecordedAt string `json:"recorded_at"`
	// Fields are the decision's fields that differ (ReplayResult.Changed).
	Fields            []string   `json:"fields"`
	ValidationChanged bool       `json:"validation_changed"`
	Live              ShadowSide `json:"live"`
	Candidate         ShadowSide `json:"candidate"`
}

// ShadowSide is one bundle's decision in a disagreement.
type ShadowSide struct {
	Outcome      handoff.Outcome  `json:"outcome"`
	Codes        []string         `json:"codes"`
	Reasons      []handoff.Reason `json:"reasons"`
	Next         []ShadowNext     `json:"next"`
	StatusAfter  string           `json:"status_after"`
	BundleDigest string           `json:"bundle_digest"`
}

// ShadowNext is one routing answer of a decision: who is asked to do what.
type ShadowNext struct {
	Agent string `json:"agent"`
	Task  string `json:"task"`
}

func shadowSide(d *handoff.Decision) ShadowSide {
	s := ShadowSide{Outcome: d.Outcome, Codes: d.Codes(), Reasons: d.Reasons, Next: []ShadowNext{},
		StatusAfter: d.StatusAfter, BundleDigest: d.Policy.BundleDigest}
	if s.Codes == nil {
		s.Codes = []string{}
	}
	if s.Reasons == nil {
		s.Reasons = []handoff.Reason{}
	}
	for _, n := range d.Next {
		s.Next = append(s.Next, ShadowNext{Agent: n.Agent, Task: n.Task})
	}
	return s
}

// Differences are the codes a disagreement is counted by: each reason code one
// decision gives more often than the other, "outcome:FROM->TO" when the outcome flips,
// "next" when the routing differs, and "field:NAME" for each other field that differs
// when none of those does.
func (d ShadowDisagreement) Differences() []string {
	var out []string
	left := slices.Clone(d.Candidate.Codes)
	for _, c := range d.Live.Codes {
		if i := slices.Index(left, c); i >= 0 {
			left = slices.Delete(left, i, i+1)
		} else if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for _, c := range left {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	if d.Live.Outcome != d.Candidate.Outcome {
		out = append(out, fmt.Sprintf("outcome:%s->%s", d.Live.Outcome, d.Candidate.Outcome))
	}
	if !slices.Equal(d.Live.Next, d.Candidate.Next) {
		out = append(out, "next")
	}
	if len(out) == 0 {
		for _, f := range d.Fields {
			out = append(out, "field:"+f)
		}
	}
	return out
}

// NewShadow starts a shadow deciding with candidate, beside the bundle of the ledger
// live returns (read for each decision, so that the state before a decision is rebuilt
// with the bundle that recorded it). Close stops it.
func NewShadow(live func() *Ledger, candidate *pipeline.Pipeline, opts ShadowOptions) (*Shadow, error) {
	if opts.Log == "" {
		return nil, errors.New("engine: shadow: a log file is required")
	}
	if opts.Queue <= 0 {
		opts.Queue = 4096
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	f, err := os.OpenFile(opts.Log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("engine: shadow log: %w", err)
	}
	s := &Shadow{live: live, candidate: candidate, logger: opts.Logger, log: f, path: opts.Log,
		queue: make(chan *handoff.Decision, opts.Queue), stop: make(chan struct{}), done: make(chan struct{}),
		counts: map[DisagreementKey]uint64{}}
	go s.work()
	return s, nil
}

// Offer queues a recorded decision for the candidate, or drops it when the queue is
// full: it never blocks. It is an Engine.OnRecorded listener.
func (s *Shadow) Offer(d *handoff.Decision) {
	if s.stopped.Load() {
		return
	}
	s.offered.Add(1) // before the send, so that Pending never misses a queued decision
	select {
	case s.queue <- d:
	default:
		s.offered.Add(^uint64(0))
		s.dropped.Add(1)
	}
}

func (s *Shadow) work() {
	defer close(s.done)
	for {
		select {
		case <-s.stop:
			return
		case d := <-s.queue:
			began := time.Now()
			s.decide(d)
			s.handled.Add(1)
			// Rest as long as the decision took: the shadow takes at most half a CPU
			// from the live decisions, and drops what it cannot keep up with.
			select {
			case <-s.stop:
				return
			case <-time.After(time.Since(began)):
			}
		}
	}
}

// decide decides one recorded decision again and records a disagreement.
func (s *Shadow) decide(d *handoff.Decision) {
	res, ok, err := s.live().ReplayRecord(context.Background(), s.candidate, d.DecisionID, ReplayOptions{SkipUnchanged: true})
	switch {
	case err != nil:
		s.failed.Add(1)
		s.logger.Error("shadow: the candidate could not decide again", "decision_id", d.DecisionID, "tenant_id", d.TenantID, "error", err)
		return
	case !ok || res.Skipped == "redacted":
		s.skipped.Add(1)
		return
	case res.Skipped != "":
		s.unchanged.Add(1)
		return
	case len(res.Changed) == 0:
		s.agreed.Add(1)
		return
	}
	dis := ShadowDisagreement{Tenant: res.Tenant, Workflow: res.Workflow, Seq: res.Seq, Audit: res.Audit,
		DecisionID: res.Recorded.DecisionID, Pack: res.Recorded.Pack, Kind: res.Recorded.Kind, RequestID: res.Recorded.RequestID,
		RecordedAt: res.Recorded.DecidedAt, Fields: res.Changed, ValidationChanged: res.ValidationChanged,
		Live: shadowSide(res.Recorded), Candidate: shadowSide(res.Replayed)}
	if err := s.append(dis); err != nil {
		s.failed.Add(1)
		s.logger.Error("shadow: the log could not be written", "path", s.path, "error", err)
		return
	}
	s.disagreed.Add(1)
	s.countsMu.Lock()
	for _, c := range dis.Differences() {
		s.counts[DisagreementKey{Pack: dis.Pack, Kind: dis.Kind, Code: c}]++
	}
	s.countsMu.Unlock()
}

func (s *Shadow) append(dis ShadowDisagreement) error {
	b, err := json.Marshal(dis)
	if err != nil {
		return err
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	_, err = s.log.Write(append(b, '\n'))
	return err
}

// Disagreements gives fn every disagreement of the log, oldest first, of tenant and
// pack when they are set; the log holds those of earlier runs too (each names its
// candidate's bundle digest).
func (s *Shadow) Disagreements(tenant, pack string, fn func(ShadowDisagreement) error) error {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return ReadShadowLog(s.path, tenant, pack, fn)
}

// ReadShadowLog gives fn every disagreement of the shadow log at path, oldest first, of
// tenant and pack when they are set.
func ReadShadowLog(path, tenant, pack string, fn func(ShadowDisagreement) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return DecodeShadowLog(f, tenant, pack, fn)
}

// DecodeShadowLog reads a shadow log (NDJSON) from r; see ReadShadowLog.
func DecodeShadowLog(r io.Reader, tenant, pack string, fn func(ShadowDisagreement) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var d ShadowDisagreement
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return fmt.Errorf("shadow log line %d: %w", n, err)
		}
		if (tenant == "" || d.Tenant == tenant) && (pack == "" || d.Pack == pack) {
			if err := fn(d); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

// Stats reads the counters.
func (s *Shadow) Stats() ShadowStats {
	st := ShadowStats{CandidateDigest: s.candidate.Digest(), LiveDigest: s.live().p.Digest(), Running: !s.stopped.Load(),
		Agreed: s.agreed.Load(), Disagreed: s.disagreed.Load(), Unchanged: s.unchanged.Load(), Skipped: s.skipped.Load(),
		Dropped: s.dropped.Load(), Errors: s.failed.Load(), QueueDepth: len(s.queue), QueueCapacity: cap(s.queue)}
	st.Decided = st.Agreed + st.Disagreed
	if handled, offered := s.handled.Load(), s.offered.Load(); offered > handled {
		st.Pending = offered - handled
	}
	return st
}

// DisagreementCounts copies the disagreements counted by pack, kind and code.
func (s *Shadow) DisagreementCounts() map[DisagreementKey]uint64 {
	s.countsMu.Lock()
	defer s.countsMu.Unlock()
	out := make(map[DisagreementKey]uint64, len(s.counts))
	for k, v := range s.counts {
		out[k] = v
	}
	return out
}

// Stop stops deciding: decisions still queued are left undecided, and Offer takes no
// more. It waits for the decision in hand.
func (s *Shadow) Stop() {
	s.stopOnce.Do(func() {
		s.stopped.Store(true)
		close(s.stop)
	})
	<-s.done
}

// Close stops the shadow and closes its log.
func (s *Shadow) Close() error {
	s.Stop()
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return s.log.Close()
}
