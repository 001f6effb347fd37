//go:build canary_actor

package canary

// SkipActorCheck is on in the canary_actor build.
const SkipActorCheck = true
