//go:build !linux

package shm

// NoteSource does nothing off Linux: there is no cross-memory attach.
func NoteSource(buf []byte) {}

// NoteSourceWeighted does nothing off Linux.
func NoteSourceWeighted(buf []byte, weight int) {}

// NoteSourceNow does nothing off Linux.
func NoteSourceNow(buf []byte, publishes int) {}
