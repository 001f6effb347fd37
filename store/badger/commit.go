package badger

import (
	"context"
	"errors"

	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/store"
)

// Group commit. Badger syncs once per transaction and does not merge
// concurrent transactions, so the Log runs one committer goroutine that
// takes every append waiting in its queue and writes them in one
// transaction with one sync. Each append is checked on its own inside that
// transaction (idempotency key, existence, expected version), seeing the
// writes of the appends before it in the group; one that fails writes
// nothing and does not fail the others. Results are delivered once the
// transaction is durable.

// maxGroup bounds the number of appends in one transaction.
const maxGroup = 512

type appendReq struct {
	ctx context.Context
	a   *store.Append
	res chan appendResult // buffered: the committer never blocks on it
}

type appendResult struct {
	head store.Head
	err  error
}

// appendGrouped hands a to the committer and waits for its result.
func (l *Log) appendGrouped(ctx context.Context, a *store.Append) (store.Head, error) {
	r := &appendReq{ctx: ctx, a: a, res: make(chan appendResult, 1)}
	select {
	case l.reqs <- r:
	case <-ctx.Done():
		return store.Head{}, ctx.Err()
	}
	if canary.AckBeforeCommit {
		return store.Head{}, nil // the bug: answered before the committer has even taken it up
	}
	// Once queued the request always gets an answer: Close waits for this
	// call before it stops the committer.
	res := <-r.res
	return res.head, res.err
}

// commitLoop is the committer.
func (l *Log) commitLoop() {
	defer close(l.done)
	var group, carry []*appendReq
	for {
		if len(carry) > 0 {
			group = append(group, carry...)
			carry = carry[:0]
		} else {
			select {
			case r := <-l.reqs:
				group = append(group, r)
			case <-l.quit:
				return
			}
		}
	drain:
		for len(group) < maxGroup {
			select {
			case r := <-l.reqs:
				group = append(group, r)
			default:
				break drain
			}
		}
		carry = l.commitGroup(group, carry)
		clear(group)
		group = group[:0]
	}
}

// commitGroup writes group in one transaction and answers each request.
// Requests that do not fit in the transaction are appended to carry, for
// the next group, and left unanswered.
func (l *Log) commitGroup(group, carry []*appendReq) []*appendReq {
	txn := l.db.NewTransaction(true)
	defer txn.Discard()

	results := make([]appendResult, len(group))
	var size, count int64
	written := 0
	for i, r := range group {
		if err := r.ctx.Err(); err != nil {
			results[i].err = err
			continue
		}
		head, writes, err := prepare(r.ctx, txn, r.a)
		if err != nil {
			results[i].err = wrap("append", err)
			continue
		}
		ws, wc := l.writesSize(writes)
		if ws >= l.maxBatchSize || wc >= l.maxBatchCount || l.checkWrites(writes) != nil {
			results[i].err = store.ErrTooLarge
			continue
		}
		if size+ws >= l.maxBatchSize || count+wc >= l.maxBatchCount {
			carry = append(carry, group[i:]...)
			group, results = group[:i], results[:i]
			break
		}
		for _, w := range writes {
			if err := w.apply(txn); err != nil {
				// Not expected: the limits were checked above. The
				// transaction may hold part of this append, so drop it
				// and give every request a transaction of its own.
				l.commitEach(group)
				return carry
			}
		}
		size += ws
		count += wc
		written++
		results[i].head = head
	}

	if written > 0 {
		err := txn.Commit()
		if err == nil && l.onCommit != nil {
			l.onCommit(written)
		}
		if err != nil {
			if errors.Is(err, badger.ErrConflict) {
				l.commitEach(group)
				return carry
			}
			// Nothing of the group was written, and the checks of the
			// failed appends may have seen writes that never happened.
			err = wrap("append", err)
			for i := range results {
				results[i] = appendResult{err: err}
			}
		}
	}
	for i, r := range group {
		r.res <- results[i]
	}
	return carry
}

// commitEach answers every request of group with a transaction of its own.
func (l *Log) commitEach(group []*appendReq) {
	for _, r := range group {
		head, err := l.appendSingle(r.ctx, r.a)
		r.res <- appendResult{head: head, err: err}
	}
}
