//go:build canary_origin

package canary

// SkipOriginCheck is on in the canary_origin build: the review console takes a form
// posted from a page of another site.
const SkipOriginCheck = true
