package scan

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/handoff-dev/handoff"
)

// credentialSpec is guardrails.credentials.
type credentialSpec struct {
	KeyEnds       []string `json:"key_ends"`
	KeyStarts     []string `json:"key_starts"`
	KeyModifiers  []string `json:"key_modifiers"`
	KeyValueWords int      `json:"key_value_words"`
	Cues          []string `json:"cues"`
	PinCues       []string `json:"pin_cues"`
	PublicWords   []string `json:"public_words"`
	Connectors    []string `json:"connectors"`
	Owners        []string `json:"owners"`
	Window        int      `json:"window"`
	LabelWords    int      `json:"label_words"`
}

// credentials finds credentials no fixed pattern does, by the words that name them
// (guardrails.credentials): under keys that name one, near words that name one in a
// sentence, split between a label and a value, after an e-mail and a slash, and strong
// passwords on their own.
type credentials struct {
	keyEnds, keyStarts [][]string
	hanEnds            []string // key_ends in a script without spaces, matched as a key's suffix
	modifiers          map[string]bool
	hanModifiers       []string
	valueWords         int
	cues               [][]string // each a phrase of lower-case words (cues and pin cues), longest first
	hanCues            []string   // cues in a script without spaces, matched inside a word
	pinCues            map[string]bool
	pinOnly            map[string]bool // pin cues that are not cues: only digits follow them
	connectors, owners map[string]bool
	public             map[string]bool
	// keySignals are the first words of key_ends and key_starts: a key holding none of
	// them names no credential, and is not split into words.
	keySignals         []string
	window, labelWords int
}

func newCredentials(spec credentialSpec) *credentials {
	c := &credentials{valueWords: spec.KeyValueWords, window: spec.Window, labelWords: spec.LabelWords,
		pinCues: set(spec.PinCues), pinOnly: map[string]bool{}, connectors: set(spec.Connectors), owners: set(spec.Owners), public: set(spec.PublicWords),
		modifiers: map[string]bool{}}
	for _, m := range spec.KeyModifiers {
		if hanWord(m) {
			c.hanModifiers = append(c.hanModifiers, m)
		} else {
			c.modifiers[m] = true
		}
	}
	isCue := set(spec.Cues)
	for _, p := range spec.PinCues {
		if !isCue[p] {
			c.pinOnly[p] = true
			spec.Cues = append(spec.Cues, p)
		}
	}
	for _, e := range spec.KeyEnds {
		if hanWord(e) {
			c.hanEnds = append(c.hanEnds, e)
		} else {
			c.keyEnds = append(c.keyEnds, strings.Fields(e))
		}
	}
	for _, s := range spec.KeyStarts {
		c.keyStarts = append(c.keyStarts, strings.Fields(s))
	}
	for _, p := range slices.Concat(c.keyEnds, c.keyStarts) {
		c.keySignals = append(c.keySignals, p[0])
	}
	c.keySignals = append(c.keySignals, c.hanEnds...)
	for _, cue := range spec.Cues {
		if hanWord(cue) {
			c.hanCues = append(c.hanCues, cue)
		} else {
			c.cues = append(c.cues, strings.Fields(cue))
		}
	}
	slices.SortStableFunc(c.cues, func(a, b []string) int { return len(b) - len(a) })
	return c
}

func set(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// hanWord reports a word of a script written without spaces.
func hanWord(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) })
}

