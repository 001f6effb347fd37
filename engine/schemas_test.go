package engine_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/internal/testsize"
)

// TestScenarioRequestsPassTheirSchema plays the scenarios of every pack through the
// engine and a real Badger store: every request as sent (placeholders rendered) that
// the engine did not block passes its pack's served schema, and the schema refuses
// exactly the requests the contract check refuses.
func TestScenarioRequestsPassTheirSchema(t *testing.T) {
	s := engine.CompileServedSchemas(t)
	files, err := filepath.Glob("../policies_test/handoff/*/scenarios/*" + scenario.Ext)
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var passed atomic.Int64
	t.Run("scenarios", func(t *testing.T) {
		for _, file := range testsize.Sample(files, 3) {
			t.Run(filepath.Base(filepath.Dir(filepath.Dir(file)))+"/"+strings.TrimSuffix(filepath.Base(file), scenario.Ext), func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				sc, err := scenario.Load(file)
				require.NoError(t, err)
				eng, err := engine.Open(ctx, engine.Options{Dir: t.TempDir(), Decider: s.Decider()})
				require.NoError(t, err)
				defer eng.Close()
				require.NoError(t, scenario.Run(ctx, eng, sc, func(res scenario.Result) {
					var req map[string]any
					if json.Unmarshal(res.Request, &req) != nil {
						return
					}
					d := res.Decision
					schemaErr, accepts, deferred, ok := engine.CheckServedSchema(t, s, d.Pack, req)
					if !ok {
						return
					}
					if d.Outcome != engine.Block {
						require.NoError(t, schemaErr, "step %d (%s) was decided %s but fails the %s schema", res.Step, res.Name, d.Outcome, d.Pack)
						passed.Add(1)
					}
					if (schemaErr == nil) != accepts && !(schemaErr == nil && deferred) {
						t.Fatalf("step %d (%s): schema accepts=%v, contract accepts=%v: %v", res.Step, res.Name, schemaErr == nil, accepts, schemaErr)
					}
				}))
			})
		}
	})
	t.Logf("%d requests the engine took passed their schema", passed.Load())
	require.Positive(t, passed.Load())
}
