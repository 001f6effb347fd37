package engine

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// scenarioRequests returns every request of the shipped scenario files, as seeds.
func scenarioRequests(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	fsys := os.DirFS("../policies_test")
	require.NoError(t, fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".scenario" {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		var sc struct {
			Steps []struct {
				Request json.RawMessage `json:"request"`
			} `json:"steps"`
		}
		if err := json.Unmarshal(b, &sc); err != nil {
			return err
		}
		for _, st := range sc.Steps {
			out = append(out, st.Request)
		}
		return nil
	}))
	require.NotEmpty(t, out)
	return out
}

var validationCode = regexp.MustCompile(`^[A-Z][A-Z_]*[A-Z]$`)

// FuzzValidate runs the CUE validation of every shipped pack on arbitrary decoded
// requests: it never panics, and every finding is a reason code with a message.
func FuzzValidate(f *testing.F) {
	for _, s := range scenarioRequests(f) {
		f.Add(s)
	}
	e, err := Open(context.Background(), Options{InMemory: true})
	require.NoError(f, err)
	f.Cleanup(func() { _ = e.Close() })
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, name := range e.decider.contracts.PackNames() {
			pc, err := e.decider.contracts.Pack(name)
			require.NoError(t, err)
			r := e.decider.decodeRequest(body, now)
			if r.value == nil {
				return
			}
			r.pack = pc
			e.decider.validate(r)
			for _, ve := range r.validation {
				require.Regexp(t, validationCode, ve.Code)
				require.NotEmpty(t, ve.Message, "%s at %s", ve.Code, ve.Path)
			}
		}
	})
}
