package governance

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/internal/canonjson"
	"github.com/handoff-dev/handoff/store"
)

// CheckpointFormat names the checkpoint format and version.
const CheckpointFormat = "handoff-checkpoint/1"

// ChainHead is the last record of one hash chain.
type ChainHead struct {
	Tenant   string `json:"tenant_id"`
	Workflow string `json:"workflow_id"` // "" for the tenant's security audit stream
	Seq      uint64 `json:"seq"`
	Hash     string `json:"hash"`
}

// Checkpoint is a signed statement of the head of every chain of a store at one time.
// Kept outside the store, it lets a later verification prove that the log still extends
// it: a bare hash chain cannot show that it was truncated, rolled back to an older copy
// or rewritten with every hash recomputed, but each of those loses or changes a record
// the checkpoint names.
type Checkpoint struct {
	Format    string      `json:"format"`
	CreatedAt string      `json:"created_at"`
	Heads     []ChainHead `json:"heads"` // sorted by tenant, then workflow ("" first)
	// Root is the Merkle root over the heads (RFC 6962 tree hashing over the canonical
	// JSON of each head, in order): one value to publish or countersign elsewhere.
	Root string `json:"root"`
	// PublicKey is the signer's Ed25519 public key, standard base64.
	PublicKey string `json:"public_key"`
	// Signature is the Ed25519 signature, standard base64, over SignedBytes.
	Signature string `json:"signature"`
}

// Checkpoint errors.
var (
	// ErrCheckpointSignature reports a checkpoint whose signature or root does not hold.
	ErrCheckpointSignature = errors.New("engine: checkpoint signature does not verify")
)

// Heads returns the head of every workflow chain and every non-empty audit stream, sorted
// by tenant, then workflow (a tenant's audit stream, workflow "", first). They are read
// from one view of the store, each from its chain's head key (the audit stream's too):
// no record is walked.
func (l *Ledger) Heads(ctx context.Context) ([]ChainHead, error) {
	var out []ChainHead
	err := l.log.Chains(ctx, func(c store.Chain) error {
		if c.Head.Seq > 0 {
			out = append(out, ChainHead{Tenant: c.Tenant, Workflow: c.Workflow, Seq: c.Head.Seq, Hash: c.Head.Hash})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sortHeads(out)
	return out, nil
}

func sortHeads(hs []ChainHead) {
	sort.Slice(hs, func(i, j int) bool {
		if hs[i].Tenant != hs[j].Tenant {
			return hs[i].Tenant < hs[j].Tenant
		}
		return hs[i].Workflow < hs[j].Workflow
	})
}

// NewCheckpoint signs heads with key at time now.
func NewCheckpoint(heads []ChainHead, now time.Time, key ed25519.PrivateKey) (*Checkpoint, error) {
	hs := append([]ChainHead{}, heads...)
	sortHeads(hs)
	root, err := MerkleRoot(hs)
	if err != nil {
		return nil, err
	}
	cp := &Checkpoint{
		Format: CheckpointFormat, CreatedAt: pipeline.FormatTime(now), Heads: hs, Root: root,
		PublicKey: base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey)),
	}
	msg, err := cp.SignedBytes()
	if err != nil {
		return nil, err
	}
	cp.Signature = base64.StdEncoding.EncodeToString(ed25519.Sign(key, msg))
	return cp, nil
}

// SignedBytes is what the signature covers: the format line, then the canonical JSON of
// every field but the signature.
func (cp *Checkpoint) SignedBytes() ([]byte, error) {
	heads := make([]any, len(cp.Heads))
	for i, h := range cp.Heads {
		heads[i] = headValue(h)
	}
	body, err := canonjson.Marshal(map[string]any{
		"format": cp.Format, "created_at": cp.CreatedAt, "heads": heads, "root": cp.Root, "public_key": cp.PublicKey,
	})
	if err != nil {
		return nil, err
	}
	return append([]byte(CheckpointFormat+"\n"), body...), nil
}

func headValue(h ChainHead) map[string]any {
	return map[string]any{"tenant_id": h.Tenant, "workflow_id": h.Workflow, "seq": h.Seq, "hash": h.Hash}
}

// Verify checks the checkpoint's format, Merkle root and signature. With pub nil the
// key the checkpoint names is used, which proves only that the file is intact: pin the
// signer by passing its public key.
func (cp *Checkpoint) Verify(pub ed25519.PublicKey) error {
	if cp.Format != CheckpointFormat {
		return fmt.Errorf("%w: format %q, want %q", ErrCheckpointSignature, cp.Format, CheckpointFormat)
	}
	named, err := base64.StdEncoding.DecodeString(cp.PublicKey)
	if err != nil || len(named) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: public_key is not an Ed25519 public key", ErrCheckpointSignature)
	}
	if pub == nil {
		pub = named
	} else if !bytes.Equal(pub, named) {
		return fmt.Errorf("%w: signed by another key than the one given", ErrCheckpointSignature)
	}
	sig, err := base64.StdEncoding.DecodeString(cp.Signature)
	if err != nil {
		return fmt.Errorf("%w: signature is not base64", ErrCheckpointSignature)
	}
	msg, err := cp.SignedBytes()
	if err != nil {
		return err
	}
	if !ed25519.Verify(pub, msg, sig) {
		return ErrCheckpointSignature
	}
	sorted := append([]ChainHead{}, cp.Heads...)
	sortHeads(sorted)
	root, err := MerkleRoot(sorted)
	if err != nil {
		return err
	}
	if root != cp.Root {
		return fmt.Errorf("%w: the heads do not give the root", ErrCheckpointSignature)
	}
	return nil
}

