//go:build mpi || mpich

package backend

import "github.com/gompi/gompi/gompi/internal/mpi"

// Under build tag mpi (or mpich): a real MPI library, through cgo.
type (
	Proc        = mpi.Proc
	Comm        = mpi.Comm
	Request     = mpi.Request
	CollRequest = mpi.CollRequest
	Message     = mpi.Message
)

// Send modes.
const (
	ModeStandard = mpi.ModeStandard
	ModeSync     = mpi.ModeSync
	ModeReady    = mpi.ModeReady
)

// Init, RunLocal and NewDone are the backend's entry points.
var (
	Init     = mpi.Init
	RunLocal = mpi.RunLocal
	NewDone  = mpi.NewDone
)

// Name says which backend this build uses: "mpi" (Open MPI) or "mpich".
const Name = mpi.Name
