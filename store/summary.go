package store

import (
	"encoding/binary"
	"time"
)

// MaxSummaryLen bounds a workflow's summary (Append.Summary), in bytes: it is read with
// every page of a list, so it must stay small.
const MaxSummaryLen = 16 << 10

// Summary is what a store keeps of a workflow for its lists: the bytes its writer gave
// (Append.Summary, SetSummary), which the store does not read, and the time of the
// append that wrote them, its latest activity, by which Summaries orders the workflows.
type Summary struct {
	Workflow string
	// Head is the workflow's head, read with the summary. Head.Seq is the seq the
	// summary was written at: an append that gives no summary drops the one it had.
	Head   Head
	Active time.Time // the time of the append that wrote it, in UTC
	Data   []byte
}

// SummaryCursor is where a walk of Summaries resumes: after the workflow it names, active
// at that time.
type SummaryCursor struct {
	Active   time.Time
	Workflow string
}

// Cursor is the cursor that resumes a walk after s.
func (s Summary) Cursor() *SummaryCursor {
	return &SummaryCursor{Active: s.Active, Workflow: s.Workflow}
}

// ActiveKeyLen is the length of ActiveKey's encoding.
const ActiveKeyLen = 12

// ActiveKey encodes t so that the later time sorts first in byte order, to the
// nanosecond, over every year a record may carry (0000 to 9999): the seconds since 1970
// with the sign bit flipped and the nanoseconds, big-endian, every bit inverted. Both
// backends order summaries by it.
func ActiveKey(t time.Time) []byte {
	t = t.UTC()
	b := binary.BigEndian.AppendUint64(make([]byte, 0, ActiveKeyLen), ^(uint64(t.Unix()) ^ 1<<63))
	return binary.BigEndian.AppendUint32(b, ^uint32(t.Nanosecond()))
}

// ParseActiveKey decodes ActiveKey's encoding; ok is false when b is not one.
func ParseActiveKey(b []byte) (t time.Time, ok bool) {
	if len(b) != ActiveKeyLen {
		return time.Time{}, false
	}
	sec := int64(^binary.BigEndian.Uint64(b) ^ 1<<63)
	nsec := ^binary.BigEndian.Uint32(b[8:])
	if nsec >= 1e9 {
		return time.Time{}, false
	}
	return time.Unix(sec, int64(nsec)).UTC(), true
}
