//go:build !mpi && !mpich

// Package backend selects what runs below the gompi API: the pure-Go engine
// by default, or (with build tag mpi) a real MPI library. Both provide the
// same types with the same methods, so the API package compiles against
// either and calls them directly, with no interface on the hot path. The
// methods both must have are written down once, as interfaces checked at
// compile time in every build (contract.go).
package backend

import "github.com/gompi/gompi/gompi/internal/core"

// The engine's types under the names the API uses.
type (
	Proc        = core.Proc
	Comm        = core.Comm
	Request     = core.Request
	CollRequest = core.CollRequest
	Message     = core.Message
)

// Send modes.
const (
	ModeStandard = core.ModeStandard
	ModeSync     = core.ModeSync
	ModeReady    = core.ModeReady
)

// Init, RunLocal and NewDone are the engine's entry points.
var (
	Init     = core.Init
	RunLocal = core.RunLocal
	NewDone  = core.NewDone
)

// Name says which backend this build uses.
const Name = "go"
