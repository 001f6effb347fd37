package mcp

import "regexp"

// marker matches the untrusted-data markers in any case, with any space a model might
// still read as one.
var marker = regexp.MustCompile(`(?i)<\s*/?\s*untrusted-data\s*>`)

// untrusted quotes text that may come from a request's sender between markers a model
// is told to read as data, never as instructions. A marker inside the text is removed so
// that the text cannot close the quote early.
func untrusted(s string) string {
	return "<untrusted-data>" + marker.ReplaceAllString(s, "[marker removed]") + "</untrusted-data>"
}
