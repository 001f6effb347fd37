package policiestest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// engineCodes are the reason codes the engine produces itself, when no policy could decide.
var engineCodes = map[string]bool{"POLICY_TIMEOUT": true}

// policyCodes collects custom.code from every METADATA annotation under ../policies.
func policyCodes(t *testing.T) map[string]string {
	t.Helper()
	codes := map[string]string{}
	err := filepath.WalkDir("../policies", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		m, err := ast.ParseModuleWithOpts(p, string(src), ast.ParserOptions{ProcessAnnotation: true})
		if err != nil {
			return err
		}
		for _, a := range m.Annotations {
			if code, ok := a.Custom["code"].(string); ok {
				codes[code] = p
			}
		}
		return nil
	})
	require.NoError(t, err)
	return codes
}

// docCodes are the codes of the reason-code tables of docs/reasons.md: rows starting
// with a back-quoted UPPER_SNAKE code.
func docCodes(t *testing.T) map[string]bool {
	t.Helper()
	doc, err := os.ReadFile("../docs/reasons.md")
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| `([A-Z][A-Z0-9_]*)` \\|")
	codes := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		codes[m[1]] = true
	}
	return codes
}

// TestReasonCodesDocumented keeps the reason-code tables of docs/reasons.md and the
// policies' METADATA in step: every code a rule carries is documented, and every
// documented code is carried by a rule (or produced by the engine itself).
func TestReasonCodesDocumented(t *testing.T) {
	inPolicies := policyCodes(t)
	inDoc := docCodes(t)
	var undocumented, unproduced []string
	for c := range inPolicies {
		if !inDoc[c] {
			undocumented = append(undocumented, c)
		}
	}
	for c := range inDoc {
		if inPolicies[c] == "" && !engineCodes[c] {
			unproduced = append(unproduced, c)
		}
	}
	sort.Strings(undocumented)
	sort.Strings(unproduced)
	assert.Empty(t, undocumented, "codes in METADATA but not in docs/reasons.md")
	assert.Empty(t, unproduced, "codes in docs/reasons.md that no rule carries")
}

// TestReasonCodesTested checks that every code a rule carries is named by a Rego test.
func TestReasonCodesTested(t *testing.T) {
	var tests strings.Builder
	require.NoError(t, filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.rego") {
			return err
		}
		b, err := os.ReadFile(p)
		tests.Write(b)
		return err
	}))
	var untested []string
	for code := range policyCodes(t) {
		if !strings.Contains(tests.String(), `"`+code+`"`) {
			untested = append(untested, code)
		}
	}
	sort.Strings(untested)
	assert.Empty(t, untested, "reason codes no Rego test names")
}
