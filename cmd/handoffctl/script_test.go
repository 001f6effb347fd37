// The scripts in testdata/script compare most output with a file of their archive
// (cmp stdout want/log). After a deliberate change of output,
//
//	go test ./cmd/handoffctl -run TestScript -update
//
// rewrites those files from what the commands print now; read the diff before committing
// it. The mask command first replaces what differs from run to run (times, ids, the
// checkout and work directories) by placeholders. The flag is the one of reasons_test.go:
// with -run ., it rewrites docs/reasons.md's reason tables too.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"handoffctl": func() { os.Exit(Main()) },
		// exitcode N handoffctl ARGS... runs handoffctl and succeeds when it exits N.
		"exitcode": exitcodeMain,
	})
}

// TestScript runs the scripts in testdata/script. $REPO is the repository root, for the
// shipped policies, tests and scenarios.
func TestScript(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			env.Setenv("HANDOFF_DB", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"tamper":          cmdTamper,
			"tamper-snapshot": cmdTamperSnapshot,
			"tamper-idem":     cmdTamperIdem,
			"cptree":          cmdCptree,
			"replace":         cmdReplace,
			"grab":            cmdGrab,
			"jsonget":         cmdJSONGet,
			"jsonvar":         cmdJSONVar,
			"scenario-head":   cmdScenarioHead,
			"mask":            cmdMask,
		},
	})
}

// exitcodeMain is the exitcode command: exitcode N handoffctl ARGS...
func exitcodeMain() {
	if len(os.Args) < 3 || os.Args[2] != "handoffctl" {
		fmt.Fprintln(os.Stderr, "usage: exitcode N handoffctl [ARGS...]")
		os.Exit(2)
	}
	want, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "exitcode: %q is not an exit code\n", os.Args[1])
		os.Exit(2)
	}
	os.Args = append([]string{"handoffctl"}, os.Args[3:]...)
	if got := Main(); got != want {
		fmt.Fprintf(os.Stderr, "exitcode: handoffctl exited with %d, want %d\n", got, want)
		os.Exit(1)
	}
	os.Exit(0)
}

// cmdCptree copies a directory tree: cptree SRC DST (DST must not exist).
func cmdCptree(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cptree SRC DST")
	}
	ts.Check(os.CopyFS(ts.MkAbs(args[1]), os.DirFS(ts.MkAbs(args[0]))))
}

// cmdReplace replaces every OLD by NEW in FILE: replace FILE OLD NEW. OLD must occur.
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	file := ts.MkAbs(args[0])
	data, err := os.ReadFile(file)
	ts.Check(err)
	if !bytes.Contains(data, []byte(args[1])) {
		ts.Fatalf("%s does not contain %q", args[0], args[1])
	}
	ts.Check(os.WriteFile(file, bytes.ReplaceAll(data, []byte(args[1]), []byte(args[2])), 0o644))
}

// cmdGrab sets an environment variable from the last command's stdout: grab NAME RE
// sets NAME to the first submatch of the first match of RE.
func cmdGrab(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: grab NAME REGEXP")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if len(m) < 2 {
		ts.Fatalf("no match for %q with a submatch in stdout", args[1])
	}
	ts.Setenv(args[0], m[1])
}

