//go:build canary_tenant

package canary

// SkipTenantCheck is on in the canary_tenant build.
const SkipTenantCheck = true
