package badger

import (
	"context"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/store/internal/chain"
)

// readEntry reads the key of item, prefix and then one component, and its value; what
// names the key in the error of a key that is not one component.
func readEntry(item *badger.Item, prefix []byte, what string) (name string, value []byte, err error) {
	name, rest, ok := readComponent(item.Key()[len(prefix):])
	if !ok || len(rest) != 0 {
		return "", nil, fmt.Errorf("%s key: %w", what, chain.ErrCorrupt)
	}
	value, err = itemValue(item)
	return name, value, err
}

// walkEntries calls fn with the name and value of each key under prefix, every one of
// them prefix and one component, checking ctx every ctxCheckEvery keys as counted on
// from *n. An error from fn stops the walk and is returned as is.
func walkEntries(ctx context.Context, txn *badger.Txn, prefix []byte, what string, n *int, fn func(name string, value []byte) error) error {
	it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 64, Prefix: prefix})
	defer it.Close()
	for it.Seek(prefix); it.Valid(); it.Next() {
		if *n++; *n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		name, value, err := readEntry(it.Item(), prefix, what)
		if err != nil {
			return err
		}
		if err := fn(name, value); err != nil {
			return err
		}
	}
	return nil
}
