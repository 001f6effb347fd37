package engine

import (
	"context"
	"crypto/ed25519"
	"time"

	"github.com/handoff-dev/handoff/engine/governance"
)

// CheckpointFormat is governance.CheckpointFormat.
const CheckpointFormat = governance.CheckpointFormat

// ChainHead is governance.ChainHead.
type ChainHead = governance.ChainHead

// Checkpoint is governance.Checkpoint.
type Checkpoint = governance.Checkpoint

// CheckpointFinding is governance.CheckpointFinding.
type CheckpointFinding = governance.CheckpointFinding

// ErrCheckpointSignature reports a checkpoint whose signature or root does not hold
// (governance.ErrCheckpointSignature).
var ErrCheckpointSignature = governance.ErrCheckpointSignature

// Heads returns the head of every workflow chain and every non-empty audit stream, sorted
// by tenant, then workflow (a tenant's audit stream, workflow "", first), from one view
// of the store.
func (e *Engine) Heads(ctx context.Context) ([]ChainHead, error) { return e.ledger().Heads(ctx) }

// NewCheckpoint signs heads with key at time now (governance.NewCheckpoint).
func NewCheckpoint(heads []ChainHead, now time.Time, key ed25519.PrivateKey) (*Checkpoint, error) {
	return governance.NewCheckpoint(heads, now, key)
}

// MerkleRoot is the RFC 6962 Merkle tree hash over the canonical JSON of each head, in
// the order given (governance.MerkleRoot).
func MerkleRoot(heads []ChainHead) (string, error) { return governance.MerkleRoot(heads) }

// CheckCheckpoint reports every way the store fails to extend the checkpoint. The
// checkpoint's signature is not checked here (Checkpoint.Verify). See
// governance.Ledger.CheckCheckpoint.
func (e *Engine) CheckCheckpoint(ctx context.Context, cp *Checkpoint) ([]CheckpointFinding, error) {
	return e.ledger().CheckCheckpoint(ctx, cp)
}
