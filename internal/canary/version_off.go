//go:build !canary_version

package canary

// SkipVersionCheck is on in the canary_version build.
const SkipVersionCheck = false
