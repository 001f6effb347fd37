package wiregen

import (
	"strings"
	"unicode"
)

// width is the column comments wrap at, a tab counting as four.
const width = 90

// typeDoc is a definition's doc with the definition's name replaced by the Go type's:
// "#Retry is ..." becomes "RetryPlan is ...".
func typeDoc(doc, cueName, goName string) string {
	if rest, ok := strings.CutPrefix(doc, cueName); ok && !startsWord(rest) {
		return goName + rest
	}
	return doc
}

// fieldDoc is a field's doc with the leading label replaced by the Go name, as Go doc
// comments start: "title is ..." becomes "Title is ...".
func fieldDoc(doc, label string) string {
	if rest, ok := strings.CutPrefix(doc, label); ok && !startsWord(rest) {
		return goName(label) + rest
	}
	return doc
}

func startsWord(s string) bool {
	if s == "" {
		return false
	}
	r := rune(s[0])
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// comment wraps doc as // lines at the given indent (in tabs), paragraphs kept apart.
func comment(doc string, indent int) []string {
	if doc == "" {
		return nil
	}
	prefix := strings.Repeat("\t", indent) + "//"
	limit := width - 4*indent - len("// ")
	var lines []string
	for i, para := range strings.Split(doc, "\n\n") {
		if i > 0 {
			lines = append(lines, prefix)
		}
		line := ""
		for _, w := range strings.Fields(para) {
			if line != "" && len([]rune(line))+1+len([]rune(w)) > limit {
				lines = append(lines, prefix+" "+line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		if line != "" {
			lines = append(lines, prefix+" "+line)
		}
	}
	return lines
}
