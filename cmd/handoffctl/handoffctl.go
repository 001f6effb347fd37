package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

// Exit codes.
const (
	exitOK       = 0 // done
	exitError    = 1 // could not run: I/O, store locked, a bundle that does not load
	exitUsage    = 2 // unknown command or flag, missing or extra arguments
	exitNegative = 3 // a negative result the caller asked to fail on
)

// Main runs handoffctl with the process's arguments and standard streams and returns
// the exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// command is one handoffctl command.
type command struct {
	name  string
	args  string // the synopsis after the command name
	short string // one line for `handoffctl help`
	long  string // the help text of `handoffctl help NAME`
	// setup declares the command's own flags and returns the function that runs it with
	// the positional arguments.
	setup func(fs *flag.FlagSet) func(ctx context.Context, c *cli, args []string) error
}

// commands lists every command in the order `handoffctl help` shows them.
var commands []*command

func init() {
	commands = []*command{
		packsCmd, checkCmd, tablesCmd, fmtCmd, lintCmd, newCmd, bundleCmd,
		validateCmd, evalCmd, startCmd, submitCmd,
		stateCmd, logCmd, verifyCmd,
		reasonsCmd, runCmd, testCmd, benchCmd,
		replayCmd, diffCmd, shadowCmd, explainCmd, keygenCmd, checkpointCmd, decisionsCmd,
		workflowsCmd, nextCmd, templateCmd, serveCmd, mcpCmd, tokenCmd, backupCmd, restoreCmd, migrateCmd, copyCmd,
		versionCmd, completionCmd,
	}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// cli is one invocation: its streams and the global flags.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	db       stringFlag // --db DIR
	bundle   stringFlag // --bundle DIR
	output   string     // -o text|json
	server   string     // --server URL: read and decide through a running server
	readOnly bool       // --read-only: open the store of --store for reading only
	quiet    bool       // --quiet: no progress on stderr
	warm     string     // the pack of the request a command decides, compiled as the store opens

	usedBundle string // which bundle loadBundle loaded, for messages
	bundleDir  string // the directory of that bundle, "" for the shipped packs
	announced  bool   // loadBundle said on stderr that it uses the bundle in the current directory
}

// stringFlag is a string flag that remembers whether the command line set it.
type stringFlag struct {
	value string
	set   bool
}

func (f *stringFlag) String() string { return f.value }

func (f *stringFlag) Set(s string) error {
	f.value, f.set = s, true
	return nil
}

// globalFlags are accepted before and after the command name.
var globalFlags = map[string]bool{"store": true, "db": true, "bundle": true, "o": true, "server": true, "read-only": true, "quiet": true}

func (c *cli) declareGlobals(fs *flag.FlagSet) {
	fs.Var(&c.db, "store", "the store: `DIR|URL`, a Badger directory or a postgres:// URL (env HANDOFF_STORE; default ./.handoff)")
	fs.Var(&c.db, "db", "the store, as --store: `DIR|URL` (env HANDOFF_DB)")
	fs.Var(&c.bundle, "bundle", "the bundle: `DIR`/contracts and DIR/policies (default: the current directory when it holds one, else the shipped packs)")
	fs.StringVar(&c.output, "o", c.output, "output format `FORMAT`: text or json")
	fs.StringVar(&c.server, "server", c.server, "read and decide through the server at `URL` (env HANDOFF_SERVER; token in HANDOFF_TOKEN)")
	fs.BoolVar(&c.readOnly, "read-only", c.readOnly, "open the store for reading only: a store no process holds")
	fs.BoolVar(&c.quiet, "quiet", c.quiet, "no progress on stderr (progress is shown only on a terminal)")
}

func (c *cli) json() bool { return c.output == "json" }

