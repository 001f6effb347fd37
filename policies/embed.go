// Package policies ships the Rego policies of the core and of every pack, with the
// contract tables exported from CUE as JSON data.
package policies

import "embed"

// FS holds handoff/: core/ and one directory per pack.
//
//go:embed handoff
var FS embed.FS
