package badger

import (
	"bytes"
	"context"
	"errors"

	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// verifySummaries checks the summaries of tenant (of its workflow c.Workflow only, when
// set) against what they stand for: each entry in the order of activity is its
// workflow's, named by the workflow's summary key, and written at the workflow's head; a
// workflow marked unsummarized has no summary; and every workflow has a summary or the
// mark, so that no list passes over it. The summaries' own bytes are the engine's: it
// does not read them.
func (l *Log) verifySummaries(ctx context.Context, txn *badger.Txn, tenant string, c store.IndexCheck, v *chain.RefCheck) error {
	l.mu.Lock()
	unmarked := l.unmarked
	l.mu.Unlock()
	if unmarked {
		return nil // an earlier format, read-only: nothing is summarized yet
	}
	fail := func(workflow, format string, args ...any) { v.Fail("summary", tenant, workflow, 0, format, args...) }
	prefix := activePrefix(tenant)
	it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, Prefix: prefix})
	defer it.Close()
	n := 0
	for it.Seek(prefix); it.Valid(); it.Next() {
		if n++; n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rest := it.Item().KeyCopy(nil)[len(prefix):]
		if len(rest) < store.ActiveKeyLen {
			fail("", "a summary key is malformed: %x", rest)
			continue
		}
		workflow, tail, ok := readComponent(rest[store.ActiveKeyLen:])
		if !ok || len(tail) != 0 {
			fail("", "a summary key is malformed: %x", rest)
			continue
		}
		if c.Workflow != "" && workflow != c.Workflow {
			continue
		}
		val, err := itemValue(it.Item())
		if err != nil {
			return err
		}
		kept, _, err := decodeSummary(val)
		if err != nil {
			fail(workflow, "the summary of workflow %q is undecodable", workflow)
			continue
		}
		pointer, had, err := getValue(txn, summaryKey(tenant, workflow))
		if err != nil {
			return err
		}
		head, found, err := getHead(txn, headKey(tenant, workflow))
		if err != nil {
			return err
		}
		switch {
		case !had || !bytes.Equal(pointer, rest[:store.ActiveKeyLen]):
			fail(workflow, "a summary of workflow %q is not the one the workflow names", workflow)
		case !found:
			fail(workflow, "the summary of workflow %q names a workflow the tenant does not have", workflow)
		case kept != head.Seq:
			fail(workflow, "the summary of workflow %q was written at record %d, not at the workflow's head (%d)", workflow, kept, head.Seq)
		}
	}
	var walkErr error
	check := func(workflow string) {
		pointer, had, err := getValue(txn, summaryKey(tenant, workflow))
		if err == nil && had {
			_, had, err = getValue(txn, activeKey(tenant, pointer, workflow))
		}
		_, marked, merr := getValue(txn, unsummarizedKey(tenant, workflow))
		if walkErr = errors.Join(err, merr); walkErr != nil {
			return
		}
		switch {
		case had && marked:
			fail(workflow, "workflow %q has a summary and is marked unsummarized", workflow)
		case !had && !marked:
			fail(workflow, "workflow %q has no summary and is not marked unsummarized: the lists pass over it", workflow)
		}
	}
	if c.Workflow != "" {
		if _, found, err := getHead(txn, headKey(tenant, c.Workflow)); err != nil || !found {
			return err
		}
		check(c.Workflow)
		return walkErr
	}
	wit := txn.NewIterator(badger.IteratorOptions{Prefix: workflowsPrefix(tenant)})
	defer wit.Close()
	err := walkWorkflows(ctx, txn, wit, tenant, func(workflow string, _ store.Head) error {
		check(workflow)
		return walkErr
	})
	return unwrapCallback("verify summaries", err)
}