// run runs one invocation and returns its exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, output: "text"}
	c.db.value = ".handoff"
	for _, env := range []string{"HANDOFF_DB", "HANDOFF_STORE"} {
		if v := os.Getenv(env); v != "" {
			c.db.value = v
		}
	}
	c.server = os.Getenv("HANDOFF_SERVER")

	c.output = outputIn(args, c.output)

	gfs := flag.NewFlagSet("handoffctl", flag.ContinueOnError)
	gfs.SetOutput(io.Discard)
	c.declareGlobals(gfs)
	if err := gfs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			mainUsage(stdout)
			return exitOK
		}
		return c.flagError(nil, gfs, err, args)
	}
	rest := gfs.Args()
	if len(rest) == 0 {
		return c.report(&failure{code: exitUsage, msg: "no command given",
			usage: "handoffctl [global flags] COMMAND [flags] [arguments]", hint: "run 'handoffctl help' for the list of commands"})
	}
	name, rest := rest[0], rest[1:]
	collectUnlessQuiet(name)
	if name == "help" {
		return c.help(rest)
	}
	cmd := lookup(name)
	if cmd == nil {
		return c.report(&failure{code: exitUsage, msg: fmt.Sprintf("unknown command %q%s", name, didYouMean(closest(name, commandNames()))),
			hint: "run 'handoffctl help' for the list of commands"})
	}

	fs := newFlagSet(cmd, c)
	do := cmd.setup(fs)
	pos, err := parseInterleaved(fs, rest)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(stdout, cmd, fs)
			return exitOK
		}
		return c.flagError(cmd, fs, err, rest)
	}
	if c.output != "text" && c.output != "json" {
		return c.report(&failure{cmd: cmd, code: exitUsage, msg: fmt.Sprintf("-o must be text or json, not %q", c.output)})
	}
	return c.exit(cmd, fs, do(ctx, c, pos))
}

func newFlagSet(cmd *command, c *cli) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.declareGlobals(fs)
	return fs
}

// parseInterleaved parses flags anywhere among the positional arguments, which it
// returns in order. Everything after "--" is positional.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// help prints the command list, or one command's help.
func (c *cli) help(args []string) int {
	switch len(args) {
	case 0:
		mainUsage(c.stdout)
		return exitOK
	case 1:
		cmd := lookup(args[0])
		if cmd == nil {
			fmt.Fprintf(c.stderr, "handoffctl help: unknown command %q\nRun 'handoffctl help' for the list of commands.\n", args[0])
			return exitUsage
		}
		fs := newFlagSet(cmd, c)
		cmd.setup(fs)
		commandUsage(c.stdout, cmd, fs)
		return exitOK
	default:
		fmt.Fprintf(c.stderr, "handoffctl help: too many arguments\nusage: handoffctl help [COMMAND]\n")
		return exitUsage
	}
}

func mainUsage(w io.Writer) {
	fmt.Fprint(w, `handoffctl governs how work passes between AI agents: it checks the bundle of CUE
contracts and Rego policies, decides and records requests, and inspects the log.

usage: handoffctl [global flags] COMMAND [flags] [arguments]

Commands:
`)
	for _, cmd := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", cmd.name, cmd.short)
	}
	fmt.Fprint(w, `
Global flags (before or after the command):
  --store DIR|URL  the store: a directory (Badger) or a postgres:// URL (PostgreSQL)
                 (env HANDOFF_STORE; default ./.handoff); --db and HANDOFF_DB are the same
  --bundle DIR   the bundle: DIR/contracts and DIR/policies (default: the current directory
                 when it holds contracts/cue.mod/module.cue and policies/, else the shipped packs)
  -o FORMAT      output format: text (default) or json
  --server URL   read and decide through a running 'handoffctl serve' (env HANDOFF_SERVER;
                 the token in HANDOFF_TOKEN): state, log, workflows, verify, explain,
                 decisions, eval, validate, start, submit, backup and replay
  --read-only    open the store for reading only (a store no process holds)
  --quiet        no progress on stderr (shown only on a terminal, for long work)

Exit codes: 0 done, 1 could not run, 2 usage error, 3 a negative result
(blocked with --fail-on-block, broken chain, invalid request, failing test).

Run 'handoffctl help COMMAND' for the flags of one command.
`)
}

func commandUsage(w io.Writer, cmd *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: handoffctl %s", cmd.name)
	if cmd.args != "" {
		fmt.Fprintf(w, " %s", cmd.args)
	}
	fmt.Fprintf(w, "\n\n%s\n", strings.TrimSpace(cmd.long))
	var own []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if !globalFlags[f.Name] {
			own = append(own, f)
		}
	})
	if len(own) > 0 {
		fmt.Fprintf(w, "\nFlags:\n")
		for _, f := range own {
			printFlag(w, f)
		}
	}
	fmt.Fprintf(w, "\nGlobal flags:\n")
	for _, name := range []string{"store", "bundle", "o", "server", "read-only", "quiet"} {
		printFlag(w, fs.Lookup(name))
	}
}

