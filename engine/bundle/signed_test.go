package bundle

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBundleSignatureVerifiesOnlyTheSignedDigestWithTheSigningKey(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	other, _, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	s := Sign("sha256:aa", priv)
	require.Equal(t, KeyID(pub), s.KeyID)
	require.NoError(t, s.Verify("sha256:aa", pub))
	require.ErrorIs(t, s.Verify("sha256:bb", pub), ErrBadSignature)
	err = s.Verify("sha256:aa", other)
	require.ErrorIs(t, err, ErrBadSignature)
	require.ErrorContains(t, err, "not by the trusted key")
	s.Signature = "AAAA"
	require.ErrorIs(t, s.Verify("sha256:aa", pub), ErrBadSignature)
}

func TestBundleLoadVerifiedNeedsTheSignatureBesideTheBundle(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	dir := t.TempDir()
	for _, part := range parts {
		require.NoError(t, os.CopyFS(filepath.Join(dir, part), os.DirFS(filepath.Join(repoBundle, part))))
	}
	_, _, err = LoadVerified(dir, pub)
	require.ErrorIs(t, err, ErrUnsigned)

	_, digest, err := LoadVerified(dir, nil)
	require.NoError(t, err)
	data, err := json.Marshal(Sign(digest, priv))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(SignaturePath(dir), data, 0o644))
	_, got, err := LoadVerified(dir, pub)
	require.NoError(t, err)
	require.Equal(t, digest, got)

	// A changed policy is another digest: the signature no longer holds.
	f := filepath.Join(dir, "policies", "handoff", "core", "extra.rego")
	require.NoError(t, os.WriteFile(f, []byte("package handoff.core\n"), 0o644))
	_, _, err = LoadVerified(dir, pub)
	require.ErrorIs(t, err, ErrBadSignature)
}
