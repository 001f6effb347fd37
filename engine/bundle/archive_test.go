package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The repository's root is a bundle directory: contracts/ and policies/.
const repoBundle = "../.."

func TestBundleArchiveIsDeterministicAndDigestsAsItsDirectory(t *testing.T) {
	var a, b bytes.Buffer
	require.NoError(t, WriteArchive(&a, repoBundle))
	require.NoError(t, WriteArchive(&b, repoBundle))
	require.Equal(t, a.Bytes(), b.Bytes(), "two builds of the same files differ")

	fromArchive, err := ReadArchive(bytes.NewReader(a.Bytes()))
	require.NoError(t, err)
	got, err := Digest(fromArchive)
	require.NoError(t, err)
	want, err := Digest(Dir(repoBundle))
	require.NoError(t, err)
	require.Equal(t, want, got)
	shipped, err := Digest(Shipped())
	require.NoError(t, err)
	require.Equal(t, shipped, got, "the repository's tree is the shipped bundle")
}

// archive writes a tar.gz of the given headers, each file's content its name.
func archive(t *testing.T, headers ...*tar.Header) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, h := range headers {
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(h.Name))
		}
		require.NoError(t, tw.WriteHeader(h))
		if h.Typeflag == tar.TypeReg {
			_, err := tw.Write([]byte(h.Name))
			require.NoError(t, err)
		}
	}
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func TestBundleArchiveRefusesEntriesOutsideItsTree(t *testing.T) {
	reg := func(name string) *tar.Header { return &tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644} }
	ok := []*tar.Header{reg("contracts/cue.mod/module.cue"), reg("policies/handoff/core/x.rego")}
	_, err := ReadArchive(bytes.NewReader(archive(t, ok...)))
	require.NoError(t, err)

	for name, bad := range map[string]struct {
		h    *tar.Header
		want string
	}{
		"absolute":  {reg("/etc/passwd"), "absolute path"},
		"dotdot":    {reg("policies/../../x.rego"), "climbs out"},
		"symlink":   {&tar.Header{Name: "policies/l.rego", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}, "links"},
		"hardlink":  {&tar.Header{Name: "policies/l.rego", Typeflag: tar.TypeLink, Linkname: "policies/handoff/core/x.rego"}, "links"},
		"elsewhere": {reg("README.md"), "outside contracts/ and policies/"},
		"twice":     {reg("policies/handoff/core/x.rego"), "twice"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ReadArchive(bytes.NewReader(archive(t, append(ok[:2:2], bad.h)...)))
			require.ErrorContains(t, err, bad.want)
		})
	}
	t.Run("no policies", func(t *testing.T) {
		_, err := ReadArchive(bytes.NewReader(archive(t, ok[0])))
		require.ErrorContains(t, err, "no policies directory")
	})
	t.Run("too large", func(t *testing.T) {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		tw := tar.NewWriter(zw)
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: "policies/big.json", Typeflag: tar.TypeReg, Size: MaxBundleBytes + 1}))
		_, err := tw.Write([]byte(strings.Repeat(" ", MaxBundleBytes+1)))
		require.NoError(t, err)
		require.NoError(t, tw.Close())
		require.NoError(t, zw.Close())
		_, err = ReadArchive(bytes.NewReader(buf.Bytes()))
		require.ErrorContains(t, err, "over 64 MiB")
	})
}