func printFlag(w io.Writer, f *flag.Flag) {
	dash := "--"
	if len(f.Name) == 1 {
		dash = "-"
	}
	arg, usage := flag.UnquoteUsage(f)
	head := dash + f.Name
	if arg != "" {
		head += " " + arg
	}
	fmt.Fprintf(w, "  %-16s %s\n", head, usage)
}

// usageError is a command line the command cannot run: exit 2 with the usage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// negativeError is a negative result: exit 3. The result itself was already printed;
// msg, when set, is a summary for stderr.
type negativeError struct{ msg string }

func (e *negativeError) Error() string { return e.msg }

func negativef(format string, args ...any) error {
	return &negativeError{msg: fmt.Sprintf(format, args...)}
}

// hintError carries what to do next about an error.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }

func withHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &hintError{err: err, hint: hint}
}

// exit reports the error a command returned, if any, and returns the exit code.
func (c *cli) exit(cmd *command, fs *flag.FlagSet, err error) int {
	if err == nil {
		return exitOK
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return c.report(&failure{cmd: cmd, code: exitUsage, msg: ue.msg})
	}
	var ne *negativeError
	if errors.As(err, &ne) {
		return c.report(&failure{cmd: cmd, code: exitNegative, msg: ne.msg})
	}
	return c.report(&failure{cmd: cmd, code: exitError, msg: err.Error(), hint: hint(err)})
}

// hint says what to do next about an error that stopped a command.
func hint(err error) string {
	var he *hintError
	if errors.As(err, &he) && he.hint != "" {
		return he.hint
	}
	var stale *engine.StaleTablesError
	switch {
	case errors.Is(err, store.ErrLocked):
		return "another handoffctl or host holds the store; stop it, or use --store DIR for another store"
	case errors.Is(err, store.ErrSchema):
		return "run 'handoffctl migrate --store URL' with this version of handoffctl"
	case errors.Is(err, store.ErrUnavailable):
		return "check that the PostgreSQL server of --store is up and reachable from here; nothing was decided"
	case errors.Is(err, store.ErrBusy):
		return "the database was busy (a statement timeout, too many connections): run the command again later; nothing was written"
	case errors.Is(err, store.ErrPermission):
		return "the database refuses the role of --store: check its password and its rights on the schema; running the command again will not help"
	case errors.Is(err, store.ErrReadOnly):
		return "the store takes no writes (opened read-only, or a PostgreSQL hot standby or read-only role): point --store at a store that does"
	case errors.Is(err, store.ErrInconsistent):
		return "a copy of a store made with cp or rsync while a process wrote it is not a backup: take one with 'handoffctl backup' (--server URL for a running server) and make a store of it with 'handoffctl restore'"
	case errors.Is(err, engine.ErrUnrecordable):
		return "request_id, tenant_id or workflow_id holds a secret, which no record may keep: nothing was recorded; send the request with ids that hold none"
	case errors.Is(err, store.ErrTampered):
		return "the log was altered outside handoff: 'handoffctl verify' says where; running the command again will not help"
	case errors.Is(err, store.ErrNotFound):
		return "check --tenant and the workflow id: every read is scoped by tenant (handoffctl verify --tenant T lists a tenant's workflows)"
	case errors.As(err, &stale):
		return "run 'handoffctl tables --write' in the repository (or with --bundle DIR), then 'handoffctl check'"
	case errors.Is(err, syscall.EISDIR):
		return "the path names a directory: give a file"
	case errors.Is(err, syscall.ENOTDIR):
		return "a part of the path is a file, not a directory"
	case errors.Is(err, syscall.EROFS):
		return "the file system is read-only: write elsewhere, or open a store with --read-only"
	case errors.Is(err, os.ErrNotExist):
		return "check the path"
	case errors.Is(err, os.ErrPermission):
		return "check the permissions of the path"
	}
	return ""
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
