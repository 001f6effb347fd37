package scan

import (
	"regexp"
	"strings"
	"unicode"
)

// shape is how much a word looks like a credential.
type shape int

const (
	// plain: a word, a number, an id, a date, a URL: nothing to hide.
	plain shape = iota
	// loose: letters with digits, three kinds of character, letters of both cases inside
	// a word, or four hyphenated words: a credential when a word that names one is near.
	loose
	// mixed: loose, with three kinds of character of which both cases (Lumen2027,
	// Mingyue_Q3).
	mixed
	// strong: 8 or more characters of all four kinds, a symbol other than - and _ among
	// them (P@ssw0rd123, Sunny#Bay1987): a password on its own.
	strong
)

// maxPassword is the longest word taken for a password on its own: longer runs of every
// kind of character are encoded data (a certificate line, a token a rule set knows).
const maxPassword = 32

// ordinaryWord are words that look random but are not secrets: e-mails, dates and
// times, UUIDs, hex digests, versions, sizes and units, prices, file names and ids of
// capitals and digits.
var ordinaryWord = regexp.MustCompile(`(?i)^(?:[^@\s]+@[^@\s]+\.[a-z]{2,}|\d{4}-\d{2}-\d{2}.*|\d{1,2}[:h]\d{2}(?::\d{2})?|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?:sha256:|sha1:|md5:)?[0-9a-f]{12,}|v?\d+(?:\.\d+)+(?:[.-][0-9a-z]+)*|\d+(?:[.,]\d+)?(?:x\d+|[a-z%°]{1,4})|[a-z]{0,3}[$€£¥]+[\d.,]+|.+\.(?:png|jpe?g|gif|webp|svg|mp4|mov|wav|mp3|pdf|docx?|xlsx?|pptx?|csv|json|ya?ml|txt|md|html?|zip))$`)

// wordShape classifies one word of a text (its surrounding punctuation removed).
func wordShape(w string) shape {
	n := len([]rune(w))
	if n < 4 || n > 64 || strings.Contains(w, "://") || strings.ContainsAny(w, `/\`) ||
		strings.HasPrefix(w, "#") || strings.HasPrefix(w, "@") || ordinaryWord.MatchString(w) || placeholder(w) {
		return plain
	}
	var lower, upper, digit, symbol, special, innerUpper bool
	for i, r := range w {
		switch {
		case r > unicode.MaxASCII && unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r), unicode.IsSpace(r):
			return plain // a word of a script without case (Chinese) is a word
		case unicode.IsUpper(r):
			upper = true
			innerUpper = innerUpper || i > 0
		case unicode.IsLetter(r):
			lower = true
		case r >= '0' && r <= '9':
			digit = true
		case unicode.IsDigit(r):
			return plain
		default:
			symbol = true
			special = special || (r != '-' && r != '_' && r != '.')
		}
	}
	if !lower && !strings.ContainsFunc(w, func(r rune) bool { return !strings.ContainsRune("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_#.", r) }) {
		return plain // ORD-1001, QB123456789BR, CHUNCHA15: an id
	}
	kinds := 0
	for _, k := range []bool{lower, upper, digit, symbol} {
		if k {
			kinds++
		}
	}
	switch {
	case kinds == 4 && special && n >= 8 && n <= maxPassword:
		return strong
	case kinds >= 3 && lower && upper:
		return mixed
	case digit && (lower || upper), kinds >= 3, lower && innerUpper, passphrase(w):
		return loose
	}
	return plain
}

// pinWord reports 4 to 10 digits, which after a PIN cue are a PIN.
func pinWord(w string) bool {
	if len(w) < 4 || len(w) > 10 {
		return false
	}
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// passphrase reports four or more words of three or more letters joined by hyphens.
func passphrase(s string) bool {
	parts := strings.Split(s, "-")
	if len(parts) < 4 {
		return false
	}
	for _, p := range parts {
		if len(p) < 3 || strings.ContainsFunc(p, func(r rune) bool { return !unicode.IsLetter(r) }) {
			return false
		}
	}
	return true
}

// trimValue drops the punctuation a sentence puts after a value.
func trimValue(s string) string {
	return strings.TrimRightFunc(s, func(r rune) bool {
		return strings.ContainsRune(".,;:?)]}\"'”’」』）>。，；：！？、", r)
	})
}

// placeholder reports a value that stands for a secret without being one: empty, a mask
// ("********", "xxxx", "•••"), a bracketed or templated name ("[REDACTED]", "<password>",
// "{{ secret }}", "${DB_PASSWORD}") or a word saying there is none.
func placeholder(s string) bool {
	s = strings.TrimSpace(trimValue(s))
	if s == "" {
		return true
	}
	switch strings.ToLower(s) {
	case "n/a", "na", "none", "null", "nil", "-", "redacted", "hidden", "masked", "omitted", "nenhuma", "nenhum", "无", "空":
		return true
	}
	if strings.HasPrefix(s, "<") || strings.HasPrefix(s, "[") || strings.HasPrefix(s, "{{") || strings.HasPrefix(s, "${") || strings.HasPrefix(s, "$(") {
		return true
	}
	for _, r := range s {
		if !strings.ContainsRune("*xX•●·#?_", r) {
			return false
		}
	}
	return true
}
