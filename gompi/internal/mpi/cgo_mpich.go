//go:build mpich

package mpi

// MPICH, found by pkg-config (Debian: libmpich-dev). Build with -tags mpich
// (it implies mpi).

// #cgo pkg-config: mpich
import "C"

// Library names the MPI library this build links; Name is the backend's
// name, gompi.Backend().
const (
	Library = "MPICH"
	Name    = "mpich"
)
