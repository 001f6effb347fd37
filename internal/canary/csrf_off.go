//go:build !canary_csrf

package canary

// SkipCSRF is on in the canary_csrf build.
const SkipCSRF = false
