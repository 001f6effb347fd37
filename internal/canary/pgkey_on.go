//go:build canary_pgkey

package canary

// DropRecordKey is on in the canary_pgkey build: a PostgreSQL store's migration drops
// the key that makes one seq of one workflow one record, so the only check left is the
// one each process makes before it writes.
const DropRecordKey = true
