// Package storetest is the conformance suite of the store.Log contract: every backend
// runs it from its own tests, so that Badger and PostgreSQL answer every call alike.
package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

// Backend is one way of opening a store for the suite.
type Backend struct {
	// Name names the backend's subtests.
	Name string
	// Open opens a new, empty store for t, closed when t ends, and returns it with where
	// it lives: its directory or its URL ("" in memory).
	Open func(t testing.TB) (store.Log, string)
	// Tamper, when set, runs fn against the store l that Open returned with where and
	// returns the store to read afterwards (the same one, or l closed, changed and opened
	// again). Nil skips the tests that change a store behind its back with this backend.
	Tamper func(t *testing.T, l store.Log, where string, fn func(Tamperer)) store.Log
	// Postgres is set for a PostgreSQL store, whose answers differ in what the suite says.
	Postgres bool
}

// Run runs the conformance suite on each backend of bs: one subtest per behaviour, one
// per backend within it.
func Run(t *testing.T, bs ...Backend) {
	for _, tc := range suite {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, bs) })
	}
}

// openFirst opens a store of the first backend of bs, for a behaviour the variants of
// one backend (in memory or on disk, with or without group commit) cannot tell apart.
func openFirst(t *testing.T, bs []Backend) store.Log {
	t.Helper()
	l, _ := bs[0].Open(t)
	return l
}

// eachBackend runs test once per backend as a subtest, on a new store of that backend.
func eachBackend(test func(ctx context.Context, t *testing.T, b Backend, l store.Log)) func(t *testing.T, bs []Backend) {
	return func(t *testing.T, bs []Backend) {
		for _, b := range bs {
			t.Run(b.Name, func(t *testing.T) {
				l, _ := b.Open(t)
				test(context.Background(), t, b, l)
			})
		}
	}
}

// T0 is the time of the records the suite appends.
var T0 = time.Date(2026, 11, 29, 21, 0, 0, 123456789, time.UTC)

// Rec builds a record with a small JSON payload.
func Rec(typ string, n int) store.NewRecord {
	return store.NewRecord{Type: typ, Payload: fmt.Appendf(nil, `{"n":%d}`, n)}
}

// Create makes a workflow with n records and state version 1.
func Create(t testing.TB, l store.Log, tenant, workflow string, n int) store.Head {
	t.Helper()
	a := store.Append{Tenant: tenant, Workflow: workflow, Create: true, BumpVersion: true, Time: T0,
		State: []byte(`{"v":1}`)}
	for i := range n {
		a.Records = append(a.Records, Rec("event", i+1))
	}
	h, err := l.Append(context.Background(), a)
	require.NoError(t, err)
	return h
}

// Records collects the records of a workflow.
func Records(t testing.TB, l store.Log, tenant, workflow string, from uint64) []store.Record {
	t.Helper()
	var out []store.Record
	require.NoError(t, l.Records(context.Background(), tenant, workflow, from, func(r store.Record) error {
		out = append(out, r)
		return nil
	}))
	return out
}

// MustJSON encodes v.
func MustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// suite lists the behaviours Run checks.
var suite = []struct {
	name string
	run  func(t *testing.T, bs []Backend)
}{
	{"AppendReadState", eachBackend(testAppendReadState)},
	{"AppendErrors", eachBackend(testAppendErrors)},
	{"ConcurrentAppendersSameVersion", eachBackend(testConcurrentAppendersSameVersion)},
	{"ConcurrentBlocksNeverStale", eachBackend(testConcurrentBlocksNeverStale)},
	{"ConcurrentWorkflows", eachBackend(testConcurrentWorkflows)},
	{"Idempotency", eachBackend(testIdempotency)},
	{"ConcurrentIdempotentRequests", eachBackend(testConcurrentIdempotentRequests)},
	{"ConcurrentCreate", eachBackend(testConcurrentCreate)},
	{"AppendCanceledContext", eachBackend(testAppendCanceledContext)},
	{"AuditStream", eachBackend(testAuditStream)},
	{"AuditConcurrent", eachBackend(testAuditConcurrent)},
	{"VerifyAuditDetectsTampering", testVerifyAuditDetectsTampering},
	{"AuditHeadIsTheLastAuditRecord", eachBackend(testAuditHeadIsTheLastAuditRecord)},
	{"ChainsListsEveryChainInKeyOrder", eachBackend(testChainsListsEveryChainInKeyOrder)},
	{"IdempotencyKeysListsEveryKeyOfTheTenant", eachBackend(testIdempotencyKeysListsEveryKeyOfTheTenant)},
	{"IdempotencyKeysAreExact", eachBackend(testIdempotencyKeysAreExact)},
	{"FindLocatesIndexedRecords", eachBackend(testFindLocatesIndexedRecords)},
	{"ADuplicateIDIsRefused", eachBackend(testADuplicateIDIsRefused)},
	{"ConcurrentAppendsOfOneID", eachBackend(testConcurrentAppendsOfOneID)},
	{"VerifyIndexes", testVerifyIndexes},
	{"Closed", testClosed},
	{"RecordReadsOne", eachBackend(testRecordReadsOne)},
	{"StandingRecordKeptWithTheHead", eachBackend(testStandingRecordKeptWithTheHead)},
	{"StandingRecordOfAnEarlierVersion", testStandingRecordOfAnEarlierVersion},
	{"VerifyChecksTheStandingRecord", testVerifyChecksTheStandingRecord},
	{"ReadsRefuseTamperedAnswers", testReadsRefuseTamperedAnswers},
	{"TenantIsolation", eachBackend(testTenantIsolation)},
	{"SummariesByActivity", eachBackend(testSummariesByActivity)},
	{"SummariesBackfilled", eachBackend(testSummariesBackfilled)},
	{"SummariesInAGroup", eachBackend(testSummariesInAGroup)},
	{"SummaryFollowsTheStandingRecord", testSummaryFollowsTheStandingRecord},
	{"VerifyDetectsTampering", testVerifyDetectsTampering},
	{"AppendSnapshotNilAndEmpty", testAppendSnapshotNilAndEmpty},
	{"RecordsCallbackError", testRecordsCallbackError},
	{"AuditInvalid", testAuditInvalid},
	{"AuditRecordsFromASeq", testAuditRecordsFromASeq},
	{"IDsCannotCollide", testIDsCannotCollide},
	{"WorkflowsAndTenantsOrder", testWorkflowsAndTenantsOrder},
	{"VerifyNotFound", testVerifyNotFound},
	{"VerifyLongChain", testVerifyLongChain},
}
