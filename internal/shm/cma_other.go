//go:build !linux

package shm

import "errors"

var (
	ErrCMARefused = errors.New("shm: cross-memory attach refused")
	ErrPeerGone   = errors.New("shm: peer process gone")
)

// ReadRemote is not available off Linux: the caller takes the pipelined path.
func ReadRemote(pid int, dst []byte, addr uint64) error { return ErrCMARefused }

// AllowPeerReads does nothing off Linux.
func AllowPeerReads() {}

// WriteRemote is not available off Linux.
func WriteRemote(pid int, src []byte, addr uint64) error { return ErrCMARefused }
