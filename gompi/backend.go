package gompi

import "github.com/gompi/gompi/gompi/internal/backend"

// Backend names what runs below the API in this build: "go", the pure-Go
// runtime, or "mpi", a real MPI library through cgo (build tag mpi, or
// mpich), whose programs run under the library's mpirun.
func Backend() string { return backend.Name }
