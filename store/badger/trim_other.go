//go:build !linux

package badger

const trimSupported = false

func trimMapped(string) {}
