package gompi

import "github.com/gompi/gompi/gompi/internal/backend"

// Backend names what runs below the API in this build: "go", the pure-Go
// runtime, or a real MPI library through cgo, whose programs run under the
// library's mpirun: "mpi" (Open MPI, build tag mpi) or "mpich" (tag mpich).
func Backend() string { return backend.Name }