// MerkleRoot is the RFC 6962 Merkle tree hash over the canonical JSON of each head, in
// the order given: leaves are SHA-256(0x00 || leaf), nodes SHA-256(0x01 || left || right),
// the split at the largest power of two below the count. "sha256:" and hex.
func MerkleRoot(heads []ChainHead) (string, error) {
	leaves := make([][]byte, len(heads))
	for i, h := range heads {
		b, err := canonjson.Marshal(headValue(h))
		if err != nil {
			return "", err
		}
		sum := sha256.Sum256(append([]byte{0}, b...))
		leaves[i] = sum[:]
	}
	return "sha256:" + hex.EncodeToString(merkle(leaves)), nil
}

func merkle(leaves [][]byte) []byte {
	switch len(leaves) {
	case 0:
		sum := sha256.Sum256(nil)
		return sum[:]
	case 1:
		return leaves[0]
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	buf := append([]byte{1}, merkle(leaves[:k])...)
	buf = append(buf, merkle(leaves[k:])...)
	sum := sha256.Sum256(buf)
	return sum[:]
}

// CheckpointFinding is one way the store no longer extends a checkpoint.
type CheckpointFinding struct {
	Tenant   string `json:"tenant_id"`
	Workflow string `json:"workflow_id"` // "" for the audit stream
	// Kind is "missing" (the chain is gone), "truncated" (it ends before the checkpoint's
	// head: truncation or a rollback to an older copy), "rewritten" (the record at the
	// checkpoint's head has another hash: the chain was rewritten and its hashes
	// recomputed) or "broken" (the chain itself does not verify).
	Kind    string `json:"kind"`
	Seq     uint64 `json:"seq"`
	Problem string `json:"problem"`
}

// CheckCheckpoint reports every way the store fails to extend the checkpoint: each chain
// the checkpoint names must still exist, reach at least its head, hold the same record
// hash at that seq, and verify from its first record to its current head. Chains created
// after the checkpoint are not findings. The checkpoint's signature is not checked here
// (Checkpoint.Verify).
func (l *Ledger) CheckCheckpoint(ctx context.Context, cp *Checkpoint) ([]CheckpointFinding, error) {
	findings := []CheckpointFinding{}
	for _, h := range cp.Heads {
		f, err := l.checkHead(ctx, h)
		if err != nil {
			return nil, err
		}
		if f != nil {
			findings = append(findings, *f)
			continue
		}
		var rep store.VerifyReport
		if h.Workflow == "" {
			rep, err = l.log.VerifyAudit(ctx, h.Tenant)
		} else {
			rep, err = l.log.Verify(ctx, h.Tenant, h.Workflow)
		}
		if err != nil {
			return nil, err
		}
		if !rep.OK {
			findings = append(findings, CheckpointFinding{Tenant: h.Tenant, Workflow: h.Workflow, Kind: "broken", Seq: rep.BrokenSeq, Problem: rep.Problem})
		}
	}
	return findings, nil
}

// checkHead finds the record at the checkpoint's head and compares its hash.
func (l *Ledger) checkHead(ctx context.Context, h ChainHead) (*CheckpointFinding, error) {
	finding := func(kind, format string, args ...any) *CheckpointFinding {
		return &CheckpointFinding{Tenant: h.Tenant, Workflow: h.Workflow, Kind: kind, Seq: h.Seq, Problem: fmt.Sprintf(format, args...)}
	}
	var (
		got  *store.Record
		last uint64
		stop = errors.New("found")
	)
	visit := func(r store.Record) error {
		last = r.Seq
		if r.Seq == h.Seq {
			got = &r
		}
		return stop // the walk starts at h.Seq: a later seq means a gap
	}
	var err error
	if h.Workflow == "" {
		err = l.log.AuditRecords(ctx, h.Tenant, h.Seq, visit)
		if got == nil && last == 0 && (err == nil || errors.Is(err, stop)) {
			// Nothing from the checkpoint's head on: where does the stream end?
			err = l.log.AuditRecords(ctx, h.Tenant, 1, func(r store.Record) error {
				last = r.Seq
				return nil
			})
		}
	} else {
		err = l.log.Records(ctx, h.Tenant, h.Workflow, h.Seq, visit)
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return finding("missing", "the chain is gone: the checkpoint names it with %d records", h.Seq), nil
	case err != nil && !errors.Is(err, stop):
		return nil, err
	case got == nil && h.Workflow == "" && last == 0:
		return finding("missing", "the audit stream is empty: the checkpoint names it with %d records", h.Seq), nil
	case got == nil && last < h.Seq:
		if h.Workflow != "" {
			var head store.Head
			_ = l.log.Workflows(ctx, h.Tenant, func(w string, hd store.Head) error {
				if w == h.Workflow {
					head = hd
				}
				return nil
			})
			last = head.Seq
		}
		return finding("truncated", "the chain ends at record %d, before the checkpoint's head %d: truncated or rolled back", last, h.Seq), nil
	case got == nil:
		return finding("broken", "record %d is missing", h.Seq), nil
	case got.Hash != h.Hash:
		return finding("rewritten", "record %d has hash %s, the checkpoint says %s: the chain was rewritten", h.Seq, got.Hash, h.Hash), nil
	}
	return nil, nil
}
