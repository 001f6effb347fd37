/*
Package store is the engine's memory: an append-only, hash-chained log of
workflows, with a state snapshot beside each workflow so that reading state is
one read, never a replay.

# Backends

Log is the interface the engine uses; this package holds the contract only (the
interface, its value types, the hash scheme, the errors and Copy) and links no
backend. Two backends implement it, one package each, with the same records,
hashes and answers:

  - store/badger (badger.Open), embedded in the process: the default. One
    process owns a directory.
  - store/postgres (postgres.Open), a PostgreSQL database shared by any number
    of processes on any number of machines. Its schema is versioned and
    embedded (postgres.Migrate applies it; postgres.Open refuses a database at
    another version), and every uniqueness rule below is a key of its tables.

store/backend.Open picks the backend from Options: URL names a PostgreSQL
database, else Dir a Badger directory. Copy copies a store to the other backend,
record for record, verifying every chain on both sides. store/storetest is the
conformance suite both backends run.

# Opening a Badger store

badger.Open takes a directory (or InMemory for tests). One Badger at a time owns a
directory: a second open of the same directory, from this process or another,
fails at once with an error matching ErrLocked. Writes are synced to disk before
the call that made them returns. Badger's own logger is routed to
Options.Logger, or silenced when it is nil. No Badger or pgx type or error
crosses the package boundary.

# Data

The rest of this comment describes the Badger layout; the PostgreSQL schema
(store/postgres/migrations/*.sql) keeps the same records in tables keyed the same way:
handoff_records (tenant, workflow, seq), handoff_workflows (workflow: head,
owner and snapshot in one row), handoff_idempotency (tenant, key),
handoff_audit (tenant, seq), handoff_audit_heads (tenant) and
handoff_record_ids (id).

The log is partitioned by tenant, then by workflow. Every read names its
tenant and sees nothing of any other tenant, with one exception: Owner
reads the global workflow index, so that a caller can refuse a request
that names another tenant's workflow and a workflow id is never reused
across tenants.

Keys are built from escaped components: inside a tenant id, workflow id,
idempotency key or record id each 0x00 byte is written 0x00 0xFF, and the component ends
with 0x00 0x01. The encoding is prefix-free, so no choice of ids can make
two different (tenant, workflow) pairs share a key or a key prefix, and it
keeps byte order, so listings come out sorted. With T, W, K and I escaped
and seqs as 8 bytes big-endian:

	t/ T w/ W e/ <seq>   workflow record
	t/ T w/ W h          workflow head: last seq, state version, last hash, standing record
	t/ T w/ W s          workflow state snapshot (opaque to the store)
	t/ T w/ W u          workflow summary: the active key A of its entry below
	t/ T u/ A W          workflow summary (opaque to the store) and the head seq it was
	                     written at, by latest activity: A is ActiveKey, the latest first
	t/ T n/ W            workflow without a summary
	t/ T i/ K            idempotency key: request digest, workflow, seq, hash
	t/ T a/ <seq>        audit record
	t/ T ah              audit head
	o/ W                 owner index: the tenant that created W
	x/ I                 record index: tenant, workflow, seq and hash of record I

# Chain

Each record holds the hash of the record before it (prev_hash, "" for the
first) and its own hash, "sha256:" followed by the lowercase hex SHA-256 of
its canonical encoding:

	field(domain) ‖ uint64(seq) ‖ field(time) ‖ field(type) ‖ field(payload) ‖
	field(prev_hash) ‖ field(tenant) ‖ field(workflow)

where uint64(n) is n as 8 bytes big-endian, field(b) is uint64(len(b))
followed by b, time is the record time in UTC formatted with
time.RFC3339Nano, payload is the JSON bytes exactly as appended, and domain
is "handoff.store.record.v1" for workflow records and
"handoff.store.audit.v1" for audit records (whose workflow is ""). Because
every field carries its length, no byte can be moved between fields, and
because tenant and workflow are hashed, a record copied to another
workflow does not verify there. Verify and VerifyAudit recompute every
hash, follow the prev_hash links, require seqs from 1 without gaps and
compare the head with the last record; they report the first problem
rather than failing. A chain cut at its end with its head set back still
verifies on its own: VerifyIndexes checks what names records from outside
the chains (idempotency keys, the record index, Badger's owner index)
against them.

# Reads

State reads a workflow's snapshot and head with one key read each, and
AuditHead a tenant's audit head; Record reads one record with one read;
Records and AuditRecords walk a chain from any seq. The head names the
workflow's standing record (Append.Standing: the engine's last decision
that was not a block), so it is found with one read however many records
follow it. Chains lists every chain of the store with its head, tenant
by tenant, from one consistent view. A record appended with an ID
(NewRecord.ID; the engine passes the decision id) is indexed by it in the
same transaction, and Find locates it with one key read: an id is unique
in the store, and a record whose id is taken is refused with a
*DuplicateIDError, writing nothing. Find checks the record it names
against the hash the index holds and fails with ErrTampered when it is
not that record.

# Appends and idempotency

An Append is one Badger transaction: its records, the workflow head (seq,
state version, hash), the new snapshot, the idempotency key and, for a
new workflow, the owner index entry are written together or not at all.
Every uniqueness rule is the read and write of one point key in that
transaction (Badger detects conflicts on point keys only, not on ranges):
the head for the expected version, the owner index for workflow ids, the
idempotency key for request ids.

The idempotency key is checked first. A key is bound to the record that
answers it: the last record of the append that recorded it, named by
workflow, seq and hash. A key already recorded with the same request digest
makes the Append fail with a *DuplicateError holding that record, read and
checked against the bound hash; with another digest it fails with
ErrIdempotencyKeyReused. In both cases nothing is appended. Idempotent
looks a key up, and reads its record, without writing; IdempotencyKeys
lists a tenant's keys. A key whose record is missing, or whose record does
not hash to the bound hash, is never answered: the read fails with
ErrTampered. Keys are kept forever.

A store written by an earlier version kept a copy of the answer in each key
instead (LegacyIdempotency reports it, from the format mark m/format);
UpgradeIdempotency binds those keys to their records once, with the
caller naming the record of each answer. A store written before the record
index (Unindexed reports it) is indexed once by UpgradeIndex, with the
caller reading the id of each record from its payload. The oldest stores
need both; each upgrade marks the format the store has reached.

Each append may give its workflow a summary (Append.Summary), kept in the same
transaction beside the head and in the tenant's order of latest activity:
Summaries pages a tenant's workflows newest first from a cursor, each at the cost of
its summary and head. A workflow without one (written before summaries, or by an
append that gave none) is listed by Unsummarized until SetSummary gives it one; a
store written before summaries marks its workflows so at Open.

A failed Append writes nothing. Errors that are answers about the data
(*StaleError, *DuplicateError, *DuplicateIDError, ErrNotFound, ErrExists,
ErrIdempotencyKeyReused, ErrInvalid, ErrTooLarge, ErrTampered) are distinct from storage
failures, which are reported as *Error. To the engine any error means no
decision was recorded. Retryable tells the failures a later call may not meet
(ErrUnavailable, ErrBusy) from those it will (ErrPermission, ErrReadOnly,
ErrSchema, ErrInconsistent, and every answer about the data); no message
names a database's host, port or role. Ready says whether a decision could
be recorded now.

# Concurrency

Every method of Log is safe for concurrent use. Appends are optimistic:
each names the state version it was computed from, and of several
concurrent appends at the same version that bump it, exactly one succeeds
and the others get a *StaleError with the version that won. An append that
does not bump the version (a rejected request, logged for the record)
never makes another writer stale.

By default appends are group-committed: one committer goroutine takes all
appends waiting at that moment and writes them in one transaction with one
sync, checking each against the state left by those before it. An append
that fails its checks writes nothing and does not affect the others; each
caller gets its own result once the group is durable. Options.NoGroupCommit
gives each append its own transaction instead.
*/
package store
