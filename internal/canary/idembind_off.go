//go:build !canary_idembind

package canary

// TrustIdempotencyEntry is on in the canary_idembind build.
const TrustIdempotencyEntry = false
