package chain

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"time"

	"github.com/handoff-dev/handoff/store"
)

// Value encodings. Every length-prefixed field is a big-endian uint64 byte
// count followed by the bytes.
//
//	record:      0x01, seq uint64, time, type, payload, prev_hash, hash (all length-prefixed)
//	head:        0x02, seq uint64, state_version uint64, hash (length-prefixed), standing seq uint64,
//	             standing (length-prefixed); an earlier version wrote 0x01 and the first three
//	             only, which reads as a head whose standing record is unknown
//	idempotency: 0x01, digest, workflow (length-prefixed), seq uint64, hash (length-prefixed)
//	index:       0x01, tenant, workflow (length-prefixed), seq uint64, hash (length-prefixed)
const ValueFormat byte = 0x01

var ErrCorrupt = errors.New("undecodable value")

// AppendField appends b to dst, length-prefixed.
func AppendField(dst, b []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(len(b)))
	return append(dst, b...)
}

// Decoder reads the value encodings; the first failure sticks.
type Decoder struct {
	b   []byte
	err error
}

func NewDecoder(b []byte) *Decoder {
	d := &Decoder{b: b}
	if len(b) == 0 || b[0] != ValueFormat {
		d.err = ErrCorrupt
	} else {
		d.b = b[1:]
	}
	return d
}

func (d *Decoder) Uint64() uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 8 {
		d.err = ErrCorrupt
		return 0
	}
	v := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *Decoder) Field() []byte {
	n := d.Uint64()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.err = ErrCorrupt
		return nil
	}
	v := append([]byte(nil), d.b[:n]...)
	d.b = d.b[n:]
	return v
}

// Done reports the first failure, or a failure if bytes are left over.
func (d *Decoder) Done() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = ErrCorrupt
	}
	return d.err
}

// Record is a record as kept in its value: the time is kept as the
// exact string that was hashed.
type Record struct {
	Seq      uint64
	Time     string // RFC 3339 with nanoseconds, UTC
	Type     string
	Payload  []byte
	PrevHash string
	Hash     string
}

// Encode is the value r is kept as.
func (r *Record) Encode() []byte {
	n := 1 + 8 + 5*8 + len(r.Time) + len(r.Type) + len(r.Payload) + len(r.PrevHash) + len(r.Hash)
	b := make([]byte, 0, n)
	b = append(b, ValueFormat)
	b = binary.BigEndian.AppendUint64(b, r.Seq)
	b = AppendField(b, []byte(r.Time))
	b = AppendField(b, []byte(r.Type))
	b = AppendField(b, r.Payload)
	b = AppendField(b, []byte(r.PrevHash))
	return AppendField(b, []byte(r.Hash))
}

func DecodeRecord(b []byte) (Record, error) {
	d := NewDecoder(b)
	r := Record{
		Seq:      d.Uint64(),
		Time:     string(d.Field()),
		Type:     string(d.Field()),
		Payload:  d.Field(),
		PrevHash: string(d.Field()),
		Hash:     string(d.Field()),
	}
	return r, d.Done()
}

// Record converts to the public form.
func (r *Record) Record() (store.Record, error) {
	t, err := time.Parse(time.RFC3339Nano, r.Time)
	if err != nil {
		return store.Record{}, ErrCorrupt
	}
	return store.Record{
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

// EncodeHead encodes a head. One whose standing record is unknown is written as an
// earlier version wrote it, so that it stays unknown.
func EncodeHead(h store.Head) []byte {
	b := make([]byte, 0, 1+8+8+8+len(h.Hash)+8+8+len(h.Standing))
	if h.StandingUnknown {
		b = append(b, ValueFormat)
	} else {
		b = append(b, headFormat)
	}
	b = binary.BigEndian.AppendUint64(b, h.Seq)
	b = binary.BigEndian.AppendUint64(b, h.StateVersion)
	b = AppendField(b, []byte(h.Hash))
	if h.StandingUnknown {
		return b
	}
	b = binary.BigEndian.AppendUint64(b, h.StandingSeq)
	return AppendField(b, []byte(h.Standing))
}

func DecodeHead(b []byte) (store.Head, error) {
	if len(b) > 0 && b[0] == headFormat {
		d := &Decoder{b: b[1:]}
		h := store.Head{Seq: d.Uint64(), StateVersion: d.Uint64(), Hash: string(d.Field()), StandingSeq: d.Uint64(), Standing: string(d.Field())}
		return h, d.Done()
	}
	d := NewDecoder(b)
	h := store.Head{Seq: d.Uint64(), StateVersion: d.Uint64(), Hash: string(d.Field()), StandingUnknown: true}
	return h, d.Done()
}

// IdemEntry is what an idempotency key records: the request's digest and the record
// that answers it, bound by its hash. The answer is read from that record, so an entry
// can never hold an answer the hash chain does not.
type IdemEntry struct {
	Digest   string
	Workflow string
	Seq      uint64
	Hash     string
}

// Encode is the value e is kept as.
func (e *IdemEntry) Encode() []byte {
	return encodeEntry(e.Digest, e.Workflow, e.Seq, e.Hash)
}

func DecodeIdem(b []byte) (IdemEntry, error) {
	d := NewDecoder(b)
	e := IdemEntry{Digest: string(d.Field()), Workflow: string(d.Field()), Seq: d.Uint64(), Hash: string(d.Field())}
	return e, d.Done()
}

// EncodeLocation is the value the index entry l is kept as.
func EncodeLocation(l *store.Location) []byte {
	return encodeEntry(l.Tenant, l.Workflow, l.Seq, l.Hash)
}

// encodeEntry is the layout an idempotency entry and an index entry share: two fields,
// a seq and a hash, after the format byte.
func encodeEntry(first, second string, seq uint64, hash string) []byte {
	b := make([]byte, 0, 1+4*8+len(first)+len(second)+len(hash))
	b = append(b, ValueFormat)
	b = AppendField(b, []byte(first))
	b = AppendField(b, []byte(second))
	b = binary.BigEndian.AppendUint64(b, seq)
	return AppendField(b, []byte(hash))
}

func DecodeLocation(b []byte) (store.Location, error) {
	d := NewDecoder(b)
	l := store.Location{Tenant: string(d.Field()), Workflow: string(d.Field()), Seq: d.Uint64(), Hash: string(d.Field())}
	return l, d.Done()
}

// SealRecord fills in the hash of r.
func SealRecord(domain, tenant, workflow string, r *Record) {
	r.Hash = store.RecordHash(domain, r.Seq, r.Time, r.Type, r.Payload, r.PrevHash, tenant, workflow)
}

// Stored is r as it is kept: its time as the string that was hashed.
func Stored(r store.Record) Record {
	return Record{Seq: r.Seq, Time: store.FormatTime(r.Time), Type: r.Type, Payload: r.Payload, PrevHash: r.PrevHash, Hash: r.Hash}
}
