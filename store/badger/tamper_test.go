package badger

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
	"github.com/handoff-dev/handoff/store/storetest"
)

// tamperRecords is the length of the log the tamper suite attacks; HANDOFF_TAMPER_RECORDS
// overrides it for a soak.
func tamperRecords(t *testing.T) int {
	if s := os.Getenv("HANDOFF_TAMPER_RECORDS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err)
		return n
	}
	return 200
}

// tamperLog builds an in-memory log with one workflow of n records appended one at a
// time (as decisions are), a second workflow to splice from, and returns the record
// values of the first.
func tamperLog(t *testing.T, n int) (*Log, [][]byte, [][]byte) {
	t.Helper()
	ctx := context.Background()
	l, err := Open(ctx, store.Options{InMemory: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	for _, wf := range []string{"wf-1", "wf-2"} {
		for i := range n {
			a := store.Append{Tenant: "acme", Workflow: wf, Create: i == 0, ExpectedVersion: uint64(i), BumpVersion: true,
				Time: t0, Records: []store.NewRecord{{Type: "decision", Payload: fmt.Appendf(nil, `{"n":%d,"outcome":"allow"}`, i)}}}
			_, err := l.Append(ctx, a)
			require.NoError(t, err)
		}
	}
	values := func(wf string) [][]byte {
		var out [][]byte
		require.NoError(t, l.db.View(func(txn *badger.Txn) error {
			for seq := uint64(1); seq <= uint64(n); seq++ {
				v, _, err := getValue(txn, recordKey("acme", wf, seq))
				if err != nil {
					return err
				}
				out = append(out, v)
			}
			return nil
		}))
		return out
	}
	return l, values("wf-1"), values("wf-2")
}

// set writes (or, with a nil value, deletes) keys directly in the database.
func set(t *testing.T, l *Log, kvs map[string][]byte) {
	t.Helper()
	require.NoError(t, l.db.Update(func(txn *badger.Txn) error {
		for k, v := range kvs {
			var err error
			if v == nil {
				err = txn.Delete([]byte(k))
			} else {
				err = txn.Set([]byte(k), v)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}))
}

func verifyOK(t *testing.T, l store.Log) bool {
	t.Helper()
	rep, err := l.Verify(context.Background(), "acme", "wf-1")
	require.NoError(t, err)
	return rep.OK
}

// TestTamperEveryByte flips every byte of every record of a 200-record log, one at a
// time, and requires the verifier to detect each one. Each flipped chain is checked with
// the verifier's own record and head checks, starting from the intact prefix; every
// 64th flip also goes through the store and Verify end to end.
func TestTamperEveryByte(t *testing.T) {
	if raceEnabled {
		t.Skip("runs without -race")
	}
	n := tamperRecords(t)
	l, vals, _ := tamperLog(t, n)
	require.True(t, verifyOK(t, l))
	var head store.Head
	require.NoError(t, l.db.View(func(txn *badger.Txn) error {
		var err error
		head, _, err = getHead(txn, headKey("acme", "wf-1"))
		return err
	}))
	// prefix[i] is the chain state after the intact records before record i+1.
	prefix := make([]chain.Checker, n+1)
	prefix[0] = chain.Checker{Domain: store.DomainRecord, Tenant: "acme", Workflow: "wf-1"}
	for i, v := range vals {
		c := prefix[i]
		c.Rep = &store.VerifyReport{OK: true}
		require.Empty(t, c.Check(uint64(i+1), v))
		c.Rep = nil
		prefix[i+1] = c
	}
	flips, detected, endToEnd := 0, 0, 0
	for i, v := range vals {
		key := string(recordKey("acme", "wf-1", uint64(i+1)))
		for b := range v {
			bad := append([]byte(nil), v...)
			bad[b] ^= 0xFF
			flips++
			c := prefix[i]
			rep := store.VerifyReport{OK: true}
			c.Rep = &rep
			ok := true
			for j := i; j < n && ok; j++ {
				rv := vals[j]
				if j == i {
					rv = bad
				}
				if p := c.Check(uint64(j+1), rv); p != "" {
					ok = false
				}
			}
			if ok {
				ok = c.CheckHead(head)
			}
			if flips%64 == 0 {
				set(t, l, map[string][]byte{key: bad})
				require.Equal(t, ok, verifyOK(t, l), "record %d byte %d: Verify and the checks disagree", i+1, b)
				set(t, l, map[string][]byte{key: v})
				endToEnd++
			}
			if ok {
				t.Errorf("record %d: byte %d flipped and the chain still verifies", i+1, b)
				continue
			}
			detected++
		}
	}
	require.True(t, verifyOK(t, l))
	t.Logf("%d records, %d single-byte flips, %d detected (%d of them through Verify on the store)", n, flips, detected, endToEnd)
	require.Equal(t, flips, detected)
}

// TestTamperStructure deletes, reorders, truncates, duplicates and splices records at
// every position; Verify detects each.
func TestTamperStructure(t *testing.T) {
	if raceEnabled {
		t.Skip("runs without -race")
	}
	n := tamperRecords(t)
	l, vals, other := tamperLog(t, n)
	key := func(seq int) string { return string(recordKey("acme", "wf-1", uint64(seq))) }
	attacks := 0
	check := func(what string, kvs map[string][]byte, restore map[string][]byte) {
		t.Helper()
		set(t, l, kvs)
		attacks++
		if verifyOK(t, l) {
			t.Errorf("%s: not detected", what)
		}
		set(t, l, restore)
	}
	for i := 1; i <= n; i++ {
		orig := map[string][]byte{key(i): vals[i-1]}
		check(fmt.Sprintf("delete record %d", i), map[string][]byte{key(i): nil}, orig)
		check(fmt.Sprintf("splice wf-2's record %d into wf-1", i), map[string][]byte{key(i): other[i-1]}, orig)
		if i < n {
			both := map[string][]byte{key(i): vals[i-1], key(i + 1): vals[i]}
			check(fmt.Sprintf("swap records %d and %d", i, i+1), map[string][]byte{key(i): vals[i], key(i + 1): vals[i-1]}, both)
			check(fmt.Sprintf("duplicate record %d over %d", i, i+1), map[string][]byte{key(i + 1): vals[i-1]}, both)
		}
		// Truncation: records i..n gone, the head left as it was.
		cut, restore := map[string][]byte{}, map[string][]byte{}
		for j := i; j <= n; j++ {
			cut[key(j)], restore[key(j)] = nil, vals[j-1]
		}
		check(fmt.Sprintf("truncate from record %d", i), cut, restore)
		// A record appended past the head.
		check(fmt.Sprintf("record %d copied past the end", i), map[string][]byte{key(n + 1): vals[i-1]}, map[string][]byte{key(n + 1): nil})
	}
	require.True(t, verifyOK(t, l))
	t.Logf("%d structural attacks on a %d-record log, all detected", attacks, n)
}

// claimsOf reads what the payloads of answered appends say of themselves.

// TestVerifyIndexesChecksTheOwnerIndex writes an owner entry for a workflow its tenant
// does not have (Badger keeps the owner index apart from the heads; PostgreSQL keeps the
// owner in the head's row): the id could never be used, and VerifyIndexes says so.
func TestVerifyIndexesChecksTheOwnerIndex(t *testing.T) {
	ctx := context.Background()
	l, dir := openDisk(t)
	answered(t, l, "wf", 1)
	l = tamperBadger(t, l, dir, func(tm storetest.Tamperer) { tm.SetOwner("ghost", "acme") }).(*Log)
	want := []store.VerifyReport{{Tenant: "acme", Workflow: "ghost", Problem: `owner: the owner index names tenant "acme" for workflow "ghost", which that tenant does not have: the id can never be used`}}
	for _, c := range []store.IndexCheck{{Tenant: "acme"}, {All: true}} {
		reps, err := l.VerifyIndexes(ctx, c)
		require.NoError(t, err)
		assert.Equal(t, want, reps)
	}
	reps, err := l.VerifyIndexes(ctx, store.IndexCheck{Tenant: "other"})
	require.NoError(t, err)
	assert.Empty(t, reps)
}
