//go:build canary_snapshot

package canary

// SkipSnapshotFold is on in the canary_snapshot build.
const SkipSnapshotFold = true
