package backend

// The backend contract: what the gompi API needs from whatever runs below
// it. Both backends (the pure-Go engine by default, a real MPI library under
// build tag mpi or mpich) provide these methods on their own concrete types;
// this file has no build tag, so the checks at its end are compiled in every
// build and a backend that drifts from the contract fails to build here,
// with the missing or changed method named, rather than somewhere deep in
// package gompi or only in the build that nobody ran.
//
// The API calls the concrete types (the aliases in backend.go and
// backend_mpi.go), never these interfaces: they cost nothing at run time.
// The interfaces speak of *Proc, *Comm and *Request, which are the
// backend's own types in each build.
//
// What only one backend has stays outside the contract and is used only in
// files of that build: the engine's shared-memory segment (Proc.Segment,
// Proc.LocalIndex, for windows' liveness) and MPI's own collectives
// (Comm.Coll, Comm.StartColl, in gompi/native_mpi.go).

import (
	"context"

	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/internal/jobenv"
)

// Engine is a process's part of the job: its place in the world, progress,
// completion of many requests, and ending.
type Engine interface {
	Rank() int
	Size() int
	World() *Comm
	// Transport names how this process reaches world rank w ("self",
	// "shm", "tcp", "mpi", ...).
	Transport(w int) string
	// Progress advances pending operations once, without blocking.
	Progress()
	WaitAny(reqs []*Request) (int, error)
	// Abort ends the whole job with code; SetAbortExit records that this
	// rank stops because it called Abort(code) (in-process ranks).
	Abort(code int)
	SetAbortExit(code int)
	Close()
}

// Communicator is a backend's communicator: point-to-point in every mode,
// probes, the collectives' own message space, and the shared-memory
// collectives' scratch (empty where the backend has none).
type Communicator interface {
	Rank() int
	Size() int
	Name() string
	WorldRank(r int) int
	Proc() *Proc
	// User and SetUser keep the API's communicator that wraps this one.
	User() any
	SetUser(u any)
	Dup() (*Comm, error)
	Split(color, key int) (*Comm, error)
	Free() error

	Send(buf []byte, dest, tag, mode int) error
	Isend(buf []byte, dest, tag, mode int) (*Request, error)
	IsendDone(buf []byte, dest, tag, mode int, onDone func()) (*Request, error)
	Recv(buf []byte, src, tag int) (base.Status, error)
	Irecv(buf []byte, src, tag int) *Request
	SendInit(buf []byte, dest, tag, mode int) *Request
	RecvInit(buf []byte, src, tag int) *Request
	Go(fn func() error) *Request

	Probe(src, tag int) (base.Status, error)
	Iprobe(src, tag int) (base.Status, bool)
	Mprobe(src, tag int) (*Message, base.Status, error)
	Improbe(src, tag int) (*Message, base.Status, bool, error)

	CollTagBase() int
	CollSend(buf []byte, dest, tag int) error
	CollRecv(buf []byte, src, tag int) (base.Status, error)
	CollIsend(buf []byte, dest, tag int) (*CollRequest, error)
	CollIrecv(buf []byte, src, tag int) *CollRequest

	// ShmCapacity is the bytes of scratch a shared-memory collective on
	// this communicator may use, or -1 where it has none (gompi/shmcoll.go).
	ShmCapacity() int
	ShmScratch() []byte
	ShmScratchPrev() []byte
	ShmStep() error
}

// Requester is a backend's request: nonblocking or persistent.
type Requester interface {
	Comm() *Comm
	Proc() *Proc
	Wait() (base.Status, error)
	Test() (base.Status, bool, error)
	Done() bool
	Cancel() error
	Start() error
	Active() bool
	Persistent() bool
	Free()
}

// CollRequester is a request of the collectives' point-to-point.
type CollRequester interface {
	Wait() (int, error)
}

// Matched is a message taken by a matched probe, waiting for its receive.
type Matched interface {
	Irecv(buf []byte) *Request
	Recv(buf []byte) (base.Status, error)
}

// The contract, checked at compile time in every build.
var (
	_ Engine        = (*Proc)(nil)
	_ Communicator  = (*Comm)(nil)
	_ Requester     = (*Request)(nil)
	_ CollRequester = (*CollRequest)(nil)
	_ Matched       = (*Message)(nil)

	_ func() (*Proc, jobenv.Job, error)                       = Init
	_ func(context.Context, int, func(p *Proc) error) error   = RunLocal
	_ func(c *Comm, st base.Status, persistent bool) *Request = NewDone
)
