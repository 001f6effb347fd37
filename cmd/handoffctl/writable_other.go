//go:build !unix

package main

import (
	"errors"
	"io/fs"
	"os"
)

// writable says why the current user cannot write to path, or nil. Without access(2),
// it creates and removes a file in the directory path; the error is the system's
// (permission denied, read-only file system ...) without the probe file's name.
func writable(path string) error {
	f, err := os.CreateTemp(path, ".handoff-writable-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
