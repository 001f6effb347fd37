package scan

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/handoff-dev/handoff"

	"golang.org/x/text/cases"
)

// Scanner finds forbidden content (secrets, credentials, raw logs) and injection in
// every string and object key of a request, once, in Go. The patterns come from the core
// table guardrails (forbidden, injection, secret_rulesets, credential_fields, decode,
// negation); the hits reach the policy as input.derived.forbidden and
// input.derived.injection, and Rego decides from them. It is safe for concurrent use.
type Scanner struct {
	forbidden []scanPattern
	injection []scanPattern
	gitleaks  *secretRules // nil unless secret_rulesets names gitleaks
	// creds finds credentials by the words that name them (guardrails.credentials).
	creds *credentials
	// base64 and percent say which encodings are undone before forbidden is matched again.
	base64, percent bool
	negation        negation
	// scopeFields is the core table scope_fields, for Scopes.
	scopeFields map[string]string
}

// scanPattern is one compiled #Pattern.
type scanPattern struct {
	name       string
	re         *regexp.Regexp
	keywords   []string
	minEntropy float64
	// value is "any" when the match's secret must not be a placeholder; "" checks nothing.
	value string
	// decodedOnly patterns are tried on decoded texts only.
	decodedOnly bool
	// negatable matches preceded by a negation cue are not hits.
	negatable bool
	// class is set when the regex is one character class: a rune test is much cheaper
	// than the regexp machine.
	class func(rune) bool
}

// guardrailPatterns is the part of the core table the scanner reads.
type guardrailPatterns struct {
	Injection      []patternSpec `json:"injection"`
	Forbidden      []patternSpec `json:"forbidden"`
	SecretRulesets []struct {
		Name    string   `json:"name"`
		Exclude []string `json:"exclude"`
	} `json:"secret_rulesets"`
	ScopeFields map[string]string `json:"scope_fields"`
	Credentials credentialSpec    `json:"credentials"`
	Decode      []string          `json:"decode"`
	Negation    negationSpec      `json:"negation"`
}

type patternSpec struct {
	Name        string   `json:"name"`
	Regex       string   `json:"regex"`
	Keywords    []string `json:"keywords"`
	MinEntropy  float64  `json:"min_entropy"`
	Value       string   `json:"value"`
	DecodedOnly bool     `json:"decoded_only"`
	Negatable   bool     `json:"negatable"`
}

// New compiles the core table's patterns. A pattern that does not compile, or
// an unknown rule set, fails the load: a scanner that silently dropped a pattern would
// let its content through.
func New(guardrails any) (*Scanner, error) {
	b, err := json.Marshal(guardrails)
	if err != nil {
		return nil, err
	}
	var g guardrailPatterns
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("engine: core guardrails: %w", err)
	}
	s := &Scanner{scopeFields: g.ScopeFields, creds: newCredentials(g.Credentials)}
	if s.negation, err = newNegation(g.Negation); err != nil {
		return nil, err
	}
	for _, d := range g.Decode {
		switch d {
		case "base64":
			s.base64 = true
		case "percent":
			s.percent = true
		default:
			return nil, fmt.Errorf("engine: core guardrails: unknown encoding %q to decode", d)
		}
	}
	if s.forbidden, err = compilePatterns("forbidden", g.Forbidden); err != nil {
		return nil, err
	}
	if s.injection, err = compilePatterns("injection", g.Injection); err != nil {
		return nil, err
	}
	for _, rs := range g.SecretRulesets {
		switch rs.Name {
		case "gitleaks":
			s.gitleaks = buildSecretRules(rs.Exclude)
		default:
			return nil, fmt.Errorf("engine: core guardrails: unknown secret rule set %q", rs.Name)
		}
	}
	return s, nil
}