// Masked by every mask command: RFC 3339 times and UUIDs (decision ids).
var (
	maskTime = regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)`)
	maskUUID = regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
)

// cmdMask rewrites the last stdout and stderr so that what differs from run to run
// compares equal with cmp: the checkout becomes $REPO, the work directory $WORK, an RFC
// 3339 time TIME and a UUID UUID. Each argument NAME=REGEXP replaces what REGEXP matches (its first group when
// it has one) by NAME: mask HASH=sha256:([0-9a-f]{64}) LINE=\.rego:(\d+). A first
// argument -keeptimes leaves the times alone, for output whose times are set (--at).
func cmdMask(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: mask [-keeptimes] [NAME=REGEXP...]")
	}
	type rule struct {
		name string
		re   *regexp.Regexp
	}
	rules := []rule{{"TIME", maskTime}, {"UUID", maskUUID}}
	if len(args) > 0 && args[0] == "-keeptimes" {
		rules, args = rules[1:], args[1:]
	}
	for _, arg := range args {
		name, expr, ok := strings.Cut(arg, "=")
		if !ok || name == "" {
			ts.Fatalf("mask: %q is not NAME=REGEXP", arg)
		}
		re, err := regexp.Compile(expr)
		ts.Check(err)
		rules = append(rules, rule{name, re})
	}
	masked := func(s string) string {
		for _, dir := range []string{"REPO", "WORK"} {
			if path := ts.Getenv(dir); path != "" {
				s = strings.ReplaceAll(s, path, "$"+dir)
			}
		}
		for _, r := range rules {
			var b strings.Builder
			last := 0
			for _, m := range r.re.FindAllStringSubmatchIndex(s, -1) {
				from, to := m[0], m[1]
				if len(m) > 2 && m[2] >= 0 {
					from, to = m[2], m[3]
				}
				b.WriteString(s[last:from])
				b.WriteString(r.name)
				last = to
			}
			b.WriteString(s[last:])
			s = b.String()
		}
		return s
	}
	stdout, stderr := masked(ts.ReadFile("stdout")), masked(ts.ReadFile("stderr"))
	fmt.Fprint(ts.Stdout(), stdout)
	fmt.Fprint(ts.Stderr(), stderr)
}

// cmdJSONGet prints, one per line as compact JSON, the values at the paths given in the
// JSON document of the last stdout: jsonget PATH... (a path is dot-separated object
// keys and array indexes, as entries.0.decision.outcome; "." is the whole document).
// What it prints becomes stdout, for cmp.
func cmdJSONGet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: jsonget PATH...")
	}
	doc := lastJSON(ts)
	for _, path := range args {
		v, err := jsonAt(doc, path)
		ts.Check(err)
		b, err := json.Marshal(v)
		ts.Check(err)
		fmt.Fprintf(ts.Stdout(), "%s\n", b)
	}
}

// cmdJSONVar sets NAME to the string at PATH in the JSON document of the last stdout:
// jsonvar NAME PATH.
func cmdJSONVar(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: jsonvar NAME PATH")
	}
	v, err := jsonAt(lastJSON(ts), args[1])
	ts.Check(err)
	s, ok := v.(string)
	if !ok {
		ts.Fatalf("%s is %T, not a string", args[1], v)
	}
	ts.Setenv(args[0], s)
}

// lastJSON decodes the last stdout as one JSON document.
func lastJSON(ts *testscript.TestScript) any {
	var doc any
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile("stdout")))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		ts.Fatalf("stdout is not one JSON document: %v", err)
	}
	if dec.More() {
		ts.Fatalf("stdout holds more than one JSON document")
	}
	return doc
}

// jsonAt walks a dot-separated path of keys and indexes.
func jsonAt(doc any, path string) (any, error) {
	if path == "." {
		return doc, nil
	}
	v := doc
	for _, step := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[step]
			if !ok {
				return nil, fmt.Errorf("%s: no key %q", path, step)
			}
			v = next
		case []any:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("%s: no index %q in an array of %d", path, step, len(x))
			}
			v = x[i]
		default:
			return nil, fmt.Errorf("%s: %q steps into a %T", path, step, v)
		}
	}
	return v, nil
}

// cmdTamper alters one workflow record of the Badger store in DBDIR behind the engine's
// back, as an attacker with disk access would: it flips one byte of the record's
// payload and leaves its recorded hash alone. tamper DBDIR [SEQ] picks the first record
// with that seq (default 1).
//
// A record key is t/ TENANT w/ WORKFLOW e/ <seq, 8 bytes big-endian>, each id ending
// with 0x00 0x01 (store/keys.go). A record value is 0x01, seq (8 bytes), then time,
// type, payload, prev_hash and hash, each an 8-byte big-endian length and the bytes
// (store/record.go).
func cmdTamper(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: tamper DBDIR [SEQ]")
	}
	seq := uint64(1)
	if len(args) == 2 {
		n, err := strconv.ParseUint(args[1], 10, 64)
		ts.Check(err)
		seq = n
	}
	db, err := badger.Open(badger.DefaultOptions(ts.MkAbs(args[0])).WithLogger(nil))
	ts.Check(err)
	defer db.Close()
	recordTag := []byte("\x00\x01e/")
	done := false
	err = db.Update(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		var key, val []byte
		for it.Seek([]byte("t/")); it.ValidForPrefix([]byte("t/")); it.Next() {
			k := it.Item().Key()
			i := bytes.LastIndex(k, recordTag)
			if i < 0 || len(k) != i+len(recordTag)+8 || beUint64(k[len(k)-8:]) != seq {
				continue
			}
			key = it.Item().KeyCopy(nil)
			if val, err = it.Item().ValueCopy(nil); err != nil {
				it.Close()
				return err
			}
			break
		}
		it.Close()
		if key == nil {
			return fmt.Errorf("no workflow record with seq %d", seq)
		}
		off := 1 + 8
		for range 2 { // skip time and type
			off += 8 + int(beUint64(val[off:off+8]))
		}
		n := int(beUint64(val[off : off+8]))
		off += 8
		if n == 0 {
			return fmt.Errorf("record has an empty payload")
		}
		val[off+n/2] ^= 0x01
		done = true
		return txn.Set(key, val)
	})
	ts.Check(err)
	if !done {
		ts.Fatalf("nothing tampered")
	}
}

// cmdTamperSnapshot rewrites the state snapshot of a workflow behind the engine's back:
// tamper-snapshot DBDIR TENANT WORKFLOW OLD NEW replaces the bytes OLD with NEW in it. A
// snapshot key is t/ TENANT w/ WORKFLOW s (store/keys.go).
func cmdTamperSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 5 {
		ts.Fatalf("usage: tamper-snapshot DBDIR TENANT WORKFLOW OLD NEW")
	}
	rawRewrite(ts, args[0], []byte("t/"+args[1]+"\x00\x01w/"+args[2]+"\x00\x01s"), func(v []byte) []byte {
		if !bytes.Contains(v, []byte(args[3])) {
			ts.Fatalf("the snapshot holds no %q", args[3])
		}
		return bytes.Replace(v, []byte(args[3]), []byte(args[4]), 1)
	})
}

// cmdTamperIdem changes the last digit of the record hash the idempotency record of a
// request binds: tamper-idem DBDIR TENANT REQUEST_ID. The key is t/ TENANT i/
// REQUEST_ID. The digit stays hexadecimal, so the output reads as any hash does.
func cmdTamperIdem(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: tamper-idem DBDIR TENANT REQUEST_ID")
	}
	rawRewrite(ts, args[0], []byte("t/"+args[1]+"\x00\x01i/"+args[2]+"\x00\x01"), func(v []byte) []byte {
		if v[len(v)-1] == '0' {
			v[len(v)-1] = '1'
		} else {
			v[len(v)-1] = '0'
		}
		return v
	})
}

// rawRewrite replaces the value of one key of the Badger store in dir.
func rawRewrite(ts *testscript.TestScript, dir string, key []byte, change func([]byte) []byte) {
	db, err := badger.Open(badger.DefaultOptions(ts.MkAbs(dir)).WithLogger(nil))
	ts.Check(err)
	defer db.Close()
	ts.Check(db.Update(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return fmt.Errorf("key %q: %w", key, err)
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		return txn.Set(key, change(v))
	}))
}

func beUint64(b []byte) uint64 {
	var n uint64
	for _, c := range b[:8] {
		n = n<<8 | uint64(c)
	}
	return n
}
