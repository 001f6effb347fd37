package bench

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRequestIDs(t *testing.T) {
	bodies := []json.RawMessage{
		json.RawMessage(`{"request_id":"r1","trace_id":"t1","workflow_id":"w1","kind":"start"}`),
		json.RawMessage(`{"request_id":"r2","trace_id":"t1","workflow_id":"${workflow_id}"}`),
		json.RawMessage(`{"request_id":"","workflow_id":"w1","other_id":"x"}`),
		json.RawMessage(`not json`),
	}
	// In order of first appearance; placeholders, empty ids and other fields left out.
	assert.Equal(t, []string{"r1", "t1", "w1", "r2"}, requestIDs(bodies))
}

func TestSuffixIDs(t *testing.T) {
	r := suffixIDs([]string{"r1", "w1"}, "-b7")
	in := `{"request_id":"r1","workflow_id":"w1","note":"r1 is not an id here","parent":"w10"}`
	// Only whole quoted ids change: "w10" and the r1 inside a sentence stay.
	assert.Equal(t, `{"request_id":"r1-b7","workflow_id":"w1-b7","note":"r1 is not an id here","parent":"w10"}`, r.Replace(in))
}

func TestNewLoad(t *testing.T) {
	a := &template{name: "a", requests: make([]json.RawMessage, 3)}
	b := &template{name: "b", requests: make([]json.RawMessage, 2)}
	steps := func(wfs []*workflow) (names []string, n []int) {
		for i, w := range wfs {
			require.Equal(t, i, w.n, "copy numbers follow the load")
			names, n = append(names, w.tpl.name), append(n, w.steps)
		}
		return names, n
	}

	// --workflows: that many copies, the templates in turn, every step.
	names, n := steps(newLoad([]*template{a, b}, Options{Workflows: 5}))
	assert.Equal(t, []string{"a", "b", "a", "b", "a"}, names)
	assert.Equal(t, []int{3, 2, 3, 2, 3}, n)

	// --decisions: as many copies as it takes, the last one cut short; --workflows
	// is ignored.
	names, n = steps(newLoad([]*template{a, b}, Options{Workflows: 1, Decisions: 7}))
	assert.Equal(t, []string{"a", "b", "a"}, names)
	assert.Equal(t, []int{3, 2, 2}, n)

	names, n = steps(newLoad([]*template{a, b}, Options{Decisions: 5}))
	assert.Equal(t, []string{"a", "b"}, names)
	assert.Equal(t, []int{3, 2}, n)
}

func TestScenarioFS(t *testing.T) {
	dir := t.TempDir()
	_, err := scenarioFS(filepath.Join(dir, "missing"))
	assert.ErrorIs(t, err, ErrNoScenarioDir)
	assert.ErrorContains(t, err, "missing does not exist")

	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = scenarioFS(file)
	assert.ErrorIs(t, err, ErrNoScenarioDir)
	assert.ErrorContains(t, err, "is not a directory")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.scenario"), []byte("hello"), 0o644))
	fsys, err := scenarioFS(dir)
	require.NoError(t, err)
	data, err := fs.ReadFile(fsys, "x.scenario")
	require.NoError(t, err)
	assert.Equal(t, "hello", string(data))
}
