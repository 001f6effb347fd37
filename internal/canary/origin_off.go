//go:build !canary_origin

package canary

// SkipOriginCheck is on in the canary_origin build.
const SkipOriginCheck = false
