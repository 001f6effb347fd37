package webhook

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"time"
)

// attempt is what one POST came to.
type attempt struct {
	status     int           // the answer's status; 0 when there was none
	answer     string        // the attempts metric's label
	retryAfter time.Duration // the answer's Retry-After, 0 when none
}

// retryable says whether an event is sent again after this attempt: no answer (the
// connection failed or timed out), 5xx or 429.
func (a attempt) retryable() bool {
	return a.status == 0 || a.status >= 500 || a.status == http.StatusTooManyRequests
}

// deliver sends one event until a receiver takes it, refuses it, or its attempts, its
// age or the notifier's time run out.
func (n *Notifier) deliver(s *sender, j *job) {
	tenant, name := s.ep.Tenant, s.ep.Name
	for try := 1; ; try++ {
		if n.ctx.Err() != nil {
			n.ended(s, j, resultAbandoned, 0, try-1)
			return
		}
		if try > 1 {
			n.m.retries.WithLabelValues(tenant, name).Inc()
		}
		a := n.post(s, j)
		if a.status == 0 && n.ctx.Err() != nil {
			n.ended(s, j, resultAbandoned, 0, try) // cut by Close's deadline, not the receiver
			return
		}
		n.m.attempts.WithLabelValues(tenant, name, a.answer).Inc()
		switch {
		case a.status >= 200 && a.status < 300:
			n.delivered(s, j, a.status)
			return
		case !a.retryable():
			n.ended(s, j, resultRejected, a.status, try)
			return
		case try >= n.opts.MaxAttempts:
			n.ended(s, j, resultExhausted, a.status, try)
			return
		}
		wait := n.backoff(try)
		if a.retryAfter > wait {
			wait = a.retryAfter
		}
		if time.Since(j.queued)+wait > n.opts.MaxAge {
			n.ended(s, j, resultExhausted, a.status, try)
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-n.ctx.Done():
			t.Stop()
		}
	}
}

// post makes one attempt: the event's body signed now, with its id and type.
func (n *Notifier) post(s *sender, j *job) attempt {
	ctx, cancel := context.WithTimeout(n.ctx, n.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.ep.URL, bytes.NewReader(j.body))
	if err != nil {
		return attempt{answer: "error"}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "handoff-webhook/1")
	req.Header.Set(SignatureHeader, Sign(s.ep.secret, j.body, time.Now()))
	req.Header.Set(IDHeader, j.ev.ID)
	req.Header.Set(EventHeader, j.ev.Type)
	began := time.Now()
	resp, err := n.opts.Client.Do(req)
	n.m.latency.WithLabelValues(s.ep.Tenant, s.ep.Name).Observe(time.Since(began).Seconds())
	if err != nil {
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
			return attempt{answer: "timeout"}
		}
		return attempt{answer: "error"}
	}
	// Read a little of the answer so that the connection is kept; nothing of it is used.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	a := attempt{status: resp.StatusCode, retryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
	switch {
	case a.status == http.StatusTooManyRequests:
		a.answer = "429"
	default:
		a.answer = strconv.Itoa(a.status/100) + "xx"
	}
	return a
}

// retryAfter reads a Retry-After header: seconds or an HTTP date. 0 when absent or
// unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0
		}
		return time.Duration(min(secs, 1<<30)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// backoff is the wait after the try-th attempt failed: MinBackoff doubled per attempt,
// at most MaxBackoff, its second half random.
func (n *Notifier) backoff(try int) time.Duration {
	d := n.opts.MinBackoff
	for i := 1; i < try && d < n.opts.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, n.opts.MaxBackoff)
	return d/2 + rand.N(d/2+1)
}

// delivered records an event its receiver took. A record that fails is logged: the
// next sweep may send that gate once more.
func (n *Notifier) delivered(s *sender, j *job, status int) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(n.ctx), 10*time.Second)
	defer cancel()
	err := n.opts.Deliveries.Record(ctx, Delivery{Tenant: s.ep.Tenant, ID: j.ev.ID, Endpoint: s.ep.Name, Type: j.ev.Type,
		DecisionID: j.ev.DecisionID, WorkflowID: j.ev.WorkflowID, Status: status, DeliveredAt: time.Now().UTC()})
	if err != nil {
		n.opts.Logger.Error("webhook delivered but not recorded: it may be sent again", "tenant_id", s.ep.Tenant, "endpoint", s.ep.Name,
			"event_id", j.ev.ID, "decision_id", j.ev.DecisionID, "error", err)
	}
	n.m.deliveries.WithLabelValues(s.ep.Tenant, s.ep.Name, resultDelivered).Inc()
}

// ended counts and logs an event that was not delivered. An exhausted one asks for a
// sweep: a gate that still waits is sent again then.
func (n *Notifier) ended(s *sender, j *job, result string, status, tries int) {
	n.m.deliveries.WithLabelValues(s.ep.Tenant, s.ep.Name, result).Inc()
	n.opts.Logger.Warn("webhook not delivered", "tenant_id", s.ep.Tenant, "endpoint", s.ep.Name, "result", result,
		"status", status, "attempts", tries, "event_id", j.ev.ID, "type", j.ev.Type, "decision_id", j.ev.DecisionID, "workflow_id", j.ev.WorkflowID)
	if result == resultExhausted {
		n.askSweep()
	}
}
