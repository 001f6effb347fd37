package badger

import (
	"bytes"
	"encoding/binary"
)

// Key layout. Every string component (tenant, workflow, idempotency key, record id) is
// escaped by appendComponent: each 0x00 byte becomes 0x00 0xFF and the
// component ends with 0x00 0x01. The encoding is prefix-free (no encoded
// component is a proper prefix of another) and keeps byte order, so
// "a/b"+"c" and "a"+"b/c" can never meet and range scans list ids in order.
//
//	t/ T w/ W e/ <seq>   workflow record, seq as 8 bytes big-endian
//	t/ T w/ W h          workflow head
//	t/ T w/ W s          workflow state snapshot
//	t/ T w/ W u          workflow summary: the active key A of its entry under t/ T u/
//	t/ T u/ A W          workflow summary, ordered by latest activity: A is store.ActiveKey
//	                     (12 bytes, the latest first); value: the head seq it was written
//	                     at and the summary's bytes
//	t/ T n/ W            workflow without a summary (empty value), for Unsummarized
//	t/ T i/ K            idempotency key K of tenant T
//	t/ T a/ <seq>        audit record of tenant T
//	t/ T ah              audit head of tenant T
//	o/ W                 owner of workflow W (value: the tenant)
//	x/ I                 record index: where the record with id I is
//	m/format             the store's format ("5": idempotency keys bound to records, records
//	                     indexed by id, standing records in heads, workflows summarized)
//
// T, W, K and I stand for the escaped components.
const (
	tagTenant    = "t/"
	tagWorkflow  = "w/"
	tagRecord    = "e/"
	tagHead      = "h"
	tagSnapshot  = "s"
	tagSummary   = "u"
	tagActive    = "u/"
	tagUnsumm    = "n/"
	tagIdem      = "i/"
	tagAudit     = "a/"
	tagAuditHead = "ah"
	tagOwner     = "o/"
	tagIndex     = "x/"

	seqLen = 8 // bytes of a sequence number in a key
)

// appendComponent appends the escaped form of s to dst.
func appendComponent(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		dst = append(dst, c)
		if c == 0x00 {
			dst = append(dst, 0xFF)
		}
	}
	return append(dst, 0x00, 0x01)
}

// readComponent decodes an escaped component at the start of b. It returns
// the component and the rest of b, or ok false when b holds no complete
// component.
func readComponent(b []byte) (s string, rest []byte, ok bool) {
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] != 0x00 {
			continue
		}
		if i+1 >= len(b) {
			return "", nil, false
		}
		switch b[i+1] {
		case 0x01:
			out = append(out, b[:i]...)
			return string(out), b[i+2:], true
		case 0xFF:
			out = append(out, b[:i+1]...)
			b = b[i+2:]
			i = -1
		default:
			return "", nil, false
		}
	}
	return "", nil, false
}

func appendSeq(dst []byte, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(dst, seq)
}

func tenantPrefix(tenant string) []byte {
	return appendComponent([]byte(tagTenant), tenant)
}

func workflowsPrefix(tenant string) []byte {
	return append(tenantPrefix(tenant), tagWorkflow...)
}

func workflowPrefix(tenant, workflow string) []byte {
	return appendComponent(workflowsPrefix(tenant), workflow)
}

func recordsPrefix(tenant, workflow string) []byte {
	return append(workflowPrefix(tenant, workflow), tagRecord...)
}

func recordKey(tenant, workflow string, seq uint64) []byte {
	return appendSeq(recordsPrefix(tenant, workflow), seq)
}

func headKey(tenant, workflow string) []byte {
	return append(workflowPrefix(tenant, workflow), tagHead...)
}

func snapshotKey(tenant, workflow string) []byte {
	return append(workflowPrefix(tenant, workflow), tagSnapshot...)
}

func summaryKey(tenant, workflow string) []byte {
	return append(workflowPrefix(tenant, workflow), tagSummary...)
}

func activePrefix(tenant string) []byte {
	return append(tenantPrefix(tenant), tagActive...)
}

// activeKey is the key of a workflow's summary in the tenant's order of activity; active
// is its store.ActiveKey.
func activeKey(tenant string, active []byte, workflow string) []byte {
	return appendComponent(append(activePrefix(tenant), active...), workflow)
}

func unsummarizedPrefix(tenant string) []byte {
	return append(tenantPrefix(tenant), tagUnsumm...)
}

func unsummarizedKey(tenant, workflow string) []byte {
	return appendComponent(unsummarizedPrefix(tenant), workflow)
}

func idemKey(tenant, key string) []byte {
	return appendComponent(append(tenantPrefix(tenant), tagIdem...), key)
}

func auditPrefix(tenant string) []byte {
	return append(tenantPrefix(tenant), tagAudit...)
}

func auditKey(tenant string, seq uint64) []byte {
	return appendSeq(auditPrefix(tenant), seq)
}

func auditHeadKey(tenant string) []byte {
	return append(tenantPrefix(tenant), tagAuditHead...)
}

func ownerKey(workflow string) []byte {
	return appendComponent([]byte(tagOwner), workflow)
}

func indexKey(id string) []byte {
	return appendComponent([]byte(tagIndex), id)
}

// seqFromKey returns the sequence number that ends a record key under
// prefix, or ok false when the key does not have that shape.
func seqFromKey(key, prefix []byte) (seq uint64, ok bool) {
	if !bytes.HasPrefix(key, prefix) || len(key) != len(prefix)+seqLen {
		return 0, false
	}
	return binary.BigEndian.Uint64(key[len(prefix):]), true
}

// skipPast returns the smallest key greater than every key starting with
// prefix, where prefix ends with an encoded component and every key under
// it continues with an ASCII tag byte.
func skipPast(prefix []byte) []byte {
	return append(bytes.Clone(prefix), 0xFF)
}
