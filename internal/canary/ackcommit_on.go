//go:build canary_ackcommit

package canary

// AckBeforeCommit is on in the canary_ackcommit build.
const AckBeforeCommit = true
