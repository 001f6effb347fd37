package badger

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// encodeSummary is the value of a summary's entry in its tenant's order of activity: the
// head seq it was written at, then its bytes.
func encodeSummary(seq uint64, data []byte) []byte {
	b := binary.BigEndian.AppendUint64([]byte{chain.ValueFormat}, seq)
	return chain.AppendField(b, data)
}

func decodeSummary(v []byte) (seq uint64, data []byte, err error) {
	d := chain.NewDecoder(v)
	seq, data = d.Uint64(), d.Field()
	return seq, data, d.Done()
}

// summaryWrites are the writes of an append a to the summary of its workflow, whose head
// is now at seq (existed: the workflow had a head before): the entry of the summary it
// had leaves the order of activity, and the new one takes its place, or a workflow given
// no summary is marked unsummarized.
func summaryWrites(txn *badger.Txn, a *store.Append, existed bool, seq uint64) ([]kv, error) {
	sk := summaryKey(a.Tenant, a.Workflow)
	var old []byte
	var had bool
	if existed {
		var err error
		if old, had, err = getValue(txn, sk); err != nil {
			return nil, err
		}
	}
	var writes []kv
	switch {
	case had:
		writes = append(writes, kv{key: activeKey(a.Tenant, old, a.Workflow), del: true})
	case existed && a.Summary != nil:
		writes = append(writes, kv{key: unsummarizedKey(a.Tenant, a.Workflow), del: true})
	}
	if a.Summary == nil {
		if had {
			writes = append(writes, kv{key: sk, del: true})
		}
		if had || !existed {
			writes = append(writes, kv{key: unsummarizedKey(a.Tenant, a.Workflow), value: []byte{}})
		}
		return writes, nil
	}
	active := store.ActiveKey(a.Time)
	return append(writes, kv{key: sk, value: active}, kv{key: activeKey(a.Tenant, active, a.Workflow), value: encodeSummary(seq, a.Summary)}), nil
}

// SetSummary gives a workflow of tenant the summary it lacks (one written before
// summaries were kept, or by an append that gave none): summary, active at active (the
// time of its head record), for the head at seq. It writes it only while the head is
// still at seq, so an append made in between, which wrote its own, is never undone;
// otherwise it does nothing. It is safe for concurrent use.
func (l *Log) SetSummary(ctx context.Context, tenant, workflow string, seq uint64, active time.Time, summary []byte) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	if err := chain.CheckSummaryArg(l.readOnly, tenant, workflow, seq, active, summary); err != nil {
		return err
	}
	err := l.db.Update(func(txn *badger.Txn) error {
		head, found, err := getHead(txn, headKey(tenant, workflow))
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%w: %q", store.ErrNotFound, workflow)
		}
		if head.Seq != seq {
			return nil
		}
		writes, err := summaryWrites(txn, &store.Append{Tenant: tenant, Workflow: workflow, Summary: summary, Time: active}, true, seq)
		if err != nil {
			return err
		}
		for _, w := range writes {
			if err := w.apply(txn); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, badger.ErrConflict) {
		return nil // an append moved the head, and wrote its own summary
	}
	return wrap("set summary", err)
}

// Summaries calls fn with the summary of each workflow of tenant that has one, the latest
// activity first (ties by workflow id), from one consistent view, starting after the
// cursor after (nil: from the latest). An error from fn stops the walk and is returned
// as is: a caller that has read enough returns an error of its own. Each summary costs
// its entry and a read of its head, however long the workflow's history. A summary that
// is not its head's fails the walk with ErrTampered. It is safe for concurrent use.
func (l *Log) Summaries(ctx context.Context, tenant string, after *store.SummaryCursor, fn func(store.Summary) error) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	err := l.db.View(func(txn *badger.Txn) error {
		prefix := activePrefix(tenant)
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 32, Prefix: prefix})
		defer it.Close()
		start, skip := prefix, []byte(nil)
		if after != nil {
			skip = activeKey(tenant, store.ActiveKey(after.Active), after.Workflow)
			start = skip
		}
		n := 0
		for it.Seek(start); it.Valid(); it.Next() {
			if n++; n%ctxCheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			key := it.Item().Key()
			if skip != nil && bytes.Equal(key, skip) {
				continue
			}
			rest := key[len(prefix):]
			if len(rest) < store.ActiveKeyLen {
				return fmt.Errorf("summary key: %w", chain.ErrCorrupt)
			}
			active, ok := store.ParseActiveKey(rest[:store.ActiveKeyLen])
			workflow, tail, ok2 := readComponent(rest[store.ActiveKeyLen:])
			if !ok || !ok2 || len(tail) != 0 {
				return fmt.Errorf("summary key: %w", chain.ErrCorrupt)
			}
			v, err := itemValue(it.Item())
			if err != nil {
				return err
			}
			seq, data, err := decodeSummary(v)
			if err != nil {
				return fmt.Errorf("%w: the summary of workflow %q is undecodable", store.ErrTampered, workflow)
			}
			head, found, err := getHead(txn, headKey(tenant, workflow))
			if err != nil {
				return err
			}
			if !found || head.Seq != seq {
				return fmt.Errorf("%w: the summary of workflow %q was written at record %d, which is not its head", store.ErrTampered, workflow, seq)
			}
			if err := fn(store.Summary{Workflow: workflow, Head: head, Active: active, Data: data}); err != nil {
				return chain.CallbackError{Err: err}
			}
		}
		return nil
	})
	return unwrapCallback("summaries", err)
}

