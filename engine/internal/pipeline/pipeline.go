package pipeline

import (
	"time"

	"github.com/handoff-dev/handoff/engine/internal/contract"
	"github.com/handoff-dev/handoff/engine/internal/policy"
	"github.com/handoff-dev/handoff/engine/internal/scan"
	"github.com/handoff-dev/handoff/internal/strictjson"
)

// Pipeline is a compiled bundle ready to decide: its contracts, its policies, the
// digest every decision records, the decoder's limits and the policy deadline. It is
// safe for concurrent use.
type Pipeline struct {
	contracts *contract.Contracts
	policies  *policy.Policies
	digest    string
	limits    strictjson.Limits
	timeout   time.Duration
	// redaction is the core tables' redaction table, read once.
	redaction scan.RedactionTable
	// packDigests cover, per pack, the files its decisions can depend on (digests.go).
	packDigests map[string]string
}

// New returns the pipeline of a compiled bundle whose decisions record digest.
func New(cc *contract.Contracts, pc *policy.Policies, digest string, limits strictjson.Limits, timeout time.Duration) *Pipeline {
	return &Pipeline{contracts: cc, policies: pc, digest: digest, limits: limits, timeout: timeout,
		redaction: scan.ReadRedactionTable(cc.Guardrails)}
}

// Contracts is the bundle's compiled contracts.
func (p *Pipeline) Contracts() *contract.Contracts { return p.contracts }

// Policies is the bundle's compiled policies.
func (p *Pipeline) Policies() *policy.Policies { return p.policies }

// Digest is the bundle digest every decision records.
func (p *Pipeline) Digest() string { return p.digest }

// Timeout is the deadline of one policy evaluation.
func (p *Pipeline) Timeout() time.Duration { return p.timeout }

// Limits bound the requests Decode accepts.
func (p *Pipeline) Limits() strictjson.Limits { return p.limits }
