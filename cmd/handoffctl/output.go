package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// writeJSON writes one JSON document, indented, followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeJSONLine writes one JSON document on one line: the form of streams (log, run).
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// say writes one line of a long-running command's news: the text, or with -o json the
// event as one JSON line.
func (c *cli) say(event any, text string) {
	if c.json() {
		_ = writeJSONLine(c.stdout, event)
		return
	}
	fmt.Fprintln(c.stdout, text)
}

// table writes text in aligned columns: cells are separated by tabs, and nothing
// reaches the underlying writer before flush.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer) *table {
	return &table{tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
}

func (t *table) Write(p []byte) (int, error) { return t.tw.Write(p) }

// row writes one row.
func (t *table) row(cells ...string) { fmt.Fprintln(t.tw, strings.Join(cells, "\t")) }

// flush writes the aligned rows.
func (t *table) flush() { _ = t.tw.Flush() }

// count writes n and the noun, plural unless n is one: "1 record", "2 records",
// "3 policies". The noun's last word is the one made plural.
func count[N int | int64 | uint64](n N, noun string) string {
	return numbered(n, noun, plural(noun))
}

// numbered writes n and the phrase for one, or for many: numbered(n, "file is", "files are").
func numbered[N int | int64 | uint64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// plural is the plural of an English noun that follows the common rules.
func plural(noun string) string {
	switch {
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	}
	return noun + "s"
}
