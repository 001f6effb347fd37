package wiregen

import "strings"

// initialisms are the label words Go spells in capitals.
var initialisms = map[string]string{"id": "ID", "ms": "MS", "url": "URL", "uri": "URI", "http": "HTTP", "json": "JSON", "sha": "SHA", "ok": "OK"}

// goName is the Go field name of a CUE label: decision_id is DecisionID.
func goName(label string) string {
	var b strings.Builder
	for _, w := range strings.Split(label, "_") {
		if up, ok := initialisms[w]; ok {
			b.WriteString(up)
		} else if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}
