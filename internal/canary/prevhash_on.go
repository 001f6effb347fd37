//go:build canary_prevhash

package canary

// SkipPrevHashCheck is on in the canary_prevhash build.
const SkipPrevHashCheck = true