// keyWords splits a key into lower-case words at underscores, hyphens, dots, spaces and
// case changes: db_password, clientSecret and API-Key are [db password], [client
// secret] and [api key].
func keyWords(k string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range k {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return words
}

// namesCredential reports whether a key names a credential: it ends with one of
// key_ends (db_password, 数据库密码) or starts with one of key_starts (senha_banco).
func (c *credentials) namesCredential(key string) bool {
	lower := strings.ToLower(strings.TrimSpace(key))
	signal := false
	for _, s := range c.keySignals {
		if strings.Contains(lower, s) {
			signal = true
			break
		}
	}
	if !signal {
		return false
	}
	words := keyWords(key)
	for _, w := range words {
		if c.modifiers[w] {
			return false
		}
	}
	for _, m := range c.hanModifiers {
		if strings.Contains(lower, m) {
			return false
		}
	}
	for _, p := range c.keyEnds {
		if len(words) >= len(p) && slices.Equal(words[len(words)-len(p):], p) {
			return true
		}
	}
	// A key in the other order names its credential first and its owner after, in one
	// word besides a preposition (senha_banco, chave_api, senha_do_link).
	for _, p := range c.keyStarts {
		if len(words) >= len(p) && slices.Equal(words[:len(p)], p) {
			rest := slices.DeleteFunc(slices.Clone(words[len(p):]), func(w string) bool { return c.owners[w] })
			if len(rest) <= 1 {
				return true
			}
		}
	}
	for _, e := range c.hanEnds {
		if strings.HasSuffix(lower, e) {
			return true
		}
	}
	return false
}

// keyValue reports whether a value under a key that names a credential holds one: not a
// placeholder, at most key_value_words words, no clause break ("no, the landing page
// is public" answers a question about a password).
func (c *credentials) keyValue(v string) bool {
	v = strings.TrimSpace(v)
	if placeholder(v) || len(strings.Fields(v)) > c.valueWords || urlStart(v, 0) {
		return false // a URL holds a credential only with a user and password, which credential_url finds
	}
	return !strings.Contains(v, ", ") && !strings.Contains(v, "; ") && !strings.ContainsAny(v, "，。；\n")
}

// keyHits are the strings held under object keys that name a credential.
func (c *credentials) keyHits(v any) []handoff.TextHit {
	hits := []handoff.TextHit{}
	walkJSON(v, "", func(path string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, x := range m {
			if !c.namesCredential(k) {
				continue
			}
			walkJSON(x, joinKey(path, k), func(p string, e any) {
				if str, ok := e.(string); ok && c.keyValue(str) {
					hits = append(hits, handoff.TextHit{Path: p, Pattern: "credential_key"})
				}
			})
		}
	})
	return hits
}

// keyValueInText finds "key: value" and "key=value" pairs in a text: lines of a config,
// .env or YAML file, a connection string, a query string, JSON quoted in a text.
var keyValueInText = regexp.MustCompile(`([\p{L}_][\p{L}\p{N}_.\-]*)["']?[ \t]*[:=：][ \t]*`)

// textHits are the credentials in one text (lower is its keyword form): under a key that
// names one, near a cue, after an e-mail and a slash, or a strong password. Each rule
// runs only on a text that holds what it needs: a colon or equals sign, a cue, an @, a
// digit.
func (c *credentials) textHits(text string, cue bool) []string {
	var found []string
	for _, m := range keyValueMatches(text) {
		if m[0] > 0 && text[m[0]-1] == '/' || !c.namesCredential(text[m[2]:m[3]]) {
			continue
		}
		if v := valueAt(text[m[1]:]); v != "" && c.keyValue(v) {
			found = append(found, "credential_key")
			break
		}
	}
	digits := strings.ContainsAny(text, "0123456789")
	if !digits && !cue {
		return found
	}
	words := textWords(text)
	if cue && c.nearCue(words) {
		found = append(found, "credential_near_cue")
	}
	if strings.Contains(text, "@") && loginPair.MatchString(text) {
		for _, m := range loginPair.FindAllStringSubmatch(text, -1) {
			if wordShape(trimWord(m[1])) >= loose {
				found = append(found, "login_pair")
				break
			}
		}
	}
	for _, w := range words {
		if digits && wordShape(w.text) == strong {
			found = append(found, "strong_password")
			break
		}
	}
	return found
}

// mentions reports whether a text's keyword form holds a cue.
func (c *credentials) mentions(lower string) bool {
	for _, cue := range c.hanCues {
		if strings.Contains(lower, cue) {
			return true
		}
	}
	for _, p := range c.cues {
		if strings.Contains(lower, p[0]) {
			return true
		}
	}
	return false
}

// valueAt reads the value that starts s: a quoted string, or everything up to the end
// of the line, a separator (; & |) or a remark after it (" (…", " #…", " //…").
func valueAt(s string) string {
	if s == "" {
		return ""
	}
	if q := s[0]; q == '"' || q == '\'' {
		if end := strings.IndexByte(s[1:], q); end >= 0 {
			return s[1 : end+1]
		}
	}
	if end := strings.IndexAny(s, ";&|\n\r"); end >= 0 {
		s = s[:end]
	}
	for _, remark := range []string{" (", " #", " //", "（"} {
		if end := strings.Index(s, remark); end > 0 {
			s = s[:end]
		}
	}
	return strings.Trim(strings.TrimSpace(s), `"'`)
}

// keyValueMatches are the key: value pairs of a text that has a colon or equals sign.
func keyValueMatches(text string) [][]int {
	if !strings.ContainsAny(text, ":=：") {
		return nil
	}
	return keyValueInText.FindAllStringSubmatchIndex(text, -1)
}

// loginPair is an e-mail followed by a slash and a word: a login written as
// "user@example.com / password".
var loginPair = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+\s*/\s*(\S+)`)

// word is one word of a text and the sentence it belongs to.
type word struct {
	text     string // punctuation around it removed
	lower    string
	sentence int
	colon    bool // the word ended with a colon or an equals sign
}

// textWords splits a text into words: at spaces, at the punctuation of scripts without
// spaces, and where such a script meets another. A sentence ends at . ! ? ; or a line
// break after a word, and at 。！？；.
func textWords(text string) []word {
	var out []word
	sentence := 0
	var cur strings.Builder
	curHan := false
	skip := 0
	flush := func(end rune) {
		raw := cur.String()
		cur.Reset()
		if raw == "" {
			return
		}
		t := trimWord(raw)
		if t != "" {
			last, _ := utf8.DecodeLastRuneInString(raw)
			out = append(out, word{text: t, lower: strings.ToLower(t), sentence: sentence, colon: last == ':' || last == '=' || end == ':' || end == '=' || end == '：'})
			if strings.ContainsRune(".!?", last) && t != raw {
				sentence++
			}
		}
	}
	for i, r := range text {
		if skip > i {
			continue
		}
		if urlStart(text, i) {
			// A URL is one word, whatever its : and = say.
			flush(0)
			end := strings.IndexFunc(text[i:], unicode.IsSpace)
			if end < 0 {
				end = len(text) - i
			}
			out = append(out, word{text: text[i : i+end], lower: strings.ToLower(text[i : i+end]), sentence: sentence})
			skip = i + end
			continue
		}
		switch {
		case strings.ContainsRune("。！？；;\n", r):
			flush(r)
			sentence++
		case unicode.IsSpace(r) || strings.ContainsRune(wordBreaks, r):
			flush(r)
		default:
			han := unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
			if cur.Len() > 0 && han != curHan {
				flush(0)
			}
			curHan = han
			cur.WriteRune(r)
		}
	}
	flush(0)
	return out
}

// urlStart reports a URL starting at text[i]: a scheme and "://" at a word's start.
func urlStart(text string, i int) bool {
	if i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(text[:i]); unicode.IsLetter(r) || unicode.IsDigit(r) || r == '+' || r == '.' || r == '-' {
			return false
		}
	}
	j := i
	for j < len(text) && (text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z' || j > i && (text[j] >= '0' && text[j] <= '9' || text[j] == '+' || text[j] == '.' || text[j] == '-')) {
		j++
	}
	return j > i && strings.HasPrefix(text[j:], "://")
}

// wordBreaks end a word without ending its sentence: CJK punctuation, and the marks of
// key=value, JSON and lists, so that "REGIAO=sa-east-1" is two words.
const wordBreaks = "，、：（）「」『』“”【】《》=:,\"{}|;()[]"

// trimWord removes the punctuation around a word.
func trimWord(s string) string {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return strings.ContainsRune("\"'“‘(（[「『<*", r) })
	return trimValue(s)
}

// cueAt reports whether a cue ends at words[i] and, if so, where it starts and whether
// it is a PIN cue.
func (c *credentials) cueAt(words []word, i int) (start int, pin, ok bool) {
	w := words[i]
	if hanWord(w.text) {
		for _, cue := range c.hanCues {
			if strings.Contains(w.lower, cue) {
				return i, c.pinCues[cue], true
			}
		}
		return 0, false, false
	}
	for _, p := range c.cues {
		s := i - len(p) + 1
		if s < 0 || words[s].sentence != w.sentence {
			continue
		}
		match := true
		for k, pw := range p {
			if words[s+k].lower != pw {
				match = false
				break
			}
		}
		if match {
			return s, c.pinCues[strings.Join(p, " ")], true
		}
	}
	return 0, false, false
}

// nearCue reports a credential near a cue of its sentence: a credential-shaped word
// right after the cue or after a connector within window words (not right after an
// owner word), 4 to 10 digits within three words of a PIN cue, or a mixed or strong
// word within four words before the cue.
func (c *credentials) nearCue(words []word) bool {
	for i := range words {
		start, pin, ok := c.cueAt(words, i)
		if !ok || start > 0 && c.public[words[start-1].lower] {
			continue
		}
		only := c.pinOnly[cueText(words, start, i)]
		for j := i + 1; j < len(words) && j <= i+c.window && words[j].sentence == words[i].sentence; j++ {
			prev := words[j-1]
			if j > i+1 && c.owners[prev.lower] {
				continue
			}
			next := j == i+1 || prev.colon || c.connectors[prev.lower]
			if pin && pinWord(words[j].text) && (next || j <= i+3) {
				return true
			}
			if !only && next && (wordShape(words[j].text) >= loose || hexWord(words[j].text)) {
				return true
			}
		}
		if only {
			continue
		}
		for j := start - 1; j >= 0 && j >= start-4 && words[j].sentence == words[i].sentence; j-- {
			if wordShape(words[j].text) >= mixed {
				return true
			}
		}
	}
	return false
}

// cueText is the cue words[start..end] as it stands in the tables.
func cueText(words []word, start, end int) string {
	if hanWord(words[end].text) {
		return ""
	}
	parts := make([]string, 0, end-start+1)
	for _, w := range words[start : end+1] {
		parts = append(parts, w.lower)
	}
	return strings.Join(parts, " ")
}

// names reports whether a text holds a PIN cue.
func (c *credentials) names(text string) (pin, ok bool) {
	words := textWords(text)
	for i := range words {
		if _, p, found := c.cueAt(words, i); found && p {
			return true, true
		}
	}
	return false, false
}

// labels reports whether a text may be the label half of a split credential: it holds a
// cue and is short or ends with a colon. pin says the cue is a PIN cue.
func (c *credentials) label(text string) (pin, ok bool) {
	words := textWords(text)
	if len(words) == 0 {
		return false, false
	}
	t := strings.TrimSpace(text)
	if len(words) > c.labelWords && !strings.HasSuffix(t, ":") && !strings.HasSuffix(t, "：") && !strings.HasSuffix(t, "->") &&
		!c.connectors[words[len(words)-1].lower] {
		return false, false
	}
	for i := range words {
		if start, p, found := c.cueAt(words, i); found && (start == 0 || !c.public[words[start-1].lower]) {
			pin, ok = pin || p, true
		}
	}
	// A key-like label: SENHA_BANCO names a credential as a key does.
	if !ok && len(words) == 1 && c.namesCredential(words[0].text) {
		ok = true
	}
	return pin, ok
}

// maxValueWords is the most words the value half of a split credential has: a value,
// perhaps with a short remark ("It's 602914.", "Painel!2026, mudar até sexta"), not a
// text about something else.
const maxValueWords = 6

// holdsValue reports whether a text holds the value half of a split credential: one of
// its first two words mixed or strong (digits after a PIN label), or a single
// credential-shaped word or hex run.
func holdsValue(words []word, pin bool) bool {
	if pin {
		// A PIN written digit by digit ("5 5 9 0 1 2", "4-1-9-7"), or after a few words.
		if digitByDigit(words) {
			return true
		}
		for _, w := range words[:min(len(words), 2*maxValueWords)] {
			if pinWord(w.text) {
				return true
			}
		}
	}
	if len(words) == 0 || len(words) > maxValueWords {
		return false
	}
	for _, w := range words[:min(2, len(words))] {
		if wordShape(w.text) >= mixed || pin && pinWord(w.text) {
			return true
		}
	}
	w := words[0].text
	return len(words) == 1 && (wordShape(w) >= loose || hexWord(w))
}

// digitByDigit reports 4 to 10 single digits, as words or joined by hyphens: a PIN
// spelt out.
func digitByDigit(words []word) bool {
	n := 0
	for _, w := range words {
		for _, part := range strings.Split(w.text, "-") {
			if len(part) != 1 || part[0] < '0' || part[0] > '9' {
				return false
			}
			n++
		}
	}
	return n >= 4 && n <= 10
}

// hexWord reports a run of 8 or more hex digits with letters among them: a key or a
// token once a word that names one stands before it ("the API token is 8c1e4f7a2b9d").
func hexWord(w string) bool {
	return len(w) >= 8 && strings.Trim(strings.ToLower(w), "0123456789abcdef") == "" && strings.ContainsAny(strings.ToLower(w), "abcdef") &&
		strings.ContainsAny(w, "0123456789")
}

// idWords end the names of fields that hold ids, references and other plain values: an
// "assessment_id" beside a label about a password is not the password.
var idWords = map[string]bool{"id": true, "ids": true, "ref": true, "refs": true, "hash": true, "version": true,
	"type": true, "status": true, "url": true, "uri": true, "date": true, "at": true, "time": true, "code": true, "sku": true,
	"slug": true, "deadline": true, "due": true}

// namesIDField reports whether the last key of a path names an id field.
func namesIDField(path string) bool {
	if i := strings.LastIndexAny(path, ".]"); i >= 0 {
		if path[i] == ']' {
			return false
		}
		path = path[i+1:]
	}
	words := keyWords(path)
	return len(words) > 0 && idWords[words[len(words)-1]]
}

// maxSplitMembers bounds the strings of one object tried in every order: larger objects
// are tried in key order only, each string with its neighbours.
const maxSplitMembers = 8

// splitHits finds credentials split between two strings: a label in one field and the
// value in another of the same object ({"item": "API key for the SEO tool", "value":
// "b5d7e1f0a9c34e28a1"}), or in the next item of a list. Both strings are hits.
func (c *credentials) splitHits(v any, texts map[string]*scanText) []handoff.TextHit {
	hits := []handoff.TextHit{}
	try := func(a, b *splitText) {
		if b.id {
			return
		}
		pin, ok := a.pin, a.label
		if !ok && b.spelt() {
			// A PIN spelt out beside any text that names one.
			pin, ok = a.pinCue, a.pinCue
		}
		if ok && holdsValue(b.words(), pin) {
			hits = append(hits, handoff.TextHit{Path: a.path, Pattern: "credential_split"}, handoff.TextHit{Path: b.path, Pattern: "credential_split"})
		}
	}
	walkJSON(v, "", func(path string, v any) {
		var strs []*splitText
		labels := false
		add := func(p, text string) {
			st := c.splitText(p, text, texts[p])
			labels = labels || st.label || st.pinCue
			strs = append(strs, st)
		}
		switch x := v.(type) {
		case map[string]any:
			for _, k := range SortedKeys(x) {
				if str, ok := x[k].(string); ok {
					add(joinKey(path, k), str)
				}
			}
			if !labels {
				return
			}
			if len(strs) <= maxSplitMembers {
				for i := range strs {
					for j := range strs {
						if i != j {
							try(strs[i], strs[j])
						}
					}
				}
				return
			}
			for i := 1; i < len(strs); i++ {
				try(strs[i-1], strs[i])
				try(strs[i], strs[i-1])
			}
		case []any:
			for i, e := range x {
				if str, ok := e.(string); ok {
					add(path+"["+strconv.Itoa(i)+"]", str)
				} else {
					strs = append(strs, nil)
				}
			}
			if !labels {
				return
			}
			for i := 1; i < len(strs); i++ {
				if strs[i-1] != nil && strs[i] != nil {
					try(strs[i-1], strs[i])
				}
			}
		}
	})
	return hits
}

// splitText is one string of an object or list, read once for splitHits.
type splitText struct {
	path          string
	text          string
	label, pin    bool // it is a label (of a PIN)
	pinCue        bool // it holds a PIN cue
	id            bool // its field holds ids
	splitWords    []word
	splitWordsSet bool
}

func (c *credentials) splitText(path, text string, scanned *scanText) *splitText {
	st := &splitText{path: path, text: text, id: namesIDField(path)}
	cue := scanned != nil && scanned.cue
	if !cue && (len(text) > 64 || strings.ContainsAny(text, " \n") || !c.namesCredential(text)) {
		return st
	}
	st.pin, st.label = c.label(text)
	_, st.pinCue = c.names(text)
	return st
}

func (st *splitText) words() []word {
	if !st.splitWordsSet {
		st.splitWords, st.splitWordsSet = textWords(st.text), true
	}
	return st.splitWords
}

// spelt reports a PIN spelt out digit by digit.
func (st *splitText) spelt() bool {
	return strings.ContainsAny(st.text, "0123456789") && digitByDigit(st.words())
}
