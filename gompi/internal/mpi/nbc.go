//go:build mpi || mpich

package mpi

import "time"

// The engine's nonblocking collectives on shared-memory steps
// (gompi/nbcshm.go) never run under MPI: ShmCapacity is -1, so the API
// never starts one. These stubs keep the API compiling.

// NBCStepper is the engine's (see core.NBCStepper).
type NBCStepper interface {
	Step() (done bool, err error)
	Sleep(d time.Duration)
}

// StartNBC is never called under MPI (see ShmCapacity).
func (c *Comm) StartNBC(s NBCStepper) *Request { panic("gompi/mpi: no shared-memory steps under MPI") }

// DrainNBC does nothing: no such call is ever pending under MPI.
func (c *Comm) DrainNBC() error { return nil }

// ShmReady reports true (see ShmCapacity).
func (c *Comm) ShmReady() bool { return true }

// ShmArriveNB returns 0 (see ShmCapacity).
func (c *Comm) ShmArriveNB() uint64 { return 0 }

// ShmReleasedAt reports true (see ShmCapacity).
func (c *Comm) ShmReleasedAt(k uint64) bool { return true }

// ShmSleepAt does nothing (see ShmCapacity).
func (c *Comm) ShmSleepAt(k uint64, d time.Duration) {}

// ShmScratchAt returns nil (see ShmCapacity).
func (c *Comm) ShmScratchAt(k uint64) []byte { return nil }

// NBC reports false (see ShmCapacity).
func (r *Request) NBC() bool { return false }
