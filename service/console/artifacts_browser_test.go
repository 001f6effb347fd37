package console_test

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConsoleArtifactHistory: each artifact type has a page of its versions, reached
// from the artifact table, a version's page and a diff: every version with its status
// in words, producer, hash, time and what it is based on, each linked to its page and
// to its changes from the version before. A type the workflow never recorded, or a
// workflow of another tenant, is not found.
func TestConsoleArtifactHistory(t *testing.T) {
	s := newSite(t)
	f := s.flow("08-delivery-of-draft")
	f.until("QA accepts copy v2", withID(slashID))
	st, err := s.e.State(context.Background(), "acme", slashID)
	require.NoError(t, err)
	h := st.Artifacts["COPY_PACKAGE"]
	require.NotNil(t, h)
	require.GreaterOrEqual(t, len(h.Versions), 2)
	escaped := "/console/workflows/" + url.PathEscape(slashID)

	s.signIn(mariaToken)
	s.open(escaped)
	s.follow(`#artifacts tr[data-type="COPY_PACKAGE"][data-version="1"] a.history-link`, "#versions")
	assert.Equal(t, "COPY_PACKAGE: every version", s.text("main h1"))
	assert.Equal(t, float64(len(h.Versions)), s.eval(`document.querySelectorAll('#versions tbody tr').length`))
	for n := 1; n <= len(h.Versions); n++ {
		av := h.Versions[strconv.Itoa(n)]
		require.NotNil(t, av)
		row := `#versions tr[data-version="` + strconv.Itoa(n) + `"]`
		assert.Equal(t, av.Producer, s.text(row+` .producer`))
		assert.Equal(t, av.Ref.Hash, s.eval(`document.querySelector('`+row+` code.hash').title`))
		assert.Equal(t, av.Status, s.eval(`document.querySelector('`+row+` .artifact-status').dataset.status`))
		assert.NotEqual(t, av.Status, s.text(row+` .artifact-status`), "the status in words")
		assert.Equal(t, av.RecordedAt, s.text(row+` time`))
		var based []string
		for _, b := range av.BasedOn {
			based = append(based, b.Type+" v"+strconv.Itoa(b.Version))
		}
		if len(based) > 0 {
			assert.Equal(t, strings.Join(based, " "), strings.TrimSpace(s.text(row+` .based-on`)))
		}
		assert.Equal(t, escaped+"/artifacts/COPY_PACKAGE/"+strconv.Itoa(n), s.eval(`new URL(document.querySelector('`+row+` a.version-link').href).pathname`))
		diffs := s.eval(`document.querySelectorAll('` + row + ` a.diff').length`)
		if n == 1 {
			assert.Equal(t, float64(0), diffs, "the first version has nothing before it")
			continue
		}
		assert.Equal(t, float64(1), diffs)
		assert.Contains(t, s.eval(`document.querySelector('`+row+` a.diff').search`), "from="+strconv.Itoa(n-1)+"&to="+strconv.Itoa(n))
	}
	s.follow(`#versions tr[data-version="2"] a.diff`, "#diff")
	assert.Contains(t, s.text("main h1"), "COPY_PACKAGE: v1 → v2")
	s.follow(`main p.meta a.history-link`, "#versions")
	s.follow(`#versions tr[data-version="2"] a.version-link`, "article.version")
	assert.Equal(t, "COPY_PACKAGE v2", s.text("main h1"))
	s.follow(`main p.meta a.history-link`, "#versions")
	s.follow("#back", "#timeline")
	assert.Equal(t, slashID, s.text("main h1"))

	s.open(escaped + "/artifacts/NO_SUCH_TYPE")
	assert.Equal(t, "Not found", s.text("main h1"))
	s.signIn(globexToken)
	s.open(escaped + "/artifacts/COPY_PACKAGE")
	assert.Equal(t, "Not found", s.text("main h1"))
	s.inert()
}
