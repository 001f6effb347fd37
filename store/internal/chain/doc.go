// Package chain holds what both store backends do alike: the records as they are
// kept (the value codec, sealing), the checks of an append before it is written, the
// walk that verifies a chain and the check of the idempotency keys and record index
// against the records they name, and the tracking of the calls in progress.
package chain
