package store

import (
	"context"
	"io"
	"strings"
	"time"
)

// Log is what the engine needs of a store: appends checked against the head, an
// idempotency key and the record index in one transaction, the tenant's audit stream,
// the reads and iterators, and verify. badger.Log (embedded, one process) and
// postgres.Log (many processes and machines on one database) implement it with
// identical records and hashes, so a chain verifies, and its decisions replay,
// whichever backend holds it; storetest is the suite both pass.
//
// Every method is safe for concurrent use. The documentation of each method is on
// badger.Log's; postgres.Log behaves the same way, with the differences it states.
type Log interface {
	Append(ctx context.Context, a Append) (Head, error)
	SetStanding(ctx context.Context, tenant, workflow string, h Head) error
	SetSummary(ctx context.Context, tenant, workflow string, seq uint64, active time.Time, summary []byte) error
	Audit(ctx context.Context, tenant string, rec NewRecord, t time.Time) (Record, error)

	State(ctx context.Context, tenant, workflow string) (snapshot []byte, head Head, err error)
	Owner(ctx context.Context, workflow string) (tenant string, found bool, err error)
	Idempotent(ctx context.Context, tenant, key string) (digest string, answer Record, found bool, err error)
	Find(ctx context.Context, id string) (Location, error)
	AuditHead(ctx context.Context, tenant string) (Head, error)

	Record(ctx context.Context, tenant, workflow string, seq uint64) (Record, error)
	Records(ctx context.Context, tenant, workflow string, fromSeq uint64, fn func(Record) error) error
	AuditRecords(ctx context.Context, tenant string, fromSeq uint64, fn func(Record) error) error
	Workflows(ctx context.Context, tenant string, fn func(workflow string, head Head) error) error
	Summaries(ctx context.Context, tenant string, after *SummaryCursor, fn func(Summary) error) error
	Unsummarized(ctx context.Context, tenant string, fn func(workflow string, head Head) error) error
	IdempotencyKeys(ctx context.Context, tenant string, fn func(Idempotency) error) error
	Tenants(ctx context.Context) ([]string, error)
	Chains(ctx context.Context, fn func(Chain) error) error

	Verify(ctx context.Context, tenant, workflow string) (VerifyReport, error)
	VerifyAudit(ctx context.Context, tenant string) (VerifyReport, error)
	VerifyIndexes(ctx context.Context, c IndexCheck) ([]VerifyReport, error)

	// Backup writes a copy of the whole store to w in the Badger backup format, which
	// badger.Restore reads. Postgres fails with ErrUnsupported: its backups are the
	// database's own (pg_dump, base backups, replicas), and Copy moves a store between
	// backends.
	Backup(ctx context.Context, w io.Writer) error
	// Size is the store's size in bytes as last measured; 0 when unknown.
	Size() int64
	// Ready reports whether the store can take a decision now: it is open, reachable
	// and writable. The error matches ErrClosed, ErrReadOnly, ErrUnavailable or
	// ErrSchema. It writes nothing.
	Ready(ctx context.Context) error
	// Close waits for the calls in progress and releases the store.
	Close() error
}

// IsURL reports whether s names a PostgreSQL store rather than a directory.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}
