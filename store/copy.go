package store

import (
	"context"
	"errors"
	"fmt"
)

// CopyReport counts what Copy copied.
type CopyReport struct {
	Chains  int `json:"chains"`  // workflows and audit streams
	Records int `json:"records"` // records of those chains
	Keys    int `json:"keys"`    // idempotency keys
	IDs     int `json:"ids"`     // record ids of the index
}

// ChainCopy is one chain as Copy writes it to a store: its records sealed as the source
// sealed them (each one's hash checked against its fields), its head and its snapshot.
type ChainCopy struct {
	Chain
	Records  []Record
	Snapshot []byte   // nil for an audit stream
	Summary  *Summary // the workflow's summary; nil for none
}

// Importer is a Log that Copy can read from and write to: raw chains, keys and ids,
// already sealed. Both backends implement it; its methods are Copy's and are not meant
// for other callers.
type Importer interface {
	Log
	// ImportChain writes a chain as it was sealed elsewhere: its records, head,
	// snapshot and owner entry.
	ImportChain(ctx context.Context, c ChainCopy) error
	// ImportKeys writes idempotency keys of tenant, each bound to its record.
	ImportKeys(ctx context.Context, tenant string, keys []Idempotency) error
	// ImportIDs writes entries of the record index.
	ImportIDs(ctx context.Context, ids map[string]Location) error
	// IndexEntries calls fn with every entry of the record index.
	IndexEntries(ctx context.Context, fn func(id string, loc Location) error) error
	// SummaryOf reads the summary of a workflow of tenant; found is false when it has
	// none.
	SummaryOf(ctx context.Context, tenant, workflow string) (s Summary, found bool, err error)
}

// Copy copies every chain of src into dst, which must be empty: each workflow's and
// each audit stream's records byte for byte (so their hashes are the same), its head,
// snapshot and summary, every idempotency key and every record id. Each chain of src is verified
// before it is copied and again in dst after; a chain that does not verify stops the
// copy. progress, when set, is called after each chain. src should not be written while
// it is copied: open it read-only.
func Copy(ctx context.Context, dst, src Log, progress func(Chain)) (CopyReport, error) {
	var rep CopyReport
	to, ok := dst.(Importer)
	if !ok {
		return rep, invalid("copy: the target is not a store this package opened")
	}
	from, ok := src.(Importer)
	if !ok {
		return rep, invalid("copy: the source is not a store this package opened")
	}
	if tenants, err := dst.Tenants(ctx); err != nil {
		return rep, err
	} else if len(tenants) > 0 {
		return rep, &Error{Op: "copy", Err: fmt.Errorf("%w: the target store is not empty (%d tenants): copy into a new store", ErrExists, len(tenants))}
	}
	var chains []Chain
	if err := src.Chains(ctx, func(c Chain) error { chains = append(chains, c); return nil }); err != nil {
		return rep, err
	}
	for _, c := range chains {
		n, err := copyChain(ctx, to, from, c)
		if err != nil {
			return rep, err
		}
		rep.Chains++
		rep.Records += n
		if progress != nil {
			progress(c)
		}
	}
	tenants, err := src.Tenants(ctx)
	if err != nil {
		return rep, err
	}
	for _, tenant := range tenants {
		var keys []Idempotency
		err := src.IdempotencyKeys(ctx, tenant, func(k Idempotency) error {
			if k.Unbound || k.Hash == "" {
				return &Error{Op: "copy", Err: fmt.Errorf("idempotency key %q of tenant %q is not bound to a record: open the store with handoffctl once to upgrade it", k.Key, tenant)}
			}
			keys = append(keys, k)
			return nil
		})
		if err != nil {
			return rep, err
		}
		if err := to.ImportKeys(ctx, tenant, keys); err != nil {
			return rep, err
		}
		rep.Keys += len(keys)
	}
	ids := map[string]Location{}
	err = from.IndexEntries(ctx, func(id string, loc Location) error {
		ids[id] = loc
		if len(ids) == 4096 {
			rep.IDs += len(ids)
			err := to.ImportIDs(ctx, ids)
			clear(ids)
			return err
		}
		return nil
	})
	if err == nil {
		rep.IDs += len(ids)
		err = to.ImportIDs(ctx, ids)
	}
	return rep, err
}

// copyChain copies one chain and verifies it on both sides; it returns its records.
func copyChain(ctx context.Context, to, src Importer, c Chain) (int, error) {
	verify := func(l Log) (VerifyReport, error) {
		if c.Audit {
			return l.VerifyAudit(ctx, c.Tenant)
		}
		return l.Verify(ctx, c.Tenant, c.Workflow)
	}
	name := fmt.Sprintf("workflow %q of tenant %q", c.Workflow, c.Tenant)
	if c.Audit {
		name = fmt.Sprintf("the audit stream of tenant %q", c.Tenant)
	}
	if rep, err := verify(src); err != nil {
		return 0, err
	} else if !rep.OK {
		return 0, &Error{Op: "copy", Err: fmt.Errorf("%w: %s does not verify at record %d: %s", ErrTampered, name, rep.BrokenSeq, rep.Problem)}
	}
	cc := ChainCopy{Chain: c}
	domain := DomainRecord
	collect := func(r Record) error {
		if RecordHash(domain, r.Seq, FormatTime(r.Time), r.Type, r.Payload, r.PrevHash, c.Tenant, c.Workflow) != r.Hash {
			return &Error{Op: "copy", Err: fmt.Errorf("record %d of %s does not seal to its hash again", r.Seq, name)}
		}
		cc.Records = append(cc.Records, r)
		return nil
	}
	var err error
	if c.Audit {
		domain = DomainAudit
		if cc.Head, err = src.AuditHead(ctx, c.Tenant); err == nil {
			err = src.AuditRecords(ctx, c.Tenant, 1, collect)
		}
	} else {
		if cc.Snapshot, cc.Head, err = src.State(ctx, c.Tenant, c.Workflow); err == nil {
			err = src.Records(ctx, c.Tenant, c.Workflow, 1, collect)
		}
		if err == nil {
			var s Summary
			var found bool
			if s, found, err = src.SummaryOf(ctx, c.Tenant, c.Workflow); found && s.Head.Seq == cc.Head.Seq {
				cc.Summary = &s
			}
		}
	}
	if err != nil {
		return 0, err
	}
	if n := len(cc.Records); n == 0 || cc.Records[n-1].Seq != cc.Head.Seq || cc.Records[n-1].Hash != cc.Head.Hash {
		return 0, &Error{Op: "copy", Err: fmt.Errorf("%s changed while it was copied: copy from a store opened read-only", name)}
	}
	if err := to.ImportChain(ctx, cc); err != nil {
		return 0, err
	}
	rep, err := verify(to)
	if err != nil {
		return 0, err
	}
	if !rep.OK {
		return 0, &Error{Op: "copy", Err: errors.New(name + " does not verify in the target: " + rep.Problem)}
	}
	return len(cc.Records), nil
}
