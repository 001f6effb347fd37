//go:build canary_csrf

package canary

// SkipCSRF is on in the canary_csrf build: the console takes a form without its CSRF
// token.
const SkipCSRF = true
