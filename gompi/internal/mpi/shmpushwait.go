//go:build mpi || mpich

package mpi

import "unsafe"

// ShmAwaitPushed fails: there is no shared-memory slot (see ShmCapacity).
func (c *Comm) ShmAwaitPushed(w unsafe.Pointer, v uint32) error { return errNoShm() }

// ShmAwaitGathered fails: there is no shared-memory slot (see ShmCapacity).
func (c *Comm) ShmAwaitGathered(w unsafe.Pointer, v uint32) error { return errNoShm() }

// ShmPollNextRelease does nothing: there is no shared-memory slot.
func (c *Comm) ShmPollNextRelease(rootCPU int) {}
