// Command handoffctl is the command-line client of the Handoff engine: it lists and
// checks the bundle of contracts and policies, validates, evaluates and submits requests,
// shows a workflow's state and log, verifies the log's hash chains, plays scenario files
// and runs the Rego unit tests.
//
// Run `handoffctl help` for the commands and `handoffctl COMMAND -h` for each one's flags.
//
// Exit codes: 0 done; 1 could not run (I/O error, store locked by another process);
// 2 usage error; 3 a negative result the caller asked to fail on (a blocked request with
// --fail-on-block, a broken hash chain, an invalid request, a failing test or scenario,
// a bundle that does not compile, stale contract tables).
package main

import "os"

func main() {
	quietStart()
	os.Exit(Main())
}
