//go:build canary_idemscan

package canary

// IdempotencyRangeScan is on in the canary_idemscan build.
const IdempotencyRangeScan = true
