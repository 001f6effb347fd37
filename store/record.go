package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"time"
)

// Head is the tip of a workflow's log (or of a tenant's audit stream).
type Head struct {
	Seq          uint64 // sequence number of the last record; 0 when empty
	StateVersion uint64 // the workflow's state version; always 0 for an audit stream
	Hash         string // "sha256:<hex>" of the last record; "" when empty

	// StandingSeq is the seq of the workflow's standing record: the last record of the
	// last append that named one (Append.Standing), kept with the head so that it is
	// found with one read whatever came after it. 0 when none did. Standing is the tag
	// that append gave it ("" when none).
	StandingSeq uint64
	Standing    string
	// StandingUnknown says the head was written before heads kept their standing
	// record (an earlier version): StandingSeq and Standing say nothing, and SetStanding
	// fills them in once the caller has found the record. Appends that name no standing
	// record keep it unknown.
	StandingUnknown bool
}

// Record is one entry of a workflow log or of an audit stream.
type Record struct {
	Seq      uint64          // 1 for the first record, then contiguous
	Time     time.Time       // the time given by the writer, in UTC
	Type     string          // the writer's record type, e.g. "request" or "decision"
	Payload  json.RawMessage // the payload exactly as appended
	PrevHash string          // Hash of the previous record; "" for the first
	Hash     string          // "sha256:<hex>" of the record's canonical encoding
}

// NewRecord is a record to append. Payload must be valid JSON and is stored
// byte for byte: the caller canonicalises it.
type NewRecord struct {
	Type    string // required
	Payload []byte // valid JSON

	// ID, when set, names the record in the store's index, in the same
	// transaction as the record: Find then locates it with one read. An id
	// is unique in the store, across tenants and streams: a record whose id
	// is already indexed is refused with a *DuplicateIDError. At most
	// maxIDLen bytes. "" leaves the record out of the index.
	ID string
}

// Location is where an indexed record is: its chain, its seq, and its hash
// as it was written.
type Location struct {
	Tenant   string
	Workflow string // "" for the tenant's audit stream
	Seq      uint64
	Hash     string
}

// Audit reports whether the record is in the tenant's audit stream.
func (l Location) Audit() bool { return l.Workflow == "" }

// Value encodings. Every length-prefixed field is a big-endian uint64 byte
// count followed by the bytes.
//
//	record:      0x01, seq uint64, time, type, payload, prev_hash, hash (all length-prefixed)
//	head:        0x02, seq uint64, state_version uint64, hash (length-prefixed), standing seq uint64,
//	             standing (length-prefixed); an earlier version wrote 0x01 and the first three
//	             only, which reads as a head whose standing record is unknown
//	idempotency: 0x01, digest, workflow (length-prefixed), seq uint64, hash (length-prefixed)
//	index:       0x01, tenant, workflow (length-prefixed), seq uint64, hash (length-prefixed)
const valueFormat byte = 0x01

var errCorrupt = errors.New("undecodable value")

func appendField(dst, b []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(len(b)))
	return append(dst, b...)
}

// decoder reads the value encodings; the first failure sticks.
type decoder struct {
	b   []byte
	err error
}

func newDecoder(b []byte) *decoder {
	d := &decoder{b: b}
	if len(b) == 0 || b[0] != valueFormat {
		d.err = errCorrupt
	} else {
		d.b = b[1:]
	}
	return d
}

func (d *decoder) uint64() uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 8 {
		d.err = errCorrupt
		return 0
	}
	v := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) field() []byte {
	n := d.uint64()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.err = errCorrupt
		return nil
	}
	v := append([]byte(nil), d.b[:n]...)
	d.b = d.b[n:]
	return v
}

// done reports the first failure, or a failure if bytes are left over.
func (d *decoder) done() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = errCorrupt
	}
	return d.err
}

// storedRecord is a record as kept in its value: the time is kept as the
// exact string that was hashed.
type storedRecord struct {
	Seq      uint64
	Time     string // RFC 3339 with nanoseconds, UTC
	Type     string
	Payload  []byte
	PrevHash string
	Hash     string
}

