package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/handoff-dev/handoff/engine"
)

var keygenCmd = &command{
	name:  "keygen",
	args:  "--out FILE",
	short: "make an Ed25519 key pair for signing checkpoints",
	long: `Keygen makes an Ed25519 key pair: the private key in FILE (PEM, PKCS #8, mode 0600)
and the public key in FILE.pub (PEM, PKIX). Neither may exist already. Keep the private
key with whoever signs checkpoints; give the public key to whoever verifies them.

With -o json the output is one JSON object: private_key, public_key (the file names).`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		out := fs.String("out", "", "write the private key to `FILE` and the public key to FILE.pub")
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) > 0 || *out == "" {
				return usagef("keygen takes --out FILE and no arguments")
			}
			pub, priv, err := ed25519.GenerateKey(rand.Reader)
			if err != nil {
				return err
			}
			privDER, err := x509.MarshalPKCS8PrivateKey(priv)
			if err != nil {
				return err
			}
			pubDER, err := x509.MarshalPKIXPublicKey(pub)
			if err != nil {
				return err
			}
			for _, f := range []string{*out, *out + ".pub"} {
				if _, err := os.Lstat(f); err == nil {
					return withHint(fmt.Errorf("%s exists", f), "keygen never overwrites a key: choose another --out FILE")
				}
			}
			if err := os.MkdirAll(filepath.Dir(*out), 0o700); err != nil {
				return err
			}
			if err := writeFileAtomic(*out, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER}), 0o600); err != nil {
				return err
			}
			if err := writeFileAtomic(*out+".pub", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644); err != nil {
				return err
			}
			if c.json() {
				return writeJSON(c.stdout, map[string]string{"private_key": *out, "public_key": *out + ".pub"})
			}
			fmt.Fprintf(c.stdout, "private key  %s\npublic key   %s.pub\n", *out, *out)
			return nil
		}
	},
}

