package chain

import (
	"fmt"
	"time"

	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/store"
)

// Fail records the problem of r at seq.
func Fail(r *store.VerifyReport, seq uint64, format string, args ...any) {
	r.OK, r.BrokenSeq, r.Problem = false, seq, fmt.Sprintf(format, args...)
}

// CheckStanding checks the standing record a head names against the head, recording a
// problem in rep; it reports whether it is sound. Which record it must be is the
// writer's to say: the engine checks it against the decisions.
func CheckStanding(rep *store.VerifyReport, h store.Head) bool {
	switch {
	case h.StandingUnknown:
		return true
	case h.StandingSeq > h.Seq:
		Fail(rep, 0, "head names record %d as the standing record, past its %d records", h.StandingSeq, h.Seq)
		return false
	case (h.StandingSeq == 0) != (h.Standing == ""):
		Fail(rep, 0, "head names record %d as the standing record with the tag %q", h.StandingSeq, h.Standing)
		return false
	}
	return true
}

// Checker checks records in key order.
type Checker struct {
	Domain, Tenant, Workflow string
	Rep                      *store.VerifyReport

	Seq  uint64 // seq of the last good record
	Hash string // its hash
}

// Check verifies one record value stored under seq and advances the chain;
// it returns the problem, or "".
func (c *Checker) Check(seq uint64, v []byte) string {
	r, err := DecodeRecord(v)
	if err != nil {
		return "record undecodable"
	}
	return c.CheckRecord(seq, &r)
}

// CheckRecord verifies one record stored under seq and advances the chain; it returns
// the problem, or "".
func (c *Checker) CheckRecord(seq uint64, r *Record) string {
	switch {
	case r.Seq != seq:
		return fmt.Sprintf("record holds seq %d", r.Seq)
	case r.PrevHash != c.Hash && c.Seq == 0 && !canary.SkipPrevHashCheck:
		return "first record has a prev_hash"
	case r.PrevHash != c.Hash && !canary.SkipPrevHashCheck:
		return fmt.Sprintf("prev_hash is not the hash of record %d", c.Seq)
	}
	if _, err := time.Parse(time.RFC3339Nano, r.Time); err != nil {
		return "record time is not RFC 3339"
	}
	want := store.RecordHash(c.Domain, r.Seq, r.Time, r.Type, r.Payload, r.PrevHash, c.Tenant, c.Workflow)
	if r.Hash != want {
		return fmt.Sprintf("hash mismatch: recorded %s, computed %s", r.Hash, want)
	}
	c.Seq, c.Hash = r.Seq, r.Hash
	return ""
}

// CheckAuditEnd compares the end of a walked audit stream with the stream's head,
// recording a problem in c.Rep unless it has one. found is false when the stream has no
// head; head reads it, and a head it cannot read is a problem.
func (c *Checker) CheckAuditEnd(found bool, head func() (store.Head, error)) {
	switch {
	case !c.Rep.OK:
	case !found && c.Seq == 0:
	case !found:
		Fail(c.Rep, 0, "audit head missing")
	default:
		h, err := head()
		if err != nil {
			Fail(c.Rep, 0, "audit head undecodable")
			return
		}
		c.CheckHead(h)
	}
}

// CheckHead compares a head with the end of a walked chain, recording a
// problem in c.Rep; it reports whether they agree.
func (c *Checker) CheckHead(h store.Head) bool {
	switch {
	case h.Seq > c.Seq:
		if c.Seq+1 == h.Seq {
			Fail(c.Rep, c.Seq+1, "record %d missing: the head is at %d, the log ends at %d", h.Seq, h.Seq, c.Seq)
		} else {
			Fail(c.Rep, c.Seq+1, "records %d to %d missing: the head is at %d, the log ends at %d", c.Seq+1, h.Seq, h.Seq, c.Seq)
		}
	case h.Seq < c.Seq:
		Fail(c.Rep, h.Seq+1, "record %d is past the head (seq %d)", h.Seq+1, h.Seq)
	case h.Hash != c.Hash:
		Fail(c.Rep, h.Seq, "head hash does not match record %d", h.Seq)
	default:
		return true
	}
	return false
}
