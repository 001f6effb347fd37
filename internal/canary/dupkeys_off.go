//go:build !canary_dupkeys

package canary

// AcceptDuplicateKeys is on in the canary_dupkeys build.
const AcceptDuplicateKeys = false
