//go:build !linux

package store

const trimSupported = false

func trimMapped(string) {}
