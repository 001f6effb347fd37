package scan

import (
	"encoding/base64"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of the decoding of encoded strings: the shortest token tried as base64 (shorter
// ones decode to a few bytes, too short to hold a credential and too often printable by
// chance), the longest, and how many tokens one request may have decoded.
const (
	minBase64Token  = 12
	maxBase64Token  = 4096
	maxDecodedTexts = 64
)

// decodedText is the decoded form of an encoded string (or of a token in it).
type decodedText struct {
	path     string
	text     string
	encoding string // "base64" or "percent"
}

// decodedTexts undoes the encodings guardrails.decode names: every base64 token of
// minBase64Token characters or more that decodes to printable text (an HTTP Basic
// credential, base64 of "password=…"), and every string with percent escapes.
func (s *Scanner) decodedTexts(texts []scanText) []decodedText {
	var out []decodedText
	for _, t := range texts {
		if len(out) >= maxDecodedTexts {
			break
		}
		if s.percent && strings.Contains(t.text, "%") {
			if d, err := url.QueryUnescape(t.text); err == nil && d != t.text && printable(d) {
				out = append(out, decodedText{path: t.path, text: d, encoding: "percent"})
			}
		}
		if s.base64 {
			for _, tok := range base64Tokens(t.text) {
				if len(out) >= maxDecodedTexts {
					break
				}
				if d, ok := decodeBase64(tok); ok {
					out = append(out, decodedText{path: t.path, text: d, encoding: "base64"})
				}
			}
		}
	}
	return out
}

// base64Tokens are the runs of the base64 alphabets (standard and URL) in s, with their
// padding, long enough to hold a credential.
func base64Tokens(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		in := i < len(s) && base64Byte(s[i])
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			end := i
			for end < len(s) && end-i < 2 && s[end] == '=' {
				end++
			}
			if n := end - start; n >= minBase64Token && n <= maxBase64Token {
				out = append(out, s[start:end])
			}
			start = -1
		}
	}
	return out
}

func base64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

// decodeBase64 decodes a token in whichever alphabet and padding it is written, and
// keeps it only when the result is printable text with a letter in it: random bytes (a
// hash, an id) are not text.
func decodeBase64(tok string) (string, bool) {
	raw := strings.TrimRight(tok, "=")
	enc := base64.RawStdEncoding
	if strings.ContainsAny(raw, "-_") {
		enc = base64.RawURLEncoding
	}
	b, err := enc.DecodeString(raw)
	if err != nil || len(b) < 6 {
		return "", false
	}
	d := string(b)
	if !printable(d) || !strings.ContainsFunc(d, unicode.IsLetter) {
		return "", false
	}
	return d, true
}

// printable reports valid UTF-8 without control characters other than tab and newlines.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) && r != '\t' && r != '\n' && r != '\r' {
			return false
		}
	}
	return true
}

// decodedEncoding is the encoding of the decoded text at path.
func decodedEncoding(decoded []decodedText, path string) string {
	for _, d := range decoded {
		if d.path == path {
			return d.encoding
		}
	}
	return "decoded"
}