// Unsummarized calls fn with every workflow of tenant that has no summary, and its head,
// in workflow id order, from one consistent view: those an earlier version wrote, until
// SetSummary gives them one, and those of an append that gave none. It costs a read per
// such workflow, and one seek when there is none. An error from fn stops the walk and is
// returned as is. It is safe for concurrent use.
func (l *Log) Unsummarized(ctx context.Context, tenant string, fn func(workflow string, head store.Head) error) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	l.mu.Lock()
	unmarked := l.unmarked
	l.mu.Unlock()
	err := l.db.View(func(txn *badger.Txn) error {
		if unmarked {
			// Opened read-only at an earlier format: no workflow is marked, and none has
			// a summary yet.
			it := txn.NewIterator(badger.IteratorOptions{Prefix: workflowsPrefix(tenant)})
			defer it.Close()
			return walkWorkflows(ctx, txn, it, tenant, func(workflow string, head store.Head) error {
				if _, had, err := getValue(txn, summaryKey(tenant, workflow)); err != nil || had {
					return err
				}
				return fn(workflow, head)
			})
		}
		n := 0
		return walkEntries(ctx, txn, unsummarizedPrefix(tenant), "unsummarized", &n, func(workflow string, _ []byte) error {
			head, _, err := getHead(txn, headKey(tenant, workflow))
			if err != nil {
				return err
			}
			if err := fn(workflow, head); err != nil {
				return chain.CallbackError{Err: err}
			}
			return nil
		})
	})
	return unwrapCallback("unsummarized", err)
}

// SummaryOf reads the summary of a workflow of tenant and its head; found is false when
// it has none.
func (l *Log) SummaryOf(ctx context.Context, tenant, workflow string) (s store.Summary, found bool, err error) {
	if err := l.begin(ctx); err != nil {
		return store.Summary{}, false, err
	}
	defer l.end()
	err = l.db.View(func(txn *badger.Txn) error {
		active, had, err := getValue(txn, summaryKey(tenant, workflow))
		if err != nil || !had {
			return err
		}
		v, ok, err := getValue(txn, activeKey(tenant, active, workflow))
		if err != nil {
			return err
		}
		at, okKey := store.ParseActiveKey(active)
		seq, data, derr := decodeSummary(v)
		if !ok || !okKey || derr != nil {
			return fmt.Errorf("%w: the summary of workflow %q is undecodable", store.ErrTampered, workflow)
		}
		head, _, err := getHead(txn, headKey(tenant, workflow))
		if err != nil {
			return err
		}
		if head.Seq != seq {
			return fmt.Errorf("%w: the summary of workflow %q was written at record %d, which is not its head", store.ErrTampered, workflow, seq)
		}
		s, found = store.Summary{Workflow: workflow, Head: head, Active: at, Data: data}, true
		return nil
	})
	if err != nil {
		return store.Summary{}, false, wrap("summary", err)
	}
	return s, found, nil
}

// markUnsummarized marks every workflow without a summary, for Unsummarized: those of a
// store an earlier version wrote. It is run at Open, before any append, and may run
// again after a failure.
func (l *Log) markUnsummarized(ctx context.Context) error {
	var marks [][]byte
	err := l.db.View(func(txn *badger.Txn) error {
		tenants, err := listTenants(ctx, txn)
		if err != nil {
			return err
		}
		for _, tenant := range tenants {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: workflowsPrefix(tenant)})
			err := walkWorkflows(ctx, txn, it, tenant, func(workflow string, _ store.Head) error {
				_, had, err := getValue(txn, summaryKey(tenant, workflow))
				if err == nil && !had {
					marks = append(marks, unsummarizedKey(tenant, workflow))
				}
				return err
			})
			it.Close()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return wrap("mark unsummarized", err)
	}
	wb := l.db.NewWriteBatch()
	defer wb.Cancel()
	for _, k := range marks {
		if err := wb.Set(k, []byte{}); err != nil {
			return wrap("mark unsummarized", err)
		}
	}
	return wrap("mark unsummarized", wb.Flush())
}
