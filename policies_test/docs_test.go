package policiestest

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Markdown pages whose links are checked: the README, the reference under docs/,
// and the other pages at the top of the repository.
var docPages = []string{"../README.md", "../docs/*.md", "../*.md"}

var (
	mdLink     = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	mdHeading  = regexp.MustCompile(`^#{1,6} +(.*?) *#* *$`)
	fenceStart = regexp.MustCompile("^ *(```|~~~)")
)

// prose returns the lines of a Markdown page outside fenced code blocks, each with
// its line number.
func prose(src string) map[int]string {
	lines := map[int]string{}
	var fence string
	for i, l := range strings.Split(src, "\n") {
		if m := fenceStart.FindStringSubmatch(l); m != nil {
			switch {
			case fence == "":
				fence = m[1]
				continue
			case m[1] == fence:
				fence = ""
				continue
			}
		}
		if fence == "" {
			lines[i+1] = l
		}
	}
	return lines
}

// anchor is the id GitHub gives a heading: lower case, code marks and punctuation
// dropped, spaces turned into hyphens.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors lists the heading ids of a Markdown page; a repeated heading gets -1, -2 ...
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	ids := map[string]bool{}
	seen := map[string]int{}
	lines := prose(string(src))
	for n := 1; n <= strings.Count(string(src), "\n")+1; n++ {
		m := mdHeading.FindStringSubmatch(lines[n])
		if m == nil {
			continue
		}
		id := anchor(m[1])
		if k := seen[id]; k > 0 {
			ids[id+"-"+strconv.Itoa(k)] = true
		} else {
			ids[id] = true
		}
		seen[id]++
	}
	return ids
}

// TestDocLinks checks that every relative link of the README and of the pages under
// docs/ names a file of the repository, and a heading of that page when it names one.
func TestDocLinks(t *testing.T) {
	pages := map[string]bool{}
	for _, pattern := range docPages {
		ms, err := filepath.Glob(pattern)
		require.NoError(t, err)
		for _, m := range ms {
			pages[m] = true
		}
	}
	require.Contains(t, pages, "../README.md")
	require.Contains(t, pages, "../docs/reasons.md")
	headings := map[string]map[string]bool{}
	for page := range pages {
		src, err := os.ReadFile(page)
		require.NoError(t, err)
		for n, l := range prose(string(src)) {
			for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(l, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				where := page + ":" + strconv.Itoa(n)
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), file)
					if _, err := os.Stat(path); err != nil {
						assert.Failf(t, "broken link", "%s: %s: no file %s", where, target, path)
						continue
					}
				}
				if frag == "" {
					continue
				}
				if !strings.HasSuffix(path, ".md") {
					assert.Failf(t, "broken link", "%s: %s: an anchor in a file that is not Markdown", where, target)
					continue
				}
				if headings[path] == nil {
					headings[path] = anchors(t, path)
				}
				assert.Truef(t, headings[path][frag], "%s: %s: %s has no heading #%s", where, target, path, frag)
			}
		}
	}
}

// TestReadmeSetUpCommands keeps the README's first shell block the two commands of a
// fresh machine: the first plays a scenario file that exists, the second is the test
// command, which .ci/run runs as written (or reads from the README).
func TestReadmeSetUpCommands(t *testing.T) {
	src, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(src), "\n```sh\n")
	require.True(t, ok, "the README has no shell block")
	block, _, ok = strings.Cut(block, "\n```\n")
	require.True(t, ok, "the README's first shell block does not end")
	cmds := strings.Split(block, "\n")
	require.Len(t, cmds, 2, "the README's first shell block: %q", block)

	const play = "go run ./cmd/handoffctl run --db ./.handoff "
	require.True(t, strings.HasPrefix(cmds[0], play), "the first command plays a scenario: %q", cmds[0])
	assert.FileExists(t, filepath.Join("..", strings.TrimPrefix(cmds[0], play)))

	require.True(t, strings.HasPrefix(cmds[1], "go test "), "the second command runs the tests: %q", cmds[1])
	ci, err := os.ReadFile("../.ci/run")
	require.NoError(t, err)
	asWritten := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(cmds[1]) + `$`).Match(ci)
	assert.True(t, asWritten || strings.Contains(string(ci), "README.md"), ".ci/run runs neither %q nor the README's command", cmds[1])
}
