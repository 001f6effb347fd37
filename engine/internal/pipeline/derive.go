package pipeline

import (
	"crypto/sha256"
	"encoding/binary"
	"sort"

	"github.com/handoff-dev/handoff/engine/internal/scan"
	"github.com/handoff-dev/handoff/internal/canonjson"
)

// derive computes the values policies need that are costly or impossible in Rego:
// content hashes and sizes, the forbidden-content and injection hits of every string
// (one scan, in Go), every artifact reference and scope field the request holds, and
// the request's jitter. Only the parts hashed are encoded: the output's content, the
// input references in order, the context.
func derive(value map[string]any, payloadBytes int, digest string, scanner *scan.Scanner) map[string]any {
	d := map[string]any{"output_hash": "", "input_hash": "", "context_bytes": 0, "payload_bytes": payloadBytes, "jitter_permille": jitterPermille(digest)}
	forbidden, injection := scanner.Scan(value)
	d["forbidden"], d["injection"] = scan.HitValues(forbidden), scan.HitValues(injection)
	d["refs"] = scan.Refs(value)
	d["scopes"] = scan.Scopes(value, scanner.ScopeFields())
	if value == nil {
		return d
	}
	if out, ok := value["output"].(map[string]any); ok {
		if c, ok := out["content"]; ok {
			if h, err := canonjson.Hash(c); err == nil {
				d["output_hash"] = h
			}
		}
	}
	if refs, ok := value["input_artifacts"].([]any); ok {
		sorted := append([]any(nil), refs...)
		sort.SliceStable(sorted, func(i, j int) bool { return refKey(sorted[i]) < refKey(sorted[j]) })
		if h, err := canonjson.Hash(sorted); err == nil {
			d["input_hash"] = h
		}
	}
	if c, ok := value["context"]; ok {
		if b, err := canonjson.Marshal(c); err == nil {
			d["context_bytes"] = len(b)
		}
	}
	return d
}

// Rederive is the derived input of a recorded request decided again: derived anew from
// the request with this bundle's scanner, with the recorded payload size (the log does
// not keep the bytes) and jitter.
func (p *Pipeline) Rederive(value map[string]any, recorded map[string]any) map[string]any {
	d := derive(value, 0, "", p.contracts.Scanner)
	for _, k := range []string{"payload_bytes", "jitter_permille"} {
		if v, ok := recorded[k]; ok {
			d[k] = v
		}
	}
	return d
}

// jitterPermille spreads the retries of many requests: a number from 0 to 100 drawn from
// the request's digest, so the same request always gets the same one. core.retry_decision
// adds delay_ms * jitter_permille / 1000 to a backoff, so the delay the decision reports,
// the delay a pack records and the delay it later checks are one number.
func jitterPermille(digest string) int {
	sum := sha256.Sum256([]byte(digest))
	return int(binary.BigEndian.Uint64(sum[:8]) % 101)
}

func refKey(v any) string {
	b, _ := canonjson.Marshal(v)
	return string(b)
}
