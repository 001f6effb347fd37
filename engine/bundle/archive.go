package bundle

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"testing/fstest"
	"time"
)

// A bundle archive is a gzip-compressed tar of the tree of a bundle directory: regular
// files under contracts/ and policies/ (and their directories), nothing else. An entry
// with an absolute path, a ".." element, a link or device, or a path outside those two
// trees is refused, and so is an archive over MaxBundleBytes or MaxBundleFiles.

// ReadArchiveFile reads the bundle archive in file into memory.
func ReadArchiveFile(file string) (Bundle, error) {
	f, err := os.Open(file)
	if err != nil {
		return Bundle{}, err
	}
	defer f.Close()
	b, err := ReadArchive(f)
	if err != nil {
		return Bundle{}, fmt.Errorf("bundle archive %s: %w", file, err)
	}
	return b, nil
}

// ReadArchive reads a bundle archive into memory.
func ReadArchive(r io.Reader) (Bundle, error) {
	zr, err := gzip.NewReader(io.LimitReader(r, MaxBundleBytes+1))
	if err != nil {
		return Bundle{}, err
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	files := fstest.MapFS{}
	var total int64
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Bundle{}, err
		}
		name, err := entryName(h)
		if err != nil {
			return Bundle{}, err
		}
		switch h.Typeflag {
		case tar.TypeXGlobalHeader:
			continue
		case tar.TypeDir:
			continue
		case tar.TypeReg:
		default:
			return Bundle{}, fmt.Errorf("%s is not a regular file or directory: links and devices are refused", h.Name)
		}
		if files[name] != nil {
			return Bundle{}, fmt.Errorf("%s is in the archive twice", h.Name)
		}
		if total += h.Size; h.Size < 0 || total > MaxBundleBytes || len(files) >= MaxBundleFiles {
			return Bundle{}, fmt.Errorf("over %d MiB or %d files", MaxBundleBytes>>20, MaxBundleFiles)
		}
		data, err := io.ReadAll(io.LimitReader(tr, h.Size))
		if err != nil {
			return Bundle{}, err
		}
		files[name] = &fstest.MapFile{Data: data, Mode: 0o444}
	}
	return fromFiles(files)
}

// entryName is the path of an archive entry in the bundle's tree, or why it is refused.
func entryName(h *tar.Header) (string, error) {
	if h.Typeflag == tar.TypeXGlobalHeader {
		return "", nil
	}
	name := strings.TrimSuffix(h.Name, "/")
	switch {
	case strings.HasPrefix(name, "/"):
		return "", fmt.Errorf("%s is an absolute path", h.Name)
	case slices.Contains(strings.Split(name, "/"), ".."):
		return "", fmt.Errorf("%s climbs out of the bundle (..)", h.Name)
	case strings.Contains(name, "\\"):
		return "", fmt.Errorf("%s has a backslash", h.Name)
	}
	name = path.Clean(strings.TrimPrefix(name, "./"))
	top, _, _ := strings.Cut(name, "/")
	if !slices.Contains(parts, top) {
		return "", fmt.Errorf("%s is outside contracts/ and policies/", h.Name)
	}
	return name, nil
}

// WriteArchive writes the bundle archive of a bundle directory: every regular file of
// dir/contracts and dir/policies, in path order, with zero times, no owner and fixed
// modes, so that the same files always give the same bytes.
func WriteArchive(w io.Writer, dir string) error {
	b, err := readDir(dir)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	for _, part := range parts {
		fsys := b.Contracts
		if part == "policies" {
			fsys = b.Policies
		}
		err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			h := &tar.Header{Name: path.Join(part, p), ModTime: time.Unix(0, 0)}
			if d.IsDir() {
				h.Typeflag, h.Name, h.Mode = tar.TypeDir, h.Name+"/", 0o755
				return tw.WriteHeader(h)
			}
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			h.Typeflag, h.Mode, h.Size = tar.TypeReg, 0o644, int64(len(data))
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
			_, err = tw.Write(data)
			return err
		})
		if err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}
