//go:build unix

package main

import "syscall"

// writable says why the current user cannot write to path, or nil.
func writable(path string) error { return syscall.Access(path, 2 /* W_OK */) }
