package pipeline

import "github.com/handoff-dev/handoff/engine/internal/scan"

// wrapUntrusted wraps every value of every context package of the decision as
// {"untrusted_data": value}, leaving values a policy already wrapped as they are, and
// flags the request's strings that look like instructions. Every
// value of a package comes from a request or an artifact some agent, tool or person wrote:
// whatever a policy passes on, and whatever pattern it did not recognise as an
// instruction, reaches the next agent marked as data.
func wrapUntrusted(next []Next, flags []TextHit) {
	for i := range next {
		next[i].Context.MustKnow = scan.WrapValues(next[i].Context.MustKnow)
		next[i].Context.MayKnow = scan.WrapValues(next[i].Context.MayKnow)
		if len(flags) > 0 {
			next[i].Context.Flags = flags
		}
	}
}
