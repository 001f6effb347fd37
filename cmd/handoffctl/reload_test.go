package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/syncbuf"
	"github.com/handoff-dev/handoff/service"
)

// bundleCopy copies the shipped bundle's trees into dir.
func bundleCopy(t *testing.T, dir string) {
	for _, part := range []string{"contracts", "policies"} {
		require.NoError(t, os.CopyFS(filepath.Join(dir, part), os.DirFS(filepath.Join("..", "..", part))))
	}
}

// A bundle that is not signed by the key of --bundle-key stops serve before it listens.
func TestServeBundleKeyRefusesAtStart(t *testing.T) {
	dir := t.TempDir()
	bundleCopy(t, filepath.Join(dir, "b"))
	principals := writePrincipals(t, dir, "tok")
	for _, who := range []string{"signer", "other"} {
		code, _, stderr := runArgs(t, "keygen", "--out", filepath.Join(dir, who))
		require.Equal(t, exitOK, code, stderr)
	}
	serve := []string{"--db", filepath.Join(dir, "db"), "--bundle", filepath.Join(dir, "b"), "serve", "--addr", "127.0.0.1:0", "--principals", principals, "--bundle-key", filepath.Join(dir, "signer.pub")}
	code, _, stderr := runArgs(t, serve...)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "the bundle is not signed")

	code, _, stderr = runArgs(t, "bundle", "sign", "--key", filepath.Join(dir, "other"), filepath.Join(dir, "b"))
	require.Equal(t, exitOK, code, stderr)
	code, _, stderr = runArgs(t, serve...)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "the bundle's signature does not verify")

	code, _, stderr = runArgs(t, "--db", filepath.Join(dir, "db"), "serve", "--principals", principals, "--bundle-key", filepath.Join(dir, "signer.pub"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--bundle-key checks the signature of the bundle of --bundle")
}

// SIGHUP reloads the bundle and the principals file of a running serve, which keeps
// serving: a signed change decides from then on, a wrongly signed one is refused and
// the previous bundle stays; a principal added to the file is accepted.
func TestServeReloadsOnSIGHUP(t *testing.T) {
	bin, err := exec.LookPath("handoffctl") // installed on PATH by testscript.Main
	require.NoError(t, err)
	dir := t.TempDir()
	b := filepath.Join(dir, "b")
	bundleCopy(t, b)
	code, _, stderr := runArgs(t, "keygen", "--out", filepath.Join(dir, "signer"))
	require.Equal(t, exitOK, code, stderr)
	sign := func() {
		code, _, stderr := runArgs(t, "bundle", "sign", "--key", filepath.Join(dir, "signer"), b)
		require.Equal(t, exitOK, code, stderr)
	}
	sign()
	principals := filepath.Join(dir, "principals.json")
	writeAdmins := func(tokens ...string) {
		var ps []map[string]any
		for _, tok := range tokens {
			ps = append(ps, map[string]any{"name": tok, "token_sha256": service.HashToken(tok), "tenant_id": "acme", "type": "human", "id": tok, "admin": true})
		}
		data, err := json.Marshal(map[string]any{"principals": ps})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(principals, data, 0o600))
	}
	writeAdmins("tok-admin")

	cmd := exec.Command(bin, "--db", filepath.Join(dir, "db"), "--bundle", b, "serve", "--addr", "127.0.0.1:0",
		"--principals", principals, "--bundle-key", filepath.Join(dir, "signer.pub"))
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=")
	var logs syncbuf.Buffer
	cmd.Stderr = &logs
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var exitErr error
	exited := make(chan struct{}) // closed once serve has exited, with exitErr
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`).FindStringSubmatch(sc.Text()); m != nil {
				select {
				case listening <- m[1]:
				default:
				}
			}
		}
		exitErr = cmd.Wait()
		close(exited)
	}()
	var base string
	select {
	case base = <-listening:
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not start: %s", logs.String())
	}

	type reload struct{ At, Via, Result, Error, Digest string }
	var status struct {
		Digest     string
		LastReload *reload `json:"last_reload"`
	}
	get := func(token string) int {
		req, err := http.NewRequest("GET", base+"/v1/admin/bundle", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err, "serve is up: %s", logs.String())
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == http.StatusOK {
			require.NoError(t, json.Unmarshal(out, &status))
		}
		return resp.StatusCode
	}
	// hangup sends SIGHUP and waits for the reload it makes, after the last one seen.
	hangup := func() reload {
		t.Helper()
		before := ""
		if status.LastReload != nil {
			before = status.LastReload.At
		}
		require.NoError(t, cmd.Process.Signal(syscall.SIGHUP))
		require.Eventually(t, func() bool {
			return get("tok-admin") == http.StatusOK && status.LastReload != nil && status.LastReload.At != before
		}, 60*time.Second, 50*time.Millisecond, "no reload after SIGHUP: %s", logs.String())
		return *status.LastReload
	}
	require.Equal(t, http.StatusOK, get("tok-admin"))
	first := status.Digest
	require.Equal(t, http.StatusUnauthorized, get("tok-new"))

	f, err := os.OpenFile(filepath.Join(b, "policies", "handoff", "core", "decide.rego"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("\n# another digest, the same decisions\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	sign()
	writeAdmins("tok-admin", "tok-new")
	r := hangup()
	assert.Equal(t, "signal", r.Via)
	assert.Equal(t, "ok", r.Result, r.Error)
	assert.NotEqual(t, first, r.Digest)
	assert.Equal(t, r.Digest, status.Digest)
	assert.Equal(t, http.StatusOK, get("tok-new"), "the principal added to the file")

	require.NoError(t, os.WriteFile(filepath.Join(b, ".signature.json"), []byte(`{"digest": "sha256:00", "signature": "", "key_id": ""}`), 0o644))
	r = hangup()
	assert.Equal(t, "bad_signature", r.Result)
	assert.NotEqual(t, first, status.Digest, "the reloaded bundle keeps deciding")
	assert.Contains(t, logs.String(), `"msg":"bundle reload refused: the previous bundle keeps deciding"`)

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-exited:
		require.NoError(t, exitErr, "serve exits 0: %s", logs.String())
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not exit after SIGTERM")
	}
}
