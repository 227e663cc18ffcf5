//go:build mpi || mpich

package mpi

import "unsafe"

// ShmAwaitWordOrRelease fails as ShmStep.
func (c *Comm) ShmAwaitWordOrRelease(w unsafe.Pointer, v uint32) (bool, error) {
	return false, errNoShm()
}

// ShmAwaitCountFrom fails as ShmStep.
func (c *Comm) ShmAwaitCountFrom(w unsafe.Pointer, v uint32, peer int) error { return errNoShm() }

// ShmAddWord does nothing (no shared memory over MPI).
func (c *Comm) ShmAddWord(w unsafe.Pointer, d uint32) {}

// ShmAwaitChange fails as ShmStep.
func (c *Comm) ShmAwaitChange(w unsafe.Pointer, old uint32, peers []int, release bool) (bool, error) {
	return false, errNoShm()
}
