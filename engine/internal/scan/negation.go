package scan

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// negationSpec is guardrails.negation.
type negationSpec struct {
	Cues       []string `json:"cues"`
	Words      int      `json:"words"`
	Runes      int      `json:"runes"`
	Exceptions []string `json:"exceptions"`
	Speaker    string   `json:"speaker"`
}

// negation tells a statement about a control ("the process cannot skip the human
// review", "禁止跳过审核直接发布") from an instruction to skip it: a negation cue a few
// words before the match, in the same clause.
type negation struct {
	cues       []string
	words      int
	runes      int
	exceptions []string
	speaker    *regexp.Regexp // nil: no speaker cue is known
}

func newNegation(spec negationSpec) (negation, error) {
	n := negation{cues: spec.Cues, words: spec.Words, runes: spec.Runes, exceptions: spec.Exceptions}
	if spec.Speaker != "" {
		re, err := regexp.Compile(spec.Speaker)
		if err != nil {
			return n, fmt.Errorf("engine: core guardrails: negation.speaker: %w", err)
		}
		n.speaker = re
	}
	return n, nil
}

// spoken reports a text that is a character's line in a script.
func (n negation) spoken(text string) bool {
	return n.speaker != nil && n.speaker.MatchString(text)
}

// quotePairs are the quotation marks that open and close a quote.
var quotePairs = [][2]rune{{'"', '"'}, {'\'', '\''}, {'“', '”'}, {'‘', '’'}, {'«', '»'}, {'「', '」'}, {'『', '』'}}

// quoted reports whether text[start:end] lies inside quotation marks of prose: a quote
// opens before it, unclosed, and closes after it. An apostrophe between letters (don't)
// is not a quotation mark, and a quote that opens a value of code is not prose.
func quoted(text string, start, end int) bool {
	for _, q := range quotePairs {
		open, code := false, false
		for i, r := range text[:start] {
			switch {
			case apostrophe(text, i, r):
			case q[0] == q[1] && r == q[0]:
				open = !open
				code = open && afterCode(text[:i])
			case r == q[0]:
				open, code = true, afterCode(text[:i])
			case r == q[1]:
				open = false
			}
		}
		if open && !code && strings.ContainsRune(text[end:], q[1]) {
			return true
		}
	}
	return false
}

// afterCode reports a quote opened as a value of code ({"note": "…"}, key='…'): a string
// of JSON or a config is data to act on, not a phrase a sentence mentions.
func afterCode(before string) bool {
	before = strings.TrimRightFunc(before, unicode.IsSpace)
	r, _ := utf8.DecodeLastRuneInString(before)
	return strings.ContainsRune(":{[,=(", r)
}

// apostrophe reports a ' between two letters.
func apostrophe(text string, i int, r rune) bool {
	if r != '\'' && r != '’' {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(text[:i])
	after, _ := utf8.DecodeRuneInString(text[i+utf8.RuneLen(r):])
	return unicode.IsLetter(before) && unicode.IsLetter(after)
}

// clauseEnds are the runes that end a clause: a cue before one of them governs nothing
// after it. A quotation mark or a brace ends one too: a negation does not reach into a
// quote or a JSON object.
const clauseEnds = ".!?;\n。！？；{}\"“”「」"

// governs reports whether a negation cue governs what follows prefix: the cue stands
// in prefix's last clause with at most n.words words (n.runes runes for a cue in a
// script without spaces) after it, and no exception starts at it.
func (n negation) governs(prefix string) bool {
	if len(n.cues) == 0 {
		return false
	}
	clause := prefix
	if i := strings.LastIndexAny(prefix, clauseEnds); i >= 0 {
		_, size := utf8.DecodeRuneInString(prefix[i:])
		clause = prefix[i+size:]
	}
	lower := strings.ReplaceAll(strings.ToLower(clause), "’", "'")
	for _, cue := range n.cues {
		for end := len(lower); end > 0; {
			i := strings.LastIndex(lower[:end], cue)
			if i < 0 {
				break
			}
			end = i
			if !standsAlone(lower, i, len(cue)) || n.excepted(lower[i:]) {
				continue
			}
			if n.near(cue, lower[i+len(cue):]) {
				return true
			}
		}
	}
	return false
}

// near reports whether rest, the text between a cue and the match, is short enough for
// the cue to govern the match.
func (n negation) near(cue, rest string) bool {
	first, _ := utf8.DecodeRuneInString(cue)
	if unicode.In(first, unicode.Han, unicode.Hiragana, unicode.Katakana) {
		return utf8.RuneCountInString(strings.Join(strings.Fields(rest), "")) <= n.runes
	}
	return len(strings.Fields(rest)) <= n.words
}

func (n negation) excepted(at string) bool {
	for _, e := range n.exceptions {
		if strings.HasPrefix(at, e) {
			return true
		}
	}
	return false
}

// standsAlone reports whether the cue at s[i:i+size] is a whole word: a cue that begins
// or ends with a letter of a spaced script must not touch another letter there.
func standsAlone(s string, i, size int) bool {
	cue := s[i : i+size]
	first, _ := utf8.DecodeRuneInString(cue)
	last, _ := utf8.DecodeLastRuneInString(cue)
	if spacedLetter(first) && i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(s[:i]); unicode.IsLetter(r) || r == '\'' {
			return false
		}
	}
	if spacedLetter(last) && i+size < len(s) {
		if r, _ := utf8.DecodeRuneInString(s[i+size:]); unicode.IsLetter(r) || r == '\'' {
			return false
		}
	}
	return true
}

// spacedLetter is a letter of a script that separates words with spaces.
func spacedLetter(r rune) bool {
	return unicode.IsLetter(r) && !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}
