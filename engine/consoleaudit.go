package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/handoff-dev/handoff/engine/governance"
	"github.com/handoff-dev/handoff/store"
)

// ConsoleEvent is governance.ConsoleEvent: what the review console records of the people
// who sign in to it, in their tenant's audit stream.
type ConsoleEvent = governance.ConsoleEvent

// The console's events.
const (
	ConsoleSignin        = governance.ConsoleSignin
	ConsoleSignout       = governance.ConsoleSignout
	ConsoleSignoutAll    = governance.ConsoleSignoutAll
	ConsoleSigninRefused = governance.ConsoleSigninRefused
	ConsoleFormRefused   = governance.ConsoleFormRefused
)

// AuditItem is one record of a tenant's audit stream: a console event or a security
// record (a request too broken to trust), never both.
type AuditItem struct {
	Seq      uint64
	Time     time.Time
	Console  *ConsoleEvent
	Security *Entry
}

// RecordConsoleEvent appends ev to tenant's audit stream at t, indexed under ev.ID when
// it has one: an id recorded already fails with a *store.DuplicateIDError and nothing is
// written. It returns once the record is durable.
func (e *Engine) RecordConsoleEvent(ctx context.Context, tenant string, ev ConsoleEvent, t time.Time) (uint64, error) {
	if tenant == "" {
		return 0, fmt.Errorf("engine: console event %s: no tenant", ev.Event)
	}
	payload, err := governance.EncodeConsoleEvent(ev)
	if err != nil {
		return 0, err
	}
	rec, err := e.log.Audit(ctx, tenant, store.NewRecord{Type: governance.ConsoleRecordType(ev.Event), Payload: payload, ID: ev.ID}, t)
	if err != nil {
		return 0, err
	}
	return rec.Seq, nil
}

// ConsoleRecorded reports whether a record of tenant's audit stream holds id, with one
// read of the record index. An id held by a record of another chain (another tenant's, a
// workflow's) fails with store.ErrTampered: the console ids are its own, and a caller
// asking whether a session was ended must not take that for a no.
func (e *Engine) ConsoleRecorded(ctx context.Context, tenant, id string) (bool, error) {
	_, err := e.consoleLocation(ctx, tenant, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// consoleLocation finds id in the record index: it must name tenant's audit stream.
func (e *Engine) consoleLocation(ctx context.Context, tenant, id string) (store.Location, error) {
	loc, err := e.log.Find(ctx, id)
	if err != nil {
		return store.Location{}, err
	}
	if loc.Tenant != tenant || !loc.Audit() {
		return store.Location{}, fmt.Errorf("engine: console id %s: held by a record outside the audit stream of tenant %s: %w", id, tenant, store.ErrTampered)
	}
	return loc, nil
}

// ConsoleEventByID returns the console event recorded under id in tenant's audit
// stream: the index read, then the record it names. No record with the id is
// store.ErrNotFound; an id that names a record elsewhere, or one that is not that
// console event, is store.ErrTampered.
func (e *Engine) ConsoleEventByID(ctx context.Context, tenant, id string) (ConsoleEvent, error) {
	loc, err := e.consoleLocation(ctx, tenant, id)
	if err != nil {
		return ConsoleEvent{}, err
	}
	return e.consoleEventAt(ctx, loc, id)
}

// ConsoleSignin returns a console sign-in by its id, and the tenant whose audit stream
// holds it: the record index says which, nothing the caller claims. A session token is
// the person's credential, as an API token is: its hash names the sign-in, and the
// sign-in its tenant. No such sign-in is store.ErrNotFound; an id that names another
// kind of record is store.ErrTampered.
func (e *Engine) ConsoleSignin(ctx context.Context, id string) (tenant string, ev ConsoleEvent, err error) {
	loc, err := e.log.Find(ctx, id)
	if err != nil {
		return "", ConsoleEvent{}, err
	}
	if loc.Tenant == "" || !loc.Audit() {
		return "", ConsoleEvent{}, fmt.Errorf("engine: console id %s: held by a record outside an audit stream: %w", id, store.ErrTampered)
	}
	ev, err = e.consoleEventAt(ctx, loc, id)
	if err == nil && ev.Event != ConsoleSignin {
		err = fmt.Errorf("engine: console id %s: a %s event, not a sign-in: %w", id, ev.Event, store.ErrTampered)
	}
	if err != nil {
		return "", ConsoleEvent{}, err
	}
	return loc.Tenant, ev, nil
}

// consoleEventAt reads the console event the index entry of id locates in an audit
// stream.
func (e *Engine) consoleEventAt(ctx context.Context, loc store.Location, id string) (ConsoleEvent, error) {
	rec, err := e.log.Record(ctx, loc.Tenant, "", loc.Seq)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return ConsoleEvent{}, err
	}
	if err != nil || rec.Hash != loc.Hash {
		return ConsoleEvent{}, fmt.Errorf("engine: console id %s: the index names record %d of the audit stream of tenant %s, which is gone or altered: %w", id, loc.Seq, loc.Tenant, store.ErrTampered)
	}
	ev, err := governance.DecodeConsoleEvent(rec)
	if err != nil {
		return ConsoleEvent{}, err
	}
	if ev.ID != id {
		return ConsoleEvent{}, fmt.Errorf("engine: console id %s: record %d of the audit stream of tenant %s holds %q: %w", id, rec.Seq, loc.Tenant, ev.ID, store.ErrTampered)
	}
	return ev, nil
}

// AuditPage returns up to limit records of tenant's audit stream, newest first, from
// the one before seq before down (before 0: from the head), with the cursor of the next
// page: the seq to pass as before, 0 when this page reaches the first record. Each page
// costs one read of the head and one read per record, however long the stream.
func (e *Engine) AuditPage(ctx context.Context, tenant string, before uint64, limit int) ([]AuditItem, uint64, error) {
	if limit <= 0 {
		return nil, 0, fmt.Errorf("engine: audit page: limit %d: must be positive", limit)
	}
	head, err := e.log.AuditHead(ctx, tenant)
	if errors.Is(err, store.ErrNotFound) {
		return nil, 0, nil // no audit stream yet
	}
	if err != nil {
		return nil, 0, err
	}
	from := head.Seq
	if before != 0 && before-1 < from {
		from = before - 1
	}
	var items []AuditItem
	seq := from
	for ; seq >= 1 && len(items) < limit; seq-- {
		rec, err := e.log.Record(ctx, tenant, "", seq)
		if err != nil {
			return nil, 0, err
		}
		item := AuditItem{Seq: rec.Seq, Time: rec.Time}
		if governance.IsConsoleRecord(rec) {
			ev, err := governance.DecodeConsoleEvent(rec)
			if err != nil {
				return nil, 0, err
			}
			item.Console = &ev
		} else {
			ent, err := governance.DecodeEntry(rec)
			if err != nil {
				return nil, 0, err
			}
			item.Security = &ent
		}
		items = append(items, item)
	}
	if seq == 0 {
		return items, 0, nil
	}
	return items, seq + 1, nil
}
