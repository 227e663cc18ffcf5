//go:build mpi && !mpich

package mpi

// Open MPI, found by pkg-config (Debian: libopenmpi-dev).

// #cgo pkg-config: ompi
import "C"

// Library names the MPI library this build links; Name is the backend's
// name, gompi.Backend().
const (
	Library = "Open MPI"
	Name    = "mpi"
)
