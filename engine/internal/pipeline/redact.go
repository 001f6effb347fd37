package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine/internal/scan"
	"github.com/handoff-dev/handoff/internal/canary"
)

// redact runs at the end of decide. When the scan found forbidden content in the request,
// or a reason of the decision has a code of guardrails.redaction, whatever else the
// decision says (a request refused UNKNOWN_FIELD is redacted too), it prepares the
// redacted copy of the request the log will record (f.redacted, f.redaction), derives
// the recorded derived values from that copy, removes the offending strings (and quoted
// replaced ones) from the decision's and the validation's messages and paths and from
// the decision's trace_id, and makes sure the decision blocks. It returns the state to
// record (nil when it forced a block). When the copy cannot be made safe, f.unrecordable is
// set and Submit records nothing.
func (p *Pipeline) redact(f *flight, d *Decision, next *State) *State {
	tab := p.redaction
	var codes []string
	for _, rs := range d.Reasons {
		if tab.Codes[rs.Code] && !slices.Contains(codes, rs.Code) {
			codes = append(codes, rs.Code)
		}
	}
	hits := scan.ForbiddenPaths(f.derived)
	if len(hits) > 0 && !slices.Contains(codes, codeForbiddenContent) {
		codes = append(codes, codeForbiddenContent)
	}
	if len(codes) == 0 || f.req.value == nil {
		return next
	}
	sort.Strings(codes)
	// The strings the reasons and the scan's hits point at.
	var paths []string
	for _, rs := range d.Reasons {
		if tab.Codes[rs.Code] {
			paths = append(paths, rs.Path)
		}
	}
	rd := tab.Redact(f.req.value, append(paths, hits...))
	cp, secrets, quoted := rd.Value, rd.Secrets, rd.Quoted
	if d.Outcome != handoff.Block {
		*d = *p.rebase(d, p.failClosed(CodePolicyError, fmt.Sprintf("the policy's decision carries %s but does not block: a request carrying content to redact never changes a workflow", strings.Join(codes, ", "))))
		next = nil
	}
	scrubDecision(d, secrets, quoted, tab.Marker)
	for i := range f.validation {
		f.validation[i].Message = scan.ScrubAll(f.validation[i].Message, secrets, quoted, tab.Marker)
		f.validation[i].Path = scan.Scrub(f.validation[i].Path, secrets, tab.Marker)
	}
	if !canary.RecordRawDerived {
		f.derived = p.contracts.Scanner.RedactedDerived(f.derived, cp, rd.Keys, secrets, tab.Marker)
	}
	red := &Redaction{Codes: codes, Marker: tab.Marker, Replaced: rd.Replaced, RequestDigest: f.req.digest, BodySHA256: bodySHA256(f.req.body)}
	for _, k := range tab.Keep {
		red.Kept = append(red.Kept, strings.Join(k, "."))
	}
	if scan.Holds(d.RequestID, secrets) || scan.Holds(d.TenantID, secrets) || scan.Holds(d.WorkflowID, secrets) {
		f.unrecordable = handoff.ErrUnrecordable
		return nil
	}
	// Whatever else of the decision a policy filled from the request (a conflict id,
	// a gate) must not carry a secret either: such a decision fails closed.
	if scan.Leaks(d, secrets) {
		*d = *p.rebase(d, p.failClosed(CodePolicyError, "the policy's decision quotes content that must be redacted"))
		scrubDecision(d, secrets, quoted, tab.Marker)
		if scan.Leaks(d, secrets) {
			f.unrecordable = handoff.ErrUnrecordable
			return nil
		}
	}
	// The messages and the decision's own strings are scrubbed; the copy is checked.
	if scan.Leaks(cp, secrets) {
		cp = map[string]any{"request_id": d.RequestID, "kind": d.Kind, "tenant_id": d.TenantID, "workflow_id": d.WorkflowID}
		red.Stub, red.Kept = true, []string{"request_id", "kind", "tenant_id", "workflow_id"}
		if scan.Leaks(cp, secrets) {
			f.unrecordable = handoff.ErrUnrecordable
			return nil
		}
	}
	f.redacted, f.redaction = cp, red
	return next
}

// codeForbiddenContent is the code of a scan hit of guardrails.forbidden.
const codeForbiddenContent = "FORBIDDEN_CONTENT"

func scrubDecision(d *Decision, secrets, quoted []string, marker string) {
	for i := range d.Reasons {
		d.Reasons[i].Message = scan.ScrubAll(d.Reasons[i].Message, secrets, quoted, marker)
		d.Reasons[i].Path = scan.Scrub(d.Reasons[i].Path, secrets, marker)
	}
	d.TraceID = scan.Scrub(d.TraceID, secrets, marker)
	d.Kind = scan.Scrub(d.Kind, secrets, marker)
}

func bodySHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
