// Package badger is the embedded backend of the store.Log contract: a Badger
// directory that one process owns (or a store in memory, for tests). Open opens it,
// Restore makes one of a backup; the key layout is described in package store.
//
// No Badger type or error crosses the package boundary.
package badger
