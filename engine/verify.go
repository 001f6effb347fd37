package engine

import (
	"context"

	"github.com/handoff-dev/handoff/store"
)

// Verify checks everything the decisions of one workflow of tenant are made from (its
// hash chain, state snapshot, idempotency keys, record index and standing record) and
// reports the first problem. An error means the check could not be made. See
// governance.Ledger.Verify.
func (e *Engine) Verify(ctx context.Context, tenant, workflow string) (store.VerifyReport, error) {
	return e.ledger().Verify(ctx, tenant, workflow)
}

// VerifyAll verifies every workflow and every audit chain of every tenant.
func (e *Engine) VerifyAll(ctx context.Context) ([]store.VerifyReport, error) {
	return e.ledger().VerifyAll(ctx)
}

// VerifyTenant verifies every workflow of one tenant as Verify does, every idempotency
// key and record id of the tenant, and the tenant's audit chain. See
// governance.Ledger.VerifyTenant.
func (e *Engine) VerifyTenant(ctx context.Context, tenant string) ([]store.VerifyReport, error) {
	return e.ledger().VerifyTenant(ctx, tenant)
}