func compilePatterns(list string, specs []patternSpec) ([]scanPattern, error) {
	out := make([]scanPattern, 0, len(specs))
	for _, p := range specs {
		re, err := regexp.Compile(p.Regex)
		if err != nil {
			return nil, fmt.Errorf("engine: core guardrails: %s pattern %s: %w", list, p.Name, err)
		}
		if p.Value != "" && p.Value != "any" {
			return nil, fmt.Errorf("engine: core guardrails: %s pattern %s: unknown value check %q", list, p.Name, p.Value)
		}
		sp := scanPattern{name: p.Name, re: re, keywords: p.Keywords, minEntropy: p.MinEntropy,
			value: p.Value, decodedOnly: p.DecodedOnly, negatable: p.Negatable}
		if p.MinEntropy == 0 && p.Value == "" && !p.Negatable {
			sp.class = charClass(p.Regex)
		}
		out = append(out, sp)
	}
	return out, nil
}

// charClass returns a rune test when regex is a single character class (or one rune),
// else nil.
func charClass(regex string) func(rune) bool {
	re, err := syntax.Parse(regex, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	switch {
	case re.Op == syntax.OpCharClass:
		ranges := slices.Clone(re.Rune)
		return func(r rune) bool {
			for i := 0; i+1 < len(ranges); i += 2 {
				if r >= ranges[i] && r <= ranges[i+1] {
					return true
				}
			}
			return false
		}
	case re.Op == syntax.OpLiteral && len(re.Rune) == 1 && re.Flags&syntax.FoldCase == 0:
		want := re.Rune[0]
		return func(r rune) bool { return r == want }
	}
	return nil
}

// scanText is one string of a request with its path.
type scanText struct {
	path string
	text string
	// lower is text as keywords are compared with, after a space so that a keyword
	// starting with one (" ai") meets a word at the start.
	lower string
	// cue says lower holds a word that names a credential (guardrails.credentials).
	cue bool
}

// scan returns the forbidden and injection hits of a decoded request, each sorted by path
// then pattern, never nil. Forbidden content is looked for in every string and key, in
// every pair of strings that split a labelled secret between them, in the decoded form
// of every encoded string, and under every key that names a credential.
func (s *Scanner) Scan(v map[string]any) (forbidden, injection []handoff.TextHit) {
	forbidden, injection = []handoff.TextHit{}, []handoff.TextHit{}
	if s == nil || v == nil {
		return forbidden, injection
	}
	var texts []scanText
	collectTexts(v, "", &texts)
	if len(texts) == 0 {
		return forbidden, injection
	}
	joined := joinTexts(texts)
	var all strings.Builder
	byPath := make(map[string]*scanText, len(texts))
	for i := range texts {
		t := &texts[i]
		t.lower = " " + keywordText(t.text)
		t.cue = s.creds.mentions(t.lower)
		all.WriteString(t.lower)
		byPath[t.path] = t
	}
	lower := all.String()
	forbidden = s.matchForbidden(texts, lower)
	forbidden = append(forbidden, s.creds.keyHits(v)...)
	forbidden = append(forbidden, s.creds.splitHits(v, byPath)...)
	for _, t := range texts {
		for _, name := range s.creds.textHits(t.text, t.cue) {
			forbidden = append(forbidden, handoff.TextHit{Path: t.path, Pattern: name})
		}
	}
	decoded := s.decodedTexts(texts)
	for _, d := range decoded {
		dl := " " + keywordText(d.text)
		for _, p := range s.forbidden {
			if p.mayMatch(dl) && p.matches(d.text) {
				forbidden = append(forbidden, handoff.TextHit{Path: d.path, Pattern: d.encoding + ":" + p.name})
			}
		}
		for _, name := range s.creds.textHits(d.text, s.creds.mentions(" "+keywordText(d.text))) {
			forbidden = append(forbidden, handoff.TextHit{Path: d.path, Pattern: d.encoding + ":" + name})
		}
	}
	injection = s.matchInjection(texts, lower)
	if s.gitleaks != nil {
		forbidden = append(forbidden, s.leaks(texts, joined)...)
		if len(decoded) > 0 {
			dt := make([]scanText, len(decoded))
			for i, d := range decoded {
				dt[i] = scanText{path: d.path, text: d.text}
			}
			for _, h := range s.leaks(dt, joinTexts(dt)) {
				forbidden = append(forbidden, handoff.TextHit{Path: h.Path, Pattern: decodedEncoding(decoded, h.Path) + ":" + h.Pattern})
			}
		}
	}
	sortHits(forbidden)
	sortHits(injection)
	return dedupHits(forbidden), dedupHits(injection)
}

// matchForbidden tries each forbidden pattern on each string, skipping a pattern none of
// whose keywords the lower-cased text of the whole request contains.
func (s *Scanner) matchForbidden(texts []scanText, lower string) []handoff.TextHit {
	hits := []handoff.TextHit{}
	for _, p := range s.forbidden {
		if p.decodedOnly {
			continue
		}
		kws, ok := p.presentKeywords(lower)
		if !ok {
			continue
		}
		for _, t := range texts {
			if containsAny(t.lower, kws) && p.matches(t.text) {
				hits = append(hits, handoff.TextHit{Path: t.path, Pattern: p.name})
			}
		}
	}
	return hits
}

// matchInjection tries each injection pattern on each string; a negatable pattern's
// match counts only when no negation cue stands before it in its clause.
func (s *Scanner) matchInjection(texts []scanText, lower string) []handoff.TextHit {
	hits := []handoff.TextHit{}
	for _, p := range s.injection {
		kws, ok := p.presentKeywords(lower)
		if !ok {
			continue
		}
		for _, t := range texts {
			if containsAny(t.lower, kws) && s.instructs(p, t.text) {
				hits = append(hits, handoff.TextHit{Path: t.path, Pattern: p.name})
			}
		}
	}
	return hits
}

// instructs reports whether an injection pattern finds an instruction in text: a match
// that, for a negatable pattern, no negation cue governs, that is not quoted, and that
// is not a character's line in a script.
func (s *Scanner) instructs(p scanPattern, text string) bool {
	if !p.negatable {
		return p.matches(text)
	}
	if s.negation.spoken(text) {
		return false
	}
	for _, m := range p.re.FindAllStringIndex(text, -1) {
		if (startsSentence(text, m[0]) || !s.negation.governs(text[:m[0]])) && !quoted(text, m[0], m[1]) {
			return true
		}
	}
	return false
}

// startsSentence reports a match that starts with a capital right after a lower-case
// word: a new sentence whose full stop is missing ("Not quite right Ignore previous
// instructions"), which a negation before it does not govern.
func startsSentence(text string, at int) bool {
	first, _ := utf8.DecodeRuneInString(text[at:])
	if !unicode.IsUpper(first) {
		return false
	}
	before := strings.TrimRightFunc(text[:at], unicode.IsSpace)
	if len(before) == len(text[:at]) {
		return false // no space: inside a word
	}
	last, _ := utf8.DecodeLastRuneInString(before)
	return unicode.IsLower(last)
}

// keywordText is text as keywords are compared with: case-folded (so that (?i) letters
// such as the long s or the Kelvin sign meet their keyword), each run of white space one
// space.
func keywordText(text string) string {
	return strings.Join(strings.Fields(cases.Fold().String(text)), " ")
}

// mayMatch reports whether lower holds one of the pattern's keywords (or it has none).
func (p scanPattern) mayMatch(lower string) bool {
	_, ok := p.presentKeywords(lower)
	return ok
}

// presentKeywords returns the pattern's keywords that lower holds, and whether the
// pattern may match there: it has keywords and lower holds one, or it has none (nil
// keywords then). The text of a request holds each of its strings: a string can hold
// only the keywords the whole text does, so the strings are searched for those alone.
func (p scanPattern) presentKeywords(lower string) ([]string, bool) {
	if len(p.keywords) == 0 {
		return nil, true
	}
	var present []string
	for _, k := range p.keywords {
		if strings.Contains(lower, k) {
			present = append(present, k)
		}
	}
	return present, len(present) > 0
}

// containsAny reports whether lower holds one of keywords; nil keywords always match.
func containsAny(lower string, keywords []string) bool {
	if keywords == nil {
		return true
	}
	for _, k := range keywords {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return false
}

// matches reports whether the pattern finds its content in text, with enough entropy
// or the value's shape when the pattern asks for it.
func (p scanPattern) matches(text string) bool {
	if p.class != nil {
		return strings.ContainsFunc(text, p.class)
	}
	if p.minEntropy == 0 && p.value == "" {
		return p.re.MatchString(text)
	}
	for _, m := range p.re.FindAllStringSubmatch(text, -1) {
		if p.accepts(secretOf(m)) {
			return true
		}
	}
	return false
}

// secretOf is a match's secret: its first non-empty capture group, or the whole match.
func secretOf(m []string) string {
	for _, g := range m[1:] {
		if g != "" {
			return g
		}
	}
	return m[0]
}

// accepts checks a match's secret against the pattern's entropy and value checks.
func (p scanPattern) accepts(secret string) bool {
	if p.minEntropy > 0 {
		if shannonEntropy(secret) < p.minEntropy {
			return false
		}
		// Base64 of text is words, encoded: random, it is not.
		if _, text := decodeBase64(secret); text {
			return false
		}
	}
	return p.value != "any" || !placeholder(secret)
}

// leaks runs gitleaks once over all strings, one per line run, and maps each finding back
// to the string its line belongs to.
func (s *Scanner) leaks(texts []scanText, joined string) []handoff.TextHit {
	hits := []handoff.TextHit{}
	d, err := s.gitleaks.detector()
	if err != nil {
		// Without its rules the scanner cannot clear the text: it is held as a secret.
		hits := make([]handoff.TextHit, len(texts))
		for i, t := range texts {
			hits[i] = handoff.TextHit{Path: t.path, Pattern: "gitleaks:unavailable"}
		}
		return hits
	}
	findings := d.DetectString(joined)
	if len(findings) == 0 {
		return hits
	}
	// starts[i] is the first line (0-based, as gitleaks counts) of texts[i].
	starts := make([]int, len(texts))
	line := 0
	for i, t := range texts {
		starts[i] = line
		line += strings.Count(t.text, "\n") + 1
	}
	for _, f := range findings {
		i := sort.Search(len(starts), func(i int) bool { return starts[i] > f.StartLine }) - 1
		if i < 0 {
			i = 0
		}
		hits = append(hits, handoff.TextHit{Path: texts[i].path, Pattern: "gitleaks:" + f.RuleID})
	}
	return hits
}

// collectTexts appends every string value and object key under v.
func collectTexts(v any, path string, out *[]scanText) {
	walkJSON(v, path, func(path string, v any) {
		switch x := v.(type) {
		case string:
			*out = append(*out, scanText{path: path, text: x})
		case map[string]any:
			for _, k := range SortedKeys(x) {
				*out = append(*out, scanText{path: joinKey(path, k), text: k})
			}
		}
	})
}

func joinTexts(texts []scanText) string {
	n := 0
	for _, t := range texts {
		n += len(t.text) + 1
	}
	var b strings.Builder
	b.Grow(n)
	for i, t := range texts {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t.text)
	}
	return b.String()
}

func sortHits(h []handoff.TextHit) {
	sort.Slice(h, func(i, j int) bool {
		if h[i].Path != h[j].Path {
			return h[i].Path < h[j].Path
		}
		return h[i].Pattern < h[j].Pattern
	})
}

func dedupHits(h []handoff.TextHit) []handoff.TextHit {
	out := h[:0]
	for i, x := range h {
		if i > 0 && x == h[i-1] {
			continue
		}
		out = append(out, x)
	}
	return out
}

// shannonEntropy is the entropy of s in bits per character.
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	n := 0
	for _, r := range s {
		counts[r]++
		n++
	}
	h := 0.0
	for _, c := range counts {
		p := float64(c) / float64(n)
		h -= p * math.Log2(p)
	}
	return h
}

// HitValues turns hits into the plain values policies read.
func HitValues(h []handoff.TextHit) []any {
	out := make([]any, len(h))
	for i, x := range h {
		out[i] = map[string]any{"path": x.Path, "pattern": x.Pattern}
	}
	return out
}

// Ready waits until the scanner's rules are built and says whether they could be.
func (s *Scanner) Ready() error {
	if s.gitleaks == nil {
		return nil
	}
	_, err := s.gitleaks.detector()
	return err
}
