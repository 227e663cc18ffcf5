//go:build mpi || mpich

package mpi

/*
#include "shim.h"
*/
import "C"

import "github.com/gompi/gompi/rdtsc"

// Clock is MPI_Wtime as an rdtsc.Clock: "mpi". It is registered when the
// package initializes, before Init, so that GOMPI_TIMER=mpi (read by
// gompi.Init before the backend starts) finds it; it is read only after.
type Clock struct{}

func init() {
	if err := rdtsc.Register(Clock{}); err != nil {
		panic(err)
	}
}

// Name is "mpi".
func (Clock) Name() string { return "mpi" }

// Now is MPI_Wtime.
func (Clock) Now() float64 { return float64(C.gompi_wtime()) }

// Ticks is MPI_Wtime in nanoseconds.
func (Clock) Ticks() int64 { return int64(float64(C.gompi_wtime()) * 1e9) }

// Rate is 1e9: Ticks are nanoseconds.
func (Clock) Rate() float64 { return 1e9 }

// Resolution is MPI_Wtick.
func (Clock) Resolution() float64 { return float64(C.gompi_wtick()) }