var checkpointCmd = &command{
	name:  "checkpoint",
	args:  "--key FILE --out FILE",
	short: "sign the head of every chain to a file kept outside the store",
	long: `Checkpoint reads the head (last seq and hash) of every workflow chain and every
audit stream of the store of --store, computes a Merkle root over them and signs the
whole with the Ed25519 private key of --key (made by handoffctl keygen). The signed
checkpoint goes to --out, which must be outside the store directory: keep it where
whoever could alter the store cannot, and later run

  handoffctl verify --checkpoint FILE --pub KEY.pub

to prove that the log still extends it. The file is written crash-safely: a temporary
file in the same directory, fsync, rename, fsync of the directory.

With -o json the output is the checkpoint itself.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		keyFile := fs.String("key", "", "the Ed25519 private key `FILE` (PEM, from handoffctl keygen)")
		out := fs.String("out", "", "write the checkpoint to `FILE`, outside the store")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if len(args) > 0 || *keyFile == "" || *out == "" {
				return usagef("checkpoint takes --key FILE and --out FILE and no arguments")
			}
			if inside, err := within(*out, c.db.value); err != nil {
				return err
			} else if inside {
				return usagef("--out %s is inside the store %s: a checkpoint must be kept outside it", *out, c.db.value)
			}
			key, err := readPrivateKey(*keyFile)
			if err != nil {
				return err
			}
			e, err := c.open(ctx, existingStore)
			if err != nil {
				return err
			}
			defer closeEngine(e, &err)
			heads, err := e.Heads(ctx)
			if err != nil {
				return err
			}
			cp, err := engine.NewCheckpoint(heads, time.Now(), key)
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := writeJSON(&buf, cp); err != nil {
				return err
			}
			if err := writeFileAtomic(*out, buf.Bytes(), 0o644); err != nil {
				return err
			}
			if c.json() {
				_, err := c.stdout.Write(buf.Bytes())
				return err
			}
			fmt.Fprintf(c.stdout, "checkpoint %s: %s, root %s\n", *out, count(len(cp.Heads), "chain"), cp.Root)
			return nil
		}
	},
}

// verifyCheckpoint is verify --checkpoint: the signature, then every chain it names.
func (c *cli) verifyCheckpoint(ctx context.Context, e *engine.Engine, file, pubFile string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var cp engine.Checkpoint
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cp); err != nil {
		return withHint(fmt.Errorf("checkpoint %s: %w", file, err), "a checkpoint is the JSON file handoffctl checkpoint writes")
	}
	var pub ed25519.PublicKey
	if pubFile != "" {
		if pub, err = readPublicKey(pubFile); err != nil {
			return err
		}
	}
	type report struct {
		Checkpoint string                     `json:"checkpoint"`
		CreatedAt  string                     `json:"created_at"`
		Root       string                     `json:"root"`
		Chains     int                        `json:"chains"`
		Signature  string                     `json:"signature"` // ok or the problem
		KeyPinned  bool                       `json:"key_pinned"`
		OK         bool                       `json:"ok"`
		Findings   []engine.CheckpointFinding `json:"findings"`
	}
	rep := report{Checkpoint: file, CreatedAt: cp.CreatedAt, Root: cp.Root, Chains: len(cp.Heads), Signature: "ok", KeyPinned: pub != nil, Findings: []engine.CheckpointFinding{}}
	sigErr := cp.Verify(pub)
	if sigErr != nil {
		rep.Signature = sigErr.Error()
	} else {
		if rep.Findings, err = e.CheckCheckpoint(ctx, &cp); err != nil {
			return err
		}
	}
	rep.OK = sigErr == nil && len(rep.Findings) == 0
	if c.json() {
		if err := writeJSON(c.stdout, rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.stdout, "checkpoint %s of %s: %s, root %s\n", file, cp.CreatedAt, count(len(cp.Heads), "chain"), cp.Root)
		switch {
		case sigErr != nil:
			fmt.Fprintf(c.stdout, "signature  BAD: %v\n", sigErr)
		case pub == nil:
			fmt.Fprintln(c.stdout, "signature  ok, with the key the checkpoint names (pass --pub FILE to pin the signer)")
		default:
			fmt.Fprintf(c.stdout, "signature  ok, by %s\n", pubFile)
		}
		t := newTable(c.stdout)
		for _, f := range rep.Findings {
			chain := f.Workflow
			if chain == "" {
				chain = "(audit)"
			}
			fmt.Fprintf(t, "%s\t%s\t%s\t%s\n", strings.ToUpper(f.Kind), f.Tenant, chain, f.Problem)
		}
		t.flush()
		if rep.OK {
			fmt.Fprintln(c.stdout, "OK: the log extends the checkpoint")
		}
	}
	switch {
	case sigErr != nil:
		return negativef("the checkpoint's signature does not verify")
	case len(rep.Findings) > 0:
		return negativef("%d of %s no longer extend the checkpoint: the log was truncated, rolled back or rewritten", len(rep.Findings), count(len(cp.Heads), "chain"))
	}
	return nil
}

func readPrivateKey(file string) (ed25519.PrivateKey, error) {
	priv, ok, err := readKey[ed25519.PrivateKey](file, "PRIVATE KEY", x509.ParsePKCS8PrivateKey)
	if err == nil && !ok {
		return nil, withHint(fmt.Errorf("%s is not an Ed25519 private key", file), "make one with handoffctl keygen --out FILE")
	}
	return priv, err
}

func readPublicKey(file string) (ed25519.PublicKey, error) {
	pub, ok, err := readKey[ed25519.PublicKey](file, "PUBLIC KEY", x509.ParsePKIXPublicKey)
	if err == nil && !ok {
		return nil, fmt.Errorf("%s is not an Ed25519 public key", file)
	}
	return pub, err
}

// readKey reads the PEM block of type typ in file and parses it with parse; ok is false
// when the key parses but is not a K.
func readKey[K any](file, typ string, parse func([]byte) (any, error)) (key K, ok bool, err error) {
	block, err := readPEM(file, typ)
	if err != nil {
		return key, false, err
	}
	k, err := parse(block)
	if err != nil {
		return key, false, fmt.Errorf("%s: %w", file, err)
	}
	key, ok = k.(K)
	return key, ok, nil
}

func readPEM(file, typ string) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != typ {
		return nil, withHint(fmt.Errorf("%s holds no PEM %s", file, typ), "keys come from handoffctl keygen --out FILE: FILE is private, FILE.pub public")
	}
	return block.Bytes, nil
}

// writeFileAtomic writes data to file so that a crash leaves either the old file or the
// new one: a temporary file in the same directory, fsync, rename, fsync of the directory.
func writeFileAtomic(file string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(file)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(file)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err = tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), file); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// within says whether path is inside dir (or is dir).
func within(path, dir string) (bool, error) {
	p, err := filepath.Abs(path)
	if err != nil {
		return false, err
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return false, err
	}
	rel, err := filepath.Rel(d, p)
	if err != nil {
		return false, nil
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))), nil
}
