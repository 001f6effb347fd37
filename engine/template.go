package engine

import "github.com/handoff-dev/handoff/engine/internal/guide"

// TemplateOptions say which request a template is for (Target, Source, Output). The
// zero value is a request of the kind with nothing more chosen.
type TemplateOptions = guide.TemplateOptions

// Template is a request skeleton walked from a pack's CUE request definition: every
// required field with a placeholder its constraint accepts, and the optional fields a
// request of the kind needs in practice. JSONC is it with comments, JSON as plain JSON,
// Enums the values of each enumeration.
type Template = guide.Template

// TemplateError says a template asks for a pack, request kind or agent the bundle does
// not have, or for options that do not go together. Name and Known, when set, are the
// name not found and the names there are.
type TemplateError = guide.TemplateError

// Template returns the skeleton of a request of kind for pack, walked once per pack,
// kind and options and kept (a Template is read only). It fails with a *TemplateError
// for an unknown pack, kind or agent. Template is safe for concurrent use.
func (dc *Decider) Template(pack, kind string, opts TemplateOptions) (*Template, error) {
	return guide.TemplateFor(dc.contracts, pack, kind, opts)
}
