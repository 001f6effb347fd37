package main

import (
	"encoding/json"
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdScenarioHead writes the first N steps of a scenario file: scenario-head SRC N DST,
// so that a script can stop a workflow at any step of a pack's scenario.
func cmdScenarioHead(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: scenario-head SRC N DST")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var s map[string]json.RawMessage
	ts.Check(json.Unmarshal(data, &s))
	var steps []json.RawMessage
	ts.Check(json.Unmarshal(s["steps"], &steps))
	if n < 1 || n > len(steps) {
		ts.Fatalf("%s has %d steps, not %d", args[0], len(steps), n)
	}
	s["steps"], err = json.Marshal(steps[:n])
	ts.Check(err)
	out, err := json.Marshal(s)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), out, 0o644))
}
