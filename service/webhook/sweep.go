package webhook

import (
	"context"
	"fmt"
	"time"

	"github.com/handoff-dev/handoff/engine"
)

// askSweep asks for a sweep after SweepDelay; asks made before it starts coalesce.
func (n *Notifier) askSweep() {
	select {
	case n.sweepAsked <- struct{}{}:
	default:
	}
}

// sweepLoop sweeps at start, then after SweepDelay each time one is asked for, until
// Close. A sweep that fails asks for the next.
func (n *Notifier) sweepLoop() {
	defer n.sweeper.Done()
	n.sweepOnce()
	for {
		select {
		case <-n.stopSweeps:
			return
		case <-n.sweepAsked:
		}
		t := time.NewTimer(n.opts.SweepDelay)
		select {
		case <-n.stopSweeps:
			t.Stop()
			return
		case <-t.C:
		}
		n.sweepOnce()
	}
}

func (n *Notifier) sweepOnce() {
	if err := n.Sweep(n.sweepCtx); err != nil {
		n.m.sweeps.WithLabelValues("error").Inc()
		if n.sweepCtx.Err() == nil {
			n.opts.Logger.Error("webhook sweep failed: it is tried again", "error", err)
			n.askSweep()
		}
		return
	}
	n.m.sweeps.WithLabelValues("ok").Inc()
}

// Sweep queues the await_human event of every workflow of a configured tenant that
// waits for a person (its standing decision is await_human), for each endpoint that
// receives them, unless its delivery is recorded or it is queued already. It pages the
// summaries of those tenants' waiting workflows, and reads each one's standing
// decision. The notifier sweeps by itself at start and after a drop; Sweep is for a host
// that wants one more.
func (n *Notifier) Sweep(ctx context.Context) error {
	for tenant, senders := range n.byTenant {
		var gates []*sender
		for _, s := range senders {
			if s.ep.wants(EventAwaitHuman) {
				gates = append(gates, s)
			}
		}
		if len(gates) == 0 {
			continue
		}
		if err := n.sweepTenant(ctx, tenant, gates); err != nil {
			return fmt.Errorf("webhook: sweep of tenant %s: %w", tenant, err)
		}
	}
	return nil
}

// sweepTenant pages the tenant's workflows that wait for a person (engine.WaitingAnyone,
// read from the store's summaries), then reads each one's standing decision.
func (n *Notifier) sweepTenant(ctx context.Context, tenant string, gates []*sender) error {
	var waiting []string
	q := engine.WorkflowQuery{Waiting: engine.WaitingAnyone, Limit: engine.MaxPageSize}
	for {
		page, err := n.e.FindWorkflows(ctx, tenant, q)
		if err != nil {
			return err
		}
		for _, row := range page.Rows {
			waiting = append(waiting, row.WorkflowID)
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	for _, wf := range waiting {
		d, err := n.e.Standing(ctx, tenant, wf)
		if err != nil {
			return err
		}
		if d == nil || d.Outcome != engine.AwaitHuman || d.TenantID != tenant {
			continue // it moved on since its head was read, or never waited
		}
		for _, s := range gates {
			if err := n.resend(ctx, s, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// resend queues a gate's event for an endpoint unless it is on its way or delivered.
func (n *Notifier) resend(ctx context.Context, s *sender, d *engine.Decision) error {
	ev := newEvent(s.ep, EventAwaitHuman, d)
	s.mu.Lock()
	onItsWay := s.inflight[ev.ID]
	s.mu.Unlock()
	if onItsWay {
		return nil
	}
	done, err := n.opts.Deliveries.Delivered(ctx, s.ep.Tenant, ev.ID)
	if err != nil || done {
		return err
	}
	if n.enqueue(s, ev) {
		n.m.swept.WithLabelValues(s.ep.Tenant, s.ep.Name).Inc()
	}
	return nil
}
