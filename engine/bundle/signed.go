package bundle

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Signature is a bundle's signature file: an Ed25519 signature over the bundle's digest
// (Digest, the one every decision records), by the key KeyID names.
type Signature struct {
	Digest    string `json:"digest"`
	Signature string `json:"signature"` // base64 (standard, padded)
	KeyID     string `json:"key_id"`
}

// signed is what the key signs: the digest, in a context of its own so that the
// signature means nothing elsewhere.
func signed(digest string) []byte { return []byte("handoff bundle signature v1\n" + digest) }

// ErrUnsigned is a bundle without a signature file where one is required.
var ErrUnsigned = errors.New("the bundle is not signed")

// ErrBadSignature is a signature that does not verify: another key, another digest
// (the bundle changed since it was signed), or a damaged file.
var ErrBadSignature = errors.New("the bundle's signature does not verify")

// KeyID names a public key in a signature file: the first 16 hex digits of the SHA-256
// of the key.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return "ed25519:" + hex.EncodeToString(sum[:8])
}

// SignaturePath is where the signature of the bundle at source is kept by default:
// DIR/.signature.json beside a directory's trees, ARCHIVE.sig beside an archive.
func SignaturePath(source string) string {
	if IsArchive(source) {
		return source + ".sig"
	}
	return filepath.Join(source, ".signature.json")
}

// Sign signs the digest of a bundle.
func Sign(digest string, key ed25519.PrivateKey) Signature {
	pub, _ := key.Public().(ed25519.PublicKey)
	return Signature{Digest: digest, Signature: base64.StdEncoding.EncodeToString(ed25519.Sign(key, signed(digest))), KeyID: KeyID(pub)}
}

// Verify checks that s is pub's signature of digest; the error wraps ErrBadSignature
// and says which part does not match.
func (s Signature) Verify(digest string, pub ed25519.PublicKey) error {
	sig, err := base64.StdEncoding.DecodeString(s.Signature)
	switch {
	case s.Digest != digest:
		return fmt.Errorf("%w: it signs %s, the bundle's digest is %s", ErrBadSignature, s.Digest, digest)
	case err != nil || len(sig) != ed25519.SignatureSize:
		return fmt.Errorf("%w: the signature is not %d bytes of base64", ErrBadSignature, ed25519.SignatureSize)
	case !ed25519.Verify(pub, signed(digest), sig):
		if s.KeyID != KeyID(pub) {
			return fmt.Errorf("%w: signed by key %s, not by the trusted key %s", ErrBadSignature, s.KeyID, KeyID(pub))
		}
		return fmt.Errorf("%w: the signature is not the key's over the digest", ErrBadSignature)
	}
	return nil
}

// ReadSignature reads a signature file; a missing one is ErrUnsigned.
func ReadSignature(file string) (Signature, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return Signature{}, fmt.Errorf("%w: no signature file %s", ErrUnsigned, file)
	}
	if err != nil {
		return Signature{}, err
	}
	var s Signature
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Signature{}, fmt.Errorf("%w: signature file %s: %v", ErrBadSignature, file, err)
	}
	return s, nil
}

// LoadVerified loads the bundle at source (Load) and, when pub is set, checks the
// signature beside it (SignaturePath) against its digest. It returns the bundle and
// its digest; the error wraps ErrUnsigned or ErrBadSignature when the signature is the
// problem.
func LoadVerified(source string, pub ed25519.PublicKey) (Bundle, string, error) {
	b, err := Load(source)
	if err != nil {
		return Bundle{}, "", err
	}
	digest, err := Digest(b)
	if err != nil {
		return Bundle{}, "", err
	}
	if pub == nil {
		return b, digest, nil
	}
	s, err := ReadSignature(SignaturePath(source))
	if err != nil {
		return Bundle{}, "", err
	}
	if err := s.Verify(digest, pub); err != nil {
		return Bundle{}, "", err
	}
	return b, digest, nil
}
