package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
func tamperLog(t *testing.T, n int) (*Badger, [][]byte, [][]byte) {
	t.Helper()
	ctx := context.Background()
	l, err := OpenBadger(ctx, Options{InMemory: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	for _, wf := range []string{"wf-1", "wf-2"} {
		for i := range n {
			a := Append{Tenant: "acme", Workflow: wf, Create: i == 0, ExpectedVersion: uint64(i), BumpVersion: true,
				Time: t0, Records: []NewRecord{{Type: "decision", Payload: fmt.Appendf(nil, `{"n":%d,"outcome":"allow"}`, i)}}}
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
func set(t *testing.T, l *Badger, kvs map[string][]byte) {
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

func verifyOK(t *testing.T, l Log) bool {
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
	var head Head
	require.NoError(t, l.db.View(func(txn *badger.Txn) error {
		var err error
		head, _, err = getHead(txn, headKey("acme", "wf-1"))
		return err
	}))
	// prefix[i] is the chain state after the intact records before record i+1.
	prefix := make([]chain, n+1)
	prefix[0] = chain{domain: domainRecord, tenant: "acme", workflow: "wf-1"}
	for i, v := range vals {
		c := prefix[i]
		c.rep = &VerifyReport{OK: true}
		require.Empty(t, c.check(uint64(i+1), v))
		c.rep = nil
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
			rep := VerifyReport{OK: true}
			c.rep = &rep
			ok := true
			for j := i; j < n && ok; j++ {
				rv := vals[j]
				if j == i {
					rv = bad
				}
				if p := c.check(uint64(j+1), rv); p != "" {
					ok = false
				}
			}
			if ok {
				ok = c.checkHead(head)
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
func claimsOf(payload []byte) Claims {
	var c struct{ Key, Digest, ID string }
	_ = json.Unmarshal(payload, &c)
	return Claims{Key: c.Key, Digest: c.Digest, ID: c.ID}
}

// answered appends n records to workflow wf of acme, one append each as decisions are:
// record i answers request req-wf-i (its idempotency key, digest sha256:i) and has id
// d-wf-i. It returns the records.
func answered(t *testing.T, l Log, wf string, n int) []Record {
	t.Helper()
	for i := 1; i <= n; i++ {
		key, id := fmt.Sprintf("req-%s-%d", wf, i), fmt.Sprintf("d-%s-%d", wf, i)
		digest := fmt.Sprintf("sha256:%d", i)
		_, err := l.Append(context.Background(), Append{Tenant: "acme", Workflow: wf, Create: i == 1, ExpectedVersion: uint64(i - 1), BumpVersion: true, Time: t0,
			Records:        []NewRecord{{Type: "decision", ID: id, Payload: fmt.Appendf(nil, `{"key":%q,"digest":%q,"id":%q}`, key, digest, id)}},
			IdempotencyKey: key, RequestDigest: digest})
		require.NoError(t, err)
	}
	return records(t, l, "acme", wf, 1)
}

// TestVerifyIndexes cuts the last record of a chain and sets its head back one step,
// which leaves a chain that verifies: the idempotency key and the record id of the cut
// record still name it, and VerifyIndexes says so. It also rebinds keys and ids to
// other records, on both backends. The check of the broken workflow alone finds the same;
// the check of another workflow finds nothing.
func TestVerifyIndexes(t *testing.T) {
	cut := func(rs []Record) func(tm tamperer) {
		return func(tm tamperer) {
			tm.del("acme", "wf", 3)
			tm.setHead("acme", "wf", Head{Seq: 2, StateVersion: 2, Hash: rs[1].Hash})
		}
	}
	for _, tc := range []struct {
		name    string
		tamper  func(rs []Record) func(tm tamperer)
		claims  bool   // the check reads the records' claims
		seq     uint64 // the broken seq reported
		problem string
		chain   string // the chain reported, when not wf
	}{
		{name: "last record cut, head set back", tamper: cut, seq: 3,
			problem: `idempotency: key "req-wf-3" names record 3, past the head of workflow "wf" (record 2)`},
		{name: "last record cut, head set back, key deleted", seq: 3,
			tamper: func(rs []Record) func(tm tamperer) {
				return func(tm tamperer) { cut(rs)(tm); tm.delKey("acme", "req-wf-3") }
			},
			problem: `index: id "d-wf-3" names record 3, past the head of its chain (record 2)`},
		{name: "key bound to the record of another request", claims: true, seq: 2,
			tamper: func(rs []Record) func(tm tamperer) {
				return func(tm tamperer) {
					tm.setKey("acme", "req-wf-3", idemEntry{Digest: "sha256:3", Workflow: "wf", Seq: 2, Hash: rs[1].Hash})
				}
			},
			problem: `idempotency: key "req-wf-3" is bound to record 2 of workflow "wf", which answers request "req-wf-2"`},
		{name: "key digest rewritten", claims: true, seq: 3,
			tamper: func(rs []Record) func(tm tamperer) {
				return func(tm tamperer) {
					tm.setKey("acme", "req-wf-3", idemEntry{Digest: "sha256:forged", Workflow: "wf", Seq: 3, Hash: rs[2].Hash})
				}
			},
			problem: `idempotency: key "req-wf-3" holds digest sha256:forged, but record 3 of workflow "wf" answers a request with digest sha256:3`},
		{name: "key bound to a record whose hash differs", seq: 3,
			tamper: func(rs []Record) func(tm tamperer) {
				return func(tm tamperer) {
					tm.setKey("acme", "req-wf-3", idemEntry{Digest: "sha256:3", Workflow: "wf", Seq: 3, Hash: rs[1].Hash})
				}
			},
			problem: `idempotency: key "req-wf-3" names record 3 of workflow "wf", whose hash differs`},
		{name: "key naming a workflow the tenant does not have", chain: "ghost",
			tamper: func(rs []Record) func(tm tamperer) {
				return func(tm tamperer) {
					tm.setKey("acme", "req-ghost", idemEntry{Digest: "sha256:1", Workflow: "ghost", Seq: 1, Hash: rs[0].Hash})
				}
			},
			problem: `idempotency: key "req-ghost" names workflow "ghost", which tenant "acme" does not have`},
		{name: "id naming another record", claims: true, seq: 2,
			tamper: func(rs []Record) func(tm tamperer) {
				return func(tm tamperer) {
					tm.setID("d-wf-3", Location{Tenant: "acme", Workflow: "wf", Seq: 2, Hash: rs[1].Hash})
				}
			},
			problem: `index: id "d-wf-3" names record 2, which holds id "d-wf-2"`},
		{name: "id naming a record whose hash differs", seq: 3,
			tamper: func(rs []Record) func(tm tamperer) {
				return func(tm tamperer) {
					tm.setID("d-wf-3", Location{Tenant: "acme", Workflow: "wf", Seq: 3, Hash: rs[1].Hash})
				}
			},
			problem: `index: id "d-wf-3" names record 3 of workflow "wf" of tenant "acme", whose hash differs`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eachDurableBackend(t, func(t *testing.T, b backend, l Log, where string) {
				ctx := context.Background()
				rs := answered(t, l, "wf", 3)
				answered(t, l, "other", 2)
				check := IndexCheck{Tenant: "acme"}
				if tc.claims {
					check.Claims = claimsOf
				}
				reps, err := l.VerifyIndexes(ctx, IndexCheck{Tenant: "acme", Claims: claimsOf})
				require.NoError(t, err)
				require.Empty(t, reps, "an untouched store")

				l = tamperWith(t, b, l, where, tc.tamper(rs))
				rep, err := l.Verify(ctx, "acme", "wf")
				require.NoError(t, err)
				require.True(t, rep.OK, "the chain alone still verifies: %s", rep.Problem)
				chain := tc.chain
				if chain == "" {
					chain = "wf"
				}
				want := []VerifyReport{{Tenant: "acme", Workflow: chain, BrokenSeq: tc.seq, Problem: tc.problem}}
				for _, c := range []IndexCheck{check, {All: true, Claims: check.Claims}, {Tenant: "acme", Workflow: chain, Claims: check.Claims}} {
					reps, err = l.VerifyIndexes(ctx, c)
					require.NoError(t, err)
					assert.Equal(t, want, reps, "%+v", c)
				}
				reps, err = l.VerifyIndexes(ctx, IndexCheck{Tenant: "acme", Workflow: "other", Claims: claimsOf})
				require.NoError(t, err)
				assert.Empty(t, reps, "the check of another workflow reads none of the keys and ids of this one")
				reps, err = l.VerifyIndexes(ctx, IndexCheck{Tenant: "someone else", Claims: claimsOf})
				require.NoError(t, err)
				assert.Empty(t, reps, "another tenant's check sees nothing of acme's")
			})
		})
	}
}

// TestVerifyIndexesChecksTheOwnerIndex writes an owner entry for a workflow its tenant
// does not have (Badger keeps the owner index apart from the heads; PostgreSQL keeps the
// owner in the head's row): the id could never be used, and VerifyIndexes says so.
func TestVerifyIndexesChecksTheOwnerIndex(t *testing.T) {
	ctx := context.Background()
	l, dir := openDisk(t)
	answered(t, l, "wf", 1)
	l = tamperWith(t, backend{name: "disk"}, l, dir, func(tm tamperer) { tm.setOwner("ghost", "acme") }).(*Badger)
	want := []VerifyReport{{Tenant: "acme", Workflow: "ghost", Problem: `owner: the owner index names tenant "acme" for workflow "ghost", which that tenant does not have: the id can never be used`}}
	for _, c := range []IndexCheck{{Tenant: "acme"}, {All: true}} {
		reps, err := l.VerifyIndexes(ctx, c)
		require.NoError(t, err)
		assert.Equal(t, want, reps)
	}
	reps, err := l.VerifyIndexes(ctx, IndexCheck{Tenant: "other"})
	require.NoError(t, err)
	assert.Empty(t, reps)
}
