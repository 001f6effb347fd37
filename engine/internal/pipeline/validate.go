package pipeline

import "fmt"

// validate checks a routed request against its pack's contract: the request kind's
// definition and, for outputs, the artifact type's content definition.
func (p *Pipeline) validate(f *flight) []ValidationError {
	value := f.req.value
	if value == nil || f.pack == nil {
		return nil
	}
	def, ok := f.pack.Requests[f.req.kind]
	if !ok {
		return []ValidationError{{Code: "SCHEMA_INVALID", Path: "kind", Message: fmt.Sprintf("unknown request kind %q", f.req.kind)}}
	}
	errs := def.Validate(value)
	out, ok := value["output"].(map[string]any)
	if !ok {
		return errs
	}
	typ, _ := out["type"].(string)
	content, hasContent := out["content"]
	art, ok := f.pack.Artifacts[typ]
	switch {
	case !hasContent:
	case !ok:
		errs = append(errs, ValidationError{Code: "SCHEMA_INVALID", Path: "output.type", Message: fmt.Sprintf("pack %s has no artifact type %q", f.pack.Name, typ)})
	default:
		for _, ve := range art.Validate(content) {
			ve.Path = joinContentPath(ve.Path)
			errs = append(errs, ve)
		}
	}
	return errs
}

func joinContentPath(p string) string {
	switch {
	case p == "":
		return "output.content"
	case p[0] == '[':
		return "output.content" + p
	default:
		return "output.content." + p
	}
}
