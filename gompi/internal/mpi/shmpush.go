//go:build mpi || mpich

package mpi

import "unsafe"

// ShmPushLines returns nil (see ShmCapacity).
func (c *Comm) ShmPushLines() []byte { return nil }

// ShmWakeWord does nothing (see ShmCapacity).
func (c *Comm) ShmWakeWord(w unsafe.Pointer) {}
