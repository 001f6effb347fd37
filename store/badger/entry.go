package badger

import (
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
