//go:build !canary_pgkey

package canary

// DropRecordKey is on in the canary_pgkey build.
const DropRecordKey = false
