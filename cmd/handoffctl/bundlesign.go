package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/handoff-dev/handoff/engine/bundle"
)

var bundleCmd = &command{
	name:  "bundle",
	args:  "build DIR --out FILE.tar.gz | sign --key FILE [--out SIG] DIR|ARCHIVE | verify --pub FILE [--sig FILE] DIR|ARCHIVE",
	short: "build a bundle archive, sign a bundle, verify its signature",
	long: `Bundle builds, signs and verifies the bundles a server loads (serve --bundle).

  bundle build DIR --out FILE.tar.gz
      writes the bundle archive of the bundle directory DIR: a gzip-compressed tar of
      DIR/contracts and DIR/policies, regular files only, in path order, with zero times
      and fixed modes, so the same files always make the same archive.

  bundle sign --key FILE [--out SIG] DIR|ARCHIVE
      signs the bundle's digest (the one every decision records as
      policy.bundle_digest) with the Ed25519 private key of --key (handoffctl keygen).
      The signature file is JSON {"digest", "signature" (base64), "key_id"}, written to
      --out or beside the bundle: DIR/.signature.json, ARCHIVE.sig.

  bundle verify --pub FILE DIR|ARCHIVE
      checks the signature file beside the bundle (or --sig FILE) against the bundle's
      digest and the public key of --pub; exit 0 when it verifies, 3 with the reason when
      the bundle is unsigned or its signature does not verify.

A bundle archive is read whole into memory; one with an absolute path, "..", a link or a
device, an entry outside contracts/ and policies/, or more than 64 MiB or 10,000 files
is refused. docs/bundles.md has the formats and how a server reloads a bundle.

With -o json the output is one JSON object: build {"archive", "digest"}; sign
{"bundle", "digest", "signature_file", "key_id"}; verify {"bundle", "digest",
"signature_file", "ok", "error"}.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		out := fs.String("out", "", "build: the archive `FILE`; sign: the signature file (default beside the bundle)")
		key := fs.String("key", "", "sign: the Ed25519 private key `FILE` (PEM, from handoffctl keygen)")
		pub := fs.String("pub", "", "verify: the Ed25519 public key `FILE` (PEM, FILE.pub of handoffctl keygen)")
		sig := fs.String("sig", "", "verify: the signature `FILE` (default beside the bundle)")
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) != 2 {
				return usagef("bundle takes build DIR, sign DIR|ARCHIVE or verify DIR|ARCHIVE")
			}
			switch sub, src := args[0], args[1]; sub {
			case "build":
				if *out == "" || *key != "" || *pub != "" || *sig != "" {
					return usagef("bundle build takes DIR and --out FILE.tar.gz")
				}
				return c.bundleBuild(src, *out)
			case "sign":
				if *key == "" || *pub != "" || *sig != "" {
					return usagef("bundle sign takes --key FILE, optionally --out SIG, and DIR|ARCHIVE")
				}
				return c.bundleSign(src, *key, *out)
			case "verify":
				if *pub == "" || *key != "" || *out != "" {
					return usagef("bundle verify takes --pub FILE, optionally --sig FILE, and DIR|ARCHIVE")
				}
				return c.bundleVerify(src, *pub, *sig)
			default:
				return usagef("bundle has no subcommand %q: build, sign or verify", sub)
			}
		}
	},
}

func (c *cli) bundleBuild(dir, out string) error {
	if !bundle.IsArchive(out) {
		return usagef("--out %s: a bundle archive's name ends in .tar.gz or .tgz", out)
	}
	var buf bytes.Buffer
	if err := bundle.WriteArchive(&buf, dir); err != nil {
		return err
	}
	b, err := bundle.ReadArchive(bytes.NewReader(buf.Bytes()))
	if err != nil {
		return err
	}
	digest, err := bundle.Digest(b)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := writeFileAtomic(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	if c.json() {
		return writeJSON(c.stdout, map[string]string{"archive": out, "digest": digest})
	}
	fmt.Fprintf(c.stdout, "bundle archive %s, digest %s\n", out, digest)
	return nil
}

func (c *cli) bundleSign(src, keyFile, out string) error {
	key, err := readPrivateKey(keyFile)
	if err != nil {
		return err
	}
	digest, err := bundleDigest(src)
	if err != nil {
		return err
	}
	if out == "" {
		out = bundle.SignaturePath(src)
	}
	s := bundle.Sign(digest, key)
	var buf bytes.Buffer
	if err := writeJSON(&buf, s); err != nil {
		return err
	}
	if err := writeFileAtomic(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	if c.json() {
		return writeJSON(c.stdout, map[string]string{"bundle": src, "digest": digest, "signature_file": out, "key_id": s.KeyID})
	}
	fmt.Fprintf(c.stdout, "signed %s (digest %s) with key %s: %s\n", src, digest, s.KeyID, out)
	return nil
}

func (c *cli) bundleVerify(src, pubFile, sigFile string) error {
	pub, err := readPublicKey(pubFile)
	if err != nil {
		return err
	}
	digest, err := bundleDigest(src)
	if err != nil {
		return err
	}
	if sigFile == "" {
		sigFile = bundle.SignaturePath(src)
	}
	s, err := bundle.ReadSignature(sigFile)
	if err == nil {
		err = s.Verify(digest, pub)
	}
	if err != nil && !errors.Is(err, bundle.ErrUnsigned) && !errors.Is(err, bundle.ErrBadSignature) {
		return err
	}
	if c.json() {
		rep := map[string]any{"bundle": src, "digest": digest, "signature_file": sigFile, "ok": err == nil}
		if err != nil {
			rep["error"] = err.Error()
		}
		if werr := writeJSON(c.stdout, rep); werr != nil {
			return werr
		}
	} else if err == nil {
		fmt.Fprintf(c.stdout, "OK: %s (digest %s) is signed by %s (%s)\n", src, digest, pubFile, s.KeyID)
	}
	if err != nil {
		return negativef("%s: %v", src, err)
	}
	return nil
}

// bundleDigest is the digest of the bundle at src (a directory or an archive), as the
// engine records it on every decision: what a signature covers.
func bundleDigest(src string) (string, error) {
	b, err := bundle.Load(src)
	if err != nil {
		return "", err
	}
	return bundle.Digest(b)
}
