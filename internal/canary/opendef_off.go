//go:build !canary_opendef

package canary

// OpenDefinitions is on in the canary_opendef build.
const OpenDefinitions = false
