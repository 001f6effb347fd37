package chain

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/store"
)

// MaxIDLen bounds tenant ids, workflow ids and idempotency keys, in bytes.
const MaxIDLen = 1024

// Validate refuses an append a store must not write.
func Validate(a *store.Append) error {
	if err := CheckID("tenant", a.Tenant); err != nil {
		return err
	}
	if err := CheckID("workflow", a.Workflow); err != nil {
		return err
	}
	if len(a.IdempotencyKey) > MaxIDLen {
		return Invalid("idempotency key longer than %d bytes", MaxIDLen)
	}
	if len(a.Standing) > MaxIDLen {
		return Invalid("standing tag longer than %d bytes", MaxIDLen)
	}
	if len(a.Summary) > store.MaxSummaryLen {
		return Invalid("summary longer than %d bytes", store.MaxSummaryLen)
	}
	if len(a.Records) == 0 {
		return Invalid("append without records")
	}
	for i, r := range a.Records {
		if err := ValidateRecord(&r); err != nil {
			return fmt.Errorf("%w (record %d)", err, i)
		}
	}
	return CheckTime(a.Time)
}

// ValidateRecord refuses a record a store must not write.
func ValidateRecord(r *store.NewRecord) error {
	if r.Type == "" {
		return Invalid("record without type")
	}
	if !json.Valid(r.Payload) {
		return Invalid("record payload is not valid JSON")
	}
	if len(r.ID) > MaxIDLen {
		return Invalid("record id longer than %d bytes", MaxIDLen)
	}
	return nil
}

// CheckID refuses an empty or overlong id.
func CheckID(what, id string) error {
	switch {
	case id == "":
		return Invalid("empty %s id", what)
	case len(id) > MaxIDLen:
		return Invalid("%s id longer than %d bytes", what, MaxIDLen)
	}
	return nil
}

// CheckTime refuses a time outside the years RFC 3339 can write.
func CheckTime(t time.Time) error {
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		return Invalid("time %v outside years 0000 to 9999", t)
	}
	return nil
}

// Seal chains the records of a after the head cur: each gets the next seq, the
// append's time and the hash of the record before. It returns them with the head they
// leave, whose state version is bumped when a asks.
func Seal(a *store.Append, cur store.Head) ([]Record, store.Head) {
	ts := store.FormatTime(a.Time)
	recs := make([]Record, len(a.Records))
	next := cur
	for i, nr := range a.Records {
		recs[i] = Record{Seq: next.Seq + 1, Time: ts, Type: nr.Type, Payload: nr.Payload, PrevHash: next.Hash}
		SealRecord(store.DomainRecord, a.Tenant, a.Workflow, &recs[i])
		next.Seq, next.Hash = recs[i].Seq, recs[i].Hash
	}
	if a.BumpVersion {
		next.StateVersion = a.ExpectedVersion + 1
	}
	if a.Standing != "" {
		next.StandingSeq, next.Standing, next.StandingUnknown = next.Seq, a.Standing, false
	}
	return recs, next
}

// CheckAppend refuses an append a store must not write: to a store opened read-only,
// or one Validate refuses.
func CheckAppend(readOnly bool, a *store.Append) error {
	if readOnly {
		return &store.Error{Op: "append", Err: store.ErrReadOnly}
	}
	return Validate(a)
}

// CheckAudit refuses an audit record a store must not write.
func CheckAudit(readOnly bool, tenant string, rec store.NewRecord, t time.Time) error {
	if readOnly {
		return &store.Error{Op: "audit", Err: store.ErrReadOnly}
	}
	if len(tenant) > MaxIDLen {
		return Invalid("tenant id longer than %d bytes", MaxIDLen)
	}
	if err := ValidateRecord(&rec); err != nil {
		return err
	}
	return CheckTime(t)
}

// CheckStandingArg refuses a standing record SetStanding must not write.
func CheckStandingArg(tenant, workflow string, h store.Head) error {
	if err := CheckID("tenant", tenant); err != nil {
		return err
	}
	if err := CheckID("workflow", workflow); err != nil {
		return err
	}
	switch {
	case h.StandingUnknown:
		return Invalid("SetStanding needs a known standing record")
	case h.StandingSeq > h.Seq:
		return Invalid("standing record %d past the head %d", h.StandingSeq, h.Seq)
	case (h.StandingSeq == 0) != (h.Standing == ""):
		return Invalid("standing record %d with the tag %q", h.StandingSeq, h.Standing)
	case len(h.Standing) > MaxIDLen:
		return Invalid("standing tag longer than %d bytes", MaxIDLen)
	}
	return nil
}

// CheckSummaryArg refuses a summary SetSummary must not write.
func CheckSummaryArg(readOnly bool, tenant, workflow string, seq uint64, active time.Time, summary []byte) error {
	if readOnly {
		return &store.Error{Op: "set summary", Err: store.ErrReadOnly}
	}
	if err := CheckID("tenant", tenant); err != nil {
		return err
	}
	if err := CheckID("workflow", workflow); err != nil {
		return err
	}
	switch {
	case seq == 0:
		return Invalid("SetSummary needs the seq of the head it summarizes")
	case summary == nil:
		return Invalid("SetSummary needs a summary")
	case len(summary) > store.MaxSummaryLen:
		return Invalid("summary longer than %d bytes", store.MaxSummaryLen)
	}
	return CheckTime(active)
}

// CheckVersion refuses an append whose expected version is not the workflow's.
func CheckVersion(a *store.Append, cur store.Head) error {
	if a.ExpectedVersion != cur.StateVersion && !canary.SkipVersionCheck {
		return &store.StaleError{Expected: a.ExpectedVersion, Actual: cur.StateVersion}
	}
	return nil
}

// ValueLogFileSize is the size of one Badger value log file (the files are mapped in
// memory, and the one being written is what stays resident); it bounds one append on
// either backend.
const ValueLogFileSize = 64 << 20
