package console

import (
	"html/template"
	"net/url"
	"strings"

	"github.com/handoff-dev/handoff/engine"
)

// funcs are the templates' helpers.
func (c *Console) funcs() template.FuncMap {
	return template.FuncMap{
		// title is a reason of a decision of pack in plain words (titles.of).
		"title": c.titles().of,
		// titled are the reasons of a decision of pack, each with its title.
		"titled": func(pack string, rs []engine.Reason) []engine.Reason {
			out := make([]engine.Reason, len(rs))
			for i, r := range rs {
				r.Title = c.titles().of(pack, r)
				out[i] = r
			}
			return out
		},
		// seg is an id as one segment of a URL path: an id may hold '/' (core.#ID), which
		// the routes' {workflow} and {id} read back escaped, as one segment.
		"seg":   url.PathEscape,
		"words": words,
		"join":  strings.Join,
		// short is the start of a hash, for tables; the full hash is beside it.
		"short": func(h string) string {
			h = strings.TrimPrefix(h, "sha256:")
			if len(h) > 12 {
				return h[:12]
			}
			return h
		},
	}
}
