package console

import (
	"html/template"
	"net/url"
	"strings"
)

// funcs are the templates' helpers.
func (c *Console) funcs() template.FuncMap {
	return template.FuncMap{
		// title is the METADATA title of a reason code: the reason in plain words.
		"title": func(code string) string {
			if t := c.titles[code]; t != "" {
				return t
			}
			return words(code)
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
