package engine

import "github.com/handoff-dev/handoff/internal/strictjson"

// Limits bound the requests the engine decodes. A request past a limit is blocked with
// PAYLOAD_TOO_LARGE (too many bytes, or too long a string), DEPTH_EXCEEDED or
// SCHEMA_INVALID (too many keys in an object), and recorded in the security audit stream.
// A zero field takes its default.
type Limits struct {
	// MaxBytes is the largest request, in bytes. Default 1 MiB.
	MaxBytes int
	// MaxDepth is the deepest nesting of objects and arrays: a scalar has depth 0, [] and
	// {} depth 1, [[]] depth 2. Default 32.
	MaxDepth int
	// MaxKeys is the largest number of keys in one object. Default 1024.
	MaxKeys int
	// MaxStringBytes is the longest string (value or key), in bytes of UTF-8. Default
	// 256 KiB.
	MaxStringBytes int
}

// DefaultLimits are the limits of the zero Limits.
var DefaultLimits = Limits{
	MaxBytes:       strictjson.DefaultLimits.MaxBytes,
	MaxDepth:       strictjson.DefaultLimits.MaxDepth,
	MaxKeys:        strictjson.DefaultLimits.MaxKeys,
	MaxStringBytes: strictjson.DefaultLimits.MaxStringBytes,
}

// Limits returns the limits the decider decodes requests within, every zero field at its
// default. A host that reads request bodies bounds them by MaxBytes.
func (dc *Decider) Limits() Limits {
	d := dc.limits.decoder().WithDefaults()
	return Limits{MaxBytes: d.MaxBytes, MaxDepth: d.MaxDepth, MaxKeys: d.MaxKeys, MaxStringBytes: d.MaxStringBytes}
}

func (l Limits) decoder() strictjson.Limits {
	return strictjson.Limits{MaxBytes: l.MaxBytes, MaxDepth: l.MaxDepth, MaxKeys: l.MaxKeys, MaxStringBytes: l.MaxStringBytes}
}