func (r *storedRecord) encode() []byte {
	n := 1 + 8 + 5*8 + len(r.Time) + len(r.Type) + len(r.Payload) + len(r.PrevHash) + len(r.Hash)
	b := make([]byte, 0, n)
	b = append(b, valueFormat)
	b = binary.BigEndian.AppendUint64(b, r.Seq)
	b = appendField(b, []byte(r.Time))
	b = appendField(b, []byte(r.Type))
	b = appendField(b, r.Payload)
	b = appendField(b, []byte(r.PrevHash))
	return appendField(b, []byte(r.Hash))
}

func decodeRecord(b []byte) (storedRecord, error) {
	d := newDecoder(b)
	r := storedRecord{
		Seq:      d.uint64(),
		Time:     string(d.field()),
		Type:     string(d.field()),
		Payload:  d.field(),
		PrevHash: string(d.field()),
		Hash:     string(d.field()),
	}
	return r, d.done()
}

// record converts to the public form.
func (r *storedRecord) record() (Record, error) {
	t, err := time.Parse(time.RFC3339Nano, r.Time)
	if err != nil {
		return Record{}, errCorrupt
	}
	return Record{
		Seq:      r.Seq,
		Time:     t.UTC(),
		Type:     r.Type,
		Payload:  json.RawMessage(r.Payload),
		PrevHash: r.PrevHash,
		Hash:     r.Hash,
	}, nil
}

// headFormat marks a head that keeps its standing record.
const headFormat byte = 0x02

// encodeHead encodes a head. One whose standing record is unknown is written as an
// earlier version wrote it, so that it stays unknown.
func encodeHead(h Head) []byte {
	b := make([]byte, 0, 1+8+8+8+len(h.Hash)+8+8+len(h.Standing))
	if h.StandingUnknown {
		b = append(b, valueFormat)
	} else {
		b = append(b, headFormat)
	}
	b = binary.BigEndian.AppendUint64(b, h.Seq)
	b = binary.BigEndian.AppendUint64(b, h.StateVersion)
	b = appendField(b, []byte(h.Hash))
	if h.StandingUnknown {
		return b
	}
	b = binary.BigEndian.AppendUint64(b, h.StandingSeq)
	return appendField(b, []byte(h.Standing))
}

func decodeHead(b []byte) (Head, error) {
	if len(b) > 0 && b[0] == headFormat {
		d := &decoder{b: b[1:]}
		h := Head{Seq: d.uint64(), StateVersion: d.uint64(), Hash: string(d.field()), StandingSeq: d.uint64(), Standing: string(d.field())}
		return h, d.done()
	}
	d := newDecoder(b)
	h := Head{Seq: d.uint64(), StateVersion: d.uint64(), Hash: string(d.field()), StandingUnknown: true}
	return h, d.done()
}

// idemEntry is what an idempotency key records: the request's digest and the record
// that answers it, bound by its hash. The answer is read from that record, so an entry
// can never hold an answer the hash chain does not.
type idemEntry struct {
	Digest   string
	Workflow string
	Seq      uint64
	Hash     string
}

func (e *idemEntry) encode() []byte {
	b := make([]byte, 0, 1+4*8+len(e.Digest)+len(e.Workflow)+len(e.Hash))
	b = append(b, valueFormat)
	b = appendField(b, []byte(e.Digest))
	b = appendField(b, []byte(e.Workflow))
	b = binary.BigEndian.AppendUint64(b, e.Seq)
	return appendField(b, []byte(e.Hash))
}

func decodeIdem(b []byte) (idemEntry, error) {
	d := newDecoder(b)
	e := idemEntry{Digest: string(d.field()), Workflow: string(d.field()), Seq: d.uint64(), Hash: string(d.field())}
	return e, d.done()
}

func (l *Location) encode() []byte {
	b := make([]byte, 0, 1+4*8+len(l.Tenant)+len(l.Workflow)+len(l.Hash))
	b = append(b, valueFormat)
	b = appendField(b, []byte(l.Tenant))
	b = appendField(b, []byte(l.Workflow))
	b = binary.BigEndian.AppendUint64(b, l.Seq)
	return appendField(b, []byte(l.Hash))
}

func decodeLocation(b []byte) (Location, error) {
	d := newDecoder(b)
	l := Location{Tenant: string(d.field()), Workflow: string(d.field()), Seq: d.uint64(), Hash: string(d.field())}
	return l, d.done()
}

// formatTime is the one place a record time becomes the string that is
// stored and hashed.
func formatTime(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}
