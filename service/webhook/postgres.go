package webhook

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// deliveriesTable holds the delivery records of a PostgreSQL store, beside its tables
// (the schema of the URL's search_path). Every serve process on the store shares it.
const deliveriesTable = `CREATE TABLE IF NOT EXISTS handoff_webhook_deliveries (
    tenant       text        NOT NULL,
    id           text        NOT NULL,
    endpoint     text        NOT NULL,
    type         text        NOT NULL,
    decision_id  text        NOT NULL,
    workflow_id  text        NOT NULL,
    status       integer     NOT NULL,
    delivered_at timestamptz NOT NULL,
    CONSTRAINT handoff_webhook_deliveries_pkey PRIMARY KEY (tenant, id)
)`

// PostgresDeliveries keeps delivery records in the database of a PostgreSQL store,
// shared by every process that serves it: one process's delivery is not sent again by
// another's sweep.
type PostgresDeliveries struct {
	pool *pgxpool.Pool
}

// OpenPostgresDeliveries connects to the store's database (a pool of at most two
// connections of its own) and creates the table of records when it is missing, which
// needs the right to create tables in the schema once.
func OpenPostgresDeliveries(ctx context.Context, storeURL string) (*PostgresDeliveries, error) {
	cfg, err := pgxpool.ParseConfig(storeURL)
	if err != nil {
		return nil, errors.New("webhook: delivery records: the store URL does not parse")
	}
	cfg.MaxConns, cfg.MinConns = 2, 0
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("webhook: delivery records: %w", err)
	}
	var exists bool
	err = pool.QueryRow(ctx, `SELECT to_regclass('handoff_webhook_deliveries') IS NOT NULL`).Scan(&exists)
	if err == nil && !exists {
		_, err = pool.Exec(ctx, deliveriesTable)
		if err != nil && pool.QueryRow(ctx, `SELECT to_regclass('handoff_webhook_deliveries') IS NOT NULL`).Scan(&exists) == nil && exists {
			err = nil // another process created it at the same time
		}
		if err != nil {
			err = fmt.Errorf("%w (the store's role needs the right to create a table in its schema once: GRANT CREATE ON SCHEMA ..., or create handoff_webhook_deliveries as docs/webhooks.md shows)", err)
		}
	}
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("webhook: delivery records: %w", err)
	}
	return &PostgresDeliveries{pool: pool}, nil
}

// Delivered implements Deliveries.
func (p *PostgresDeliveries) Delivered(ctx context.Context, tenant, id string) (bool, error) {
	var one int
	err := p.pool.QueryRow(ctx, `SELECT 1 FROM handoff_webhook_deliveries WHERE tenant = $1 AND id = $2`, tenant, id).Scan(&one)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("webhook: delivery records: %w", err)
	}
	return true, nil
}

// Record implements Deliveries.
func (p *PostgresDeliveries) Record(ctx context.Context, d Delivery) error {
	_, err := p.pool.Exec(ctx, `INSERT INTO handoff_webhook_deliveries
		(tenant, id, endpoint, type, decision_id, workflow_id, status, delivered_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
		d.Tenant, d.ID, d.Endpoint, d.Type, d.DecisionID, d.WorkflowID, d.Status, d.DeliveredAt)
	if err != nil {
		return fmt.Errorf("webhook: delivery records: %w", err)
	}
	return nil
}

// Close implements Deliveries.
func (p *PostgresDeliveries) Close() error {
	p.pool.Close()
	return nil
}
