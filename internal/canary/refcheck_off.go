//go:build !canary_refcheck

package canary

// SkipReferenceCheck is on in the canary_refcheck build.
const SkipReferenceCheck = false
