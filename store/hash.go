package store

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"time"
)

// Hash domains: a workflow record and an audit record never hash alike even
// with equal fields.
const (
	DomainRecord = "handoff.store.record.v1"
	DomainAudit  = "handoff.store.audit.v1"
)

// hashPrefix starts every record hash.
const hashPrefix = "sha256:"

// RecordHash returns "sha256:" + hex(SHA-256(canonical)), where canonical is
//
//	field(domain) ‖ uint64(seq) ‖ field(time) ‖ field(type) ‖ field(payload) ‖
//	field(prev_hash) ‖ field(tenant) ‖ field(workflow)
//
// uint64(n) is n as 8 bytes big-endian and field(b) is uint64(len(b)) ‖ b.
// time is the record time formatted as RFC 3339 with nanoseconds in UTC
// (time.RFC3339Nano), exactly as stored. domain is DomainRecord for a
// workflow record and DomainAudit for an audit record, whose workflow is "".
// Every field carries its length, so no byte can move from one field to
// its neighbour without changing the hash.
func RecordHash(domain string, seq uint64, time, typ string, payload []byte, prev, tenant, workflow string) string {
	h := sha256.New()
	writeField(h, []byte(domain))
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], seq)
	h.Write(n[:])
	writeField(h, []byte(time))
	writeField(h, []byte(typ))
	writeField(h, payload)
	writeField(h, []byte(prev))
	writeField(h, []byte(tenant))
	writeField(h, []byte(workflow))
	return hashPrefix + hex.EncodeToString(h.Sum(nil))
}

func writeField(h hash.Hash, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}

// FormatTime is the one place a record time becomes the string that is
// stored and hashed.
func FormatTime(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}
