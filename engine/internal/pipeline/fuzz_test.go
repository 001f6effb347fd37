package pipeline

import (
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/contracts"
	"github.com/handoff-dev/handoff/engine/internal/contract"
	"github.com/handoff-dev/handoff/internal/strictjson"
)

// scenarioRequests returns every request of the shipped scenario files, as seeds.
func scenarioRequests(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	fsys := os.DirFS("../../../policies_test")
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
	p := contractsOnly(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		req := p.Decode(body, nil)
		if !req.Decoded() {
			return
		}
		for _, name := range p.contracts.PackNames() {
			for _, ve := range validateAs(t, p, req, name) {
				require.Regexp(t, validationCode, ve.Code)
				require.NotEmpty(t, ve.Message, "%s at %s", ve.Code, ve.Path)
			}
		}
	})
}

// contractsOnly is a pipeline of the shipped contracts and no policies: enough to
// validate.
func contractsOnly(t testing.TB) *Pipeline {
	t.Helper()
	cc, err := contract.Compile(contracts.FS, false)
	require.NoError(t, err)
	return New(cc, nil, "", strictjson.Limits{}, 0)
}

// validateAs validates a request against one pack's contract, whatever pack it names.
func validateAs(t testing.TB, p *Pipeline, req *Request, pack string) []ValidationError {
	t.Helper()
	pc, err := p.contracts.Pack(pack)
	require.NoError(t, err)
	return p.validate(&flight{req: req, pack: pc})
}
