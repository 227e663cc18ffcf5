//go:build !linux

package shm

// NoteSource does nothing off Linux: there is no cross-memory attach.
func NoteSource(buf []byte) {}
