//go:build !canary_deadline

package canary

// NoEvalDeadline is on in the canary_deadline build.
const NoEvalDeadline = false
