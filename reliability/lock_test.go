package reliability

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/backend"
)

func init() { children["lock"] = lockChild }

// lockResult is what the lock child reports.
type lockResult struct {
	StoreLocked  bool    `json:"store_locked"`
	StoreMS      float64 `json:"store_ms"`
	EngineLocked bool    `json:"engine_locked"`
	EngineMS     float64 `json:"engine_ms"`
	Message      string  `json:"message"`
}

// lockChild opens the store named by HANDOFF_DIR, first with the store package, then
// through the engine, and reports how long each took to fail.
func lockChild() int {
	ctx := context.Background()
	dir := os.Getenv("HANDOFF_DIR")
	var res lockResult
	t0 := time.Now()
	l, err := backend.Open(ctx, store.Options{Dir: dir})
	res.StoreMS = float64(time.Since(t0).Microseconds()) / 1000
	res.StoreLocked = errors.Is(err, store.ErrLocked)
	if err == nil {
		_ = l.Close()
	} else {
		res.Message = err.Error()
	}
	t0 = time.Now()
	e, err := engine.Open(ctx, engine.Options{Dir: dir})
	res.EngineMS = float64(time.Since(t0).Microseconds()) / 1000
	res.EngineLocked = errors.Is(err, store.ErrLocked)
	if err == nil {
		_ = e.Close()
	}
	_ = json.NewEncoder(os.Stdout).Encode(res)
	return 0
}

// TestSecondProcessLocked: while this process has the store open, another process
// opening it gets "store locked" at once (the store in under 100 ms), never a hang.
func TestSecondProcessLocked(t *testing.T) {
	eng, dir := openDisk(t)
	startWorkflow(t, eng, "acme", "wf-locked")

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "HANDOFF_CHILD=lock", "HANDOFF_DIR="+dir)
	out, err := cmd.Output()
	require.NoError(t, err, "child: %s", out)
	var res lockResult
	require.NoError(t, json.Unmarshal(out, &res), "child said %s", out)
	t.Logf("backend.Open failed after %.2f ms, engine.Open after %.2f ms: %s", res.StoreMS, res.EngineMS, res.Message)
	require.True(t, res.StoreLocked, "backend.Open in a second process: %s", res.Message)
	assert.Contains(t, res.Message, "store locked")
	assert.Less(t, res.StoreMS, 100.0, "backend.Open must fail within 100 ms")
	require.True(t, res.EngineLocked, "engine.Open in a second process")
	// engine.Open opens the store before it compiles the bundle, so the lock is reported
	// before any compile work; the bound leaves room for a loaded machine.
	assert.Less(t, res.EngineMS, 1000.0, "engine.Open must fail at once, not wait for the lock")

	// The holder is unaffected.
	_, err = eng.State(context.Background(), "acme", "wf-locked")
	require.NoError(t, err)
}
