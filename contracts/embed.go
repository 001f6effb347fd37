// Package contracts ships the CUE contracts of the core and of every pack.
package contracts

import "embed"

// FS holds the CUE module: cue.mod, core/ and one directory per pack.
//
//go:embed *
var FS embed.FS
