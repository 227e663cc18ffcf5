//go:build mpi || mpich

package mpi

import "unsafe"

// ShmAwaitWordOrRelease fails as ShmStep.
func (c *Comm) ShmAwaitWordOrRelease(w unsafe.Pointer, v uint32) (bool, error) {
	return false, errNoShm()
}

// ShmAwaitCountFrom fails as ShmStep.
func (c *Comm) ShmAwaitCountFrom(w unsafe.Pointer, v uint32, peer int) error { return errNoShm() }
