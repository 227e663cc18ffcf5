//go:build mpi && !mpich

package mpi

// Open MPI, found by pkg-config (Debian: libopenmpi-dev).

// #cgo pkg-config: ompi
import "C"

// Library names the MPI library this build links.
const Library = "Open MPI"
