package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"
)

// failure is what stopped an invocation, as it is reported on stderr: in text, a line
// "handoffctl CMD: msg" followed by the usage line (usage errors) or a hint; with
// -o json, one JSON object {"error", "hint", "usage", "exit"} on one line.
type failure struct {
	cmd   *command // nil: before a command was known
	code  int      // the exit code
	msg   string   // empty: the result already said it (a negative result)
	hint  string
	usage string // the usage line of a usage error; default the command's
}

// failureJSON is the JSON form of a failure on stderr.
type failureJSON struct {
	Error string `json:"error,omitempty"`
	Hint  string `json:"hint,omitempty"`
	Usage string `json:"usage,omitempty"`
	Exit  int    `json:"exit"`
}

// report writes f on stderr and returns its exit code.
func (c *cli) report(f *failure) int {
	prefix := "handoffctl"
	if f.cmd != nil {
		prefix += " " + f.cmd.name
	}
	if f.code == exitUsage && f.usage == "" && f.cmd != nil {
		f.usage = usageLine(f.cmd)
		if f.hint == "" {
			f.hint = fmt.Sprintf("run 'handoffctl help %s' for its flags", f.cmd.name)
		}
	}
	if c.json() {
		msg := f.msg
		if msg != "" {
			msg = prefix + ": " + msg
		}
		_ = writeJSONLine(c.stderr, failureJSON{Error: msg, Hint: f.hint, Usage: f.usage, Exit: f.code})
		return f.code
	}
	if f.msg != "" {
		fmt.Fprintf(c.stderr, "%s: %s\n", prefix, f.msg)
	}
	if f.usage != "" {
		fmt.Fprintf(c.stderr, "usage: %s\n", f.usage)
	}
	if f.hint != "" {
		fmt.Fprintf(c.stderr, "hint: %s\n", f.hint)
	}
	return f.code
}

// usageLine is a command's synopsis.
func usageLine(cmd *command) string {
	if cmd.args == "" {
		return "handoffctl " + cmd.name
	}
	return "handoffctl " + cmd.name + " " + cmd.args
}

// flagError reports a command line package flag refused: one line naming the flag as
// it was typed, the closest flag when one is near, and the usage line.
func (c *cli) flagError(cmd *command, fs *flag.FlagSet, err error, args []string) int {
	msg := err.Error()
	if typed, name, ok := undefinedFlag(err, args); ok {
		msg = "unknown flag " + typed
		if near := closest(name, flagNames(fs)); near != "" {
			msg += didYouMean(dashed(near))
		}
	} else {
		// package flag names every flag with one dash: name it as the help does.
		for _, name := range flagNames(fs) {
			msg = strings.Replace(msg, "flag: -"+name, "flag "+dashed(name), 1)
			msg = strings.Replace(msg, "argument: -"+name, "argument: "+dashed(name), 1)
		}
	}
	f := &failure{cmd: cmd, code: exitUsage, msg: msg}
	if cmd == nil {
		f.usage = "handoffctl [global flags] COMMAND [flags] [arguments]"
		f.hint = "run 'handoffctl help' for the global flags and the commands"
	}
	return c.report(f)
}

// didYouMean is " (did you mean X?)", or "" without a suggestion.
func didYouMean(s string) string {
	if s == "" {
		return ""
	}
	return " (did you mean " + s + "?)"
}

// outputIn reads -o from the command line before the flags are parsed, so that an
// error in the flags themselves is reported in the format asked for.
func outputIn(args []string, def string) string {
	out := def
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		switch {
		case (a == "-o" || a == "--o") && i+1 < len(args):
			out = args[i+1]
			i++
		case strings.HasPrefix(a, "-o="), strings.HasPrefix(a, "--o="):
			_, out, _ = strings.Cut(a, "=")
		}
	}
	if !slices.Contains([]string{"text", "json"}, out) {
		return def
	}
	return out
}
