//go:build mpi || mpich

// Package mpi is gompi's backend over a real MPI library, through cgo. Build
// with -tags mpi (Open MPI, found by pkg-config ompi) or -tags mpich (MPICH)
// and run under the library's mpirun; package backend then aliases these
// types instead of the pure-Go engine's, and the gompi API calls them
// directly.
//
// Every operation is one call into C (shim.c) and one MPI call. Buffers of
// nonblocking operations are pinned (runtime.Pinner) from the start of the
// operation to its completion, and the request is kept reachable meanwhile
// (the in-flight list of the Proc), so the garbage collector neither moves
// nor frees memory the library still writes.
//
// Progress is the library's: it progresses inside MPI calls. Request.Done
// and Test therefore call MPI_Test (a check and one round of the library's
// progress) rather than reading a flag filled by a background thread.
package mpi

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/internal/jobenv"
)

// Send modes, as the engine's.
const (
	ModeStandard = C.GOMPI_MODE_STANDARD
	ModeSync     = C.GOMPI_MODE_SYNC
	ModeReady    = C.GOMPI_MODE_READY
)

// maxCount is the largest message: MPI counts are C ints.
const maxCount = 1<<31 - 1

// SerializeEnv, set to 1, makes the backend serialize its MPI calls under
// one lock even where the library gives MPI_THREAD_MULTIPLE (for testing
// the path taken with libraries that give less).
const SerializeEnv = "GOMPI_MPI_SERIALIZE"

// Proc is this process's rank in the MPI job. There is one per process.
type Proc struct {
	world      *Comm
	provided   int  // the thread level MPI_Init_thread gave
	serialized bool // MPI calls are made under one lock (see shim.c)
	tagUB      int

	bg sync.WaitGroup // goroutines of requests made by Comm.Go
	rq recvQueue      // receives waiting for their messages (match.go)

	mu       sync.Mutex // guards the fields below
	inflight *Request   // requests MPI works on: kept reachable until they complete
	bsends   []*Request // sends with an onDone, completed by Progress
	freed    []*Request // requests the program freed, completed by Progress
	done     bool       // finalized: no more MPI calls from cleanups
}

var initOnce struct {
	sync.Mutex
	p *Proc
}

// Init calls MPI_Init_thread asking for MPI_THREAD_MULTIPLE and sets up the
// world communicator. The job is the library's: rank and size come from it,
// and the ranks on this host from MPI_Comm_split_type.
func Init() (*Proc, jobenv.Job, error) {
	initOnce.Lock()
	defer initOnce.Unlock()
	job := jobenv.Job{ShmFD: -1, SecretFD: -1}
	if initOnce.p != nil {
		return nil, job, fmt.Errorf("gompi: MPI can be initialized once per process")
	}
	force := 0
	if os.Getenv(SerializeEnv) == "1" {
		force = 1
	}
	res := C.gompi_init(C.int(force))
	if res.err != 0 {
		return nil, job, fmt.Errorf("gompi: MPI_Init_thread failed: %s", errString(res.err))
	}
	p := &Proc{provided: int(res.provided), serialized: res.serialized != 0, tagUB: int(res.tag_ub)}
	w, err := newComm(p, C.gompi_comm_world(), "world")
	if err != nil {
		return nil, job, err
	}
	p.world = w
	job.Rank, job.Size = w.rank, w.size
	job.JobID = os.Getenv("OMPI_COMM_WORLD_JOBID")
	var name [256]C.char
	if C.gompi_processor_name(&name[0], C.int(len(name))) > 0 {
		job.Host = C.GoString(&name[0])
	}
	job.HostMap = hostMap(gatherNames(&name, w.size))
	if sh := C.gompi_comm_shared(w.h); sh.err == 0 {
		n := int(C.gompi_comm_size(sh.comm))
		job.LocalRank, job.LocalSize = int(C.gompi_comm_rank(sh.comm)), n
		world := make([]C.int, n)
		if C.gompi_translate_ranks(sh.comm, C.int(n), &world[0]) == 0 {
			for _, r := range world {
				job.LocalRanks = append(job.LocalRanks, int(r))
			}
		}
		C.gompi_comm_free(sh.comm)
	}
	job.Oversubscribed = job.LocalSize > runtime.NumCPU()
	initOnce.p = p
	return p, job, nil
}

// gatherNames gathers every world rank's processor name.
func gatherNames(mine *[256]C.char, n int) []string {
	all := make([]C.char, n*len(mine))
	if C.gompi_allgather_names(&mine[0], &all[0], C.int(len(mine))) != 0 {
		return nil
	}
	names := make([]string, n)
	for r := range names {
		names[r] = C.GoString(&all[r*len(mine)])
	}
	return names
}

// hostMap groups world ranks by host name, hosts in the order of their
// first rank.
func hostMap(names []string) []jobenv.HostRanks {
	var hosts []jobenv.HostRanks
	at := map[string]int{}
	for r, name := range names {
		i, ok := at[name]
		if !ok {
			i = len(hosts)
			at[name] = i
			hosts = append(hosts, jobenv.HostRanks{Name: name})
		}
		hosts[i].Ranks = append(hosts[i].Ranks, r)
	}
	return hosts
}

// Transport says how this rank reaches world rank w: "self", or "mpi" (the
// library's choice: shared memory on one host, its network between hosts).
func (p *Proc) Transport(w int) string {
	if w == p.world.rank {
		return "self"
	}
	return "mpi"
}

// World returns the communicator of all ranks (MPI_COMM_WORLD).
func (p *Proc) World() *Comm { return p.world }

// Rank returns the world rank.
func (p *Proc) Rank() int { return p.world.rank }

// Size returns the world size.
func (p *Proc) Size() int { return p.world.size }

// ThreadLevel returns what MPI_Init_thread provided (0 single .. 3 multiple)
// and whether the backend serializes its calls because of it.
func (p *Proc) ThreadLevel() (provided int, serialized bool) { return p.provided, p.serialized }

// Close waits for the goroutines of nonblocking collectives still running,
// then calls MPI_Finalize.
func (p *Proc) Close() {
	p.bg.Wait()
	p.rq.close()
	p.mu.Lock()
	p.done = true
	p.mu.Unlock()
	C.gompi_finalize()
}

// Abort calls MPI_Abort on the world: the library's launcher stops every
// rank. It does not return.
func (p *Proc) Abort(code int) { C.gompi_abort(C.int(code)) }

// SetAbortExit belongs to the in-process mode, which MPI has not.
func (p *Proc) SetAbortExit(int) {}

// Progress completes what has completed of the buffered sends (whose
// completion frees space in the attached buffer) and gives the library one
// round of progress.
func (p *Proc) Progress() {
	p.mu.Lock()
	pending := append([]*Request(nil), p.bsends...)
	freed := p.freed
	p.freed = nil
	p.mu.Unlock()
	for _, r := range freed {
		if !r.Done() {
			p.mu.Lock()
			p.freed = append(p.freed, r)
			p.mu.Unlock()
		}
	}
	for _, r := range pending {
		r.Done()
	}
	p.match()
	if len(pending) == 0 {
		C.gompi_iprobe(C.int(base.AnySource), C.int(base.AnyTag), p.world.ch)
	}
}

// track puts r on the in-flight list: MPI holds pointers into r's buffers
// until it completes, so r (and what it pins) must stay reachable.
func (p *Proc) track(r *Request) {
	p.mu.Lock()
	r.next = p.inflight
	if p.inflight != nil {
		p.inflight.prev = r
	}
	p.inflight = r
	if r.onDone != nil {
		p.bsends = append(p.bsends, r)
	}
	p.mu.Unlock()
}

// untrack takes r off the in-flight list as it completes.
func (p *Proc) untrack(r *Request) {
	p.mu.Lock()
	if r.prev != nil {
		r.prev.next = r.next
	} else if p.inflight == r {
		p.inflight = r.next
	}
	if r.next != nil {
		r.next.prev = r.prev
	}
	r.prev, r.next = nil, nil
	if r.onDone != nil {
		for i, b := range p.bsends {
			if b == r {
				p.bsends = append(p.bsends[:i], p.bsends[i+1:]...)
				break
			}
		}
	}
	p.mu.Unlock()
}

// RunLocal is the in-process mode, which cannot exist over MPI: MPI has one
// rank per process.
func RunLocal(context.Context, int, func(p *Proc) error) error {
	return base.New("Run", base.ErrNotSupported, "ranks as goroutines of one process need the pure-Go backend; this program was built with -tags mpi",
		"start the ranks with mpirun, or build without -tags mpi")
}

// errString is MPI's text for an error code.
func errString(code C.int) string {
	var buf [512]C.char
	if C.gompi_error_string(code, &buf[0], C.int(len(buf))) == 0 {
		return fmt.Sprintf("MPI error %d", int(code))
	}
	return C.GoString(&buf[0])
}

// classes maps the shim's error classes onto gompi's.
var classes = [...]error{
	C.GOMPI_EC_INTERNAL:      base.ErrInternal,
	C.GOMPI_EC_TRUNCATE:      base.ErrTruncate,
	C.GOMPI_EC_RANK:          base.ErrRank,
	C.GOMPI_EC_TAG:           base.ErrTag,
	C.GOMPI_EC_COMM:          base.ErrComm,
	C.GOMPI_EC_ARG:           base.ErrArg,
	C.GOMPI_EC_REQUEST:       base.ErrRequest,
	C.GOMPI_EC_NOT_SUPPORTED: base.ErrNotSupported,
	C.GOMPI_EC_PEER_LOST:     base.ErrPeerLost,
	C.GOMPI_EC_WIN:           base.ErrWin,
	C.GOMPI_EC_RMA_RANGE:     base.ErrRMARange,
	C.GOMPI_EC_RMA_SYNC:      base.ErrRMASync,
}

// mpiErr turns an MPI error code into gompi's error: the class MPI's error
// class maps to, and MPI's own text as the detail.
func (c *Comm) mpiErr(op string, code C.int, peer, tag int) error {
	class := classes[C.gompi_error_class(code)]
	e := &base.Error{Op: op, Rank: c.rank, Peer: peer, Tag: tag, Err: class, Detail: "MPI: " + errString(code)}
	switch class {
	case base.ErrTruncate:
		e.Hint = base.HintTruncate
	case base.ErrPeerLost:
		e.Hint = base.HintPeerLost
	}
	return e
}

// tooLarge is the error for a buffer MPI cannot count.
func (c *Comm) tooLarge(op string, n, peer, tag int) error {
	return &base.Error{Op: op, Rank: c.rank, Peer: peer, Tag: tag, Err: base.ErrNotSupported,
		Detail: fmt.Sprintf("%d bytes is more than an MPI count (a C int) holds", n),
		Hint:   "send messages of at most 2 GiB - 1 under the MPI backend"}
}

// ptr is the address of buf's first byte, nil for an empty buffer. It is a
// *C.char, not an unsafe.Pointer: cgo checks at run time, at every call, that
// memory behind an unsafe.Pointer holds no Go pointers (about 15 ns here),
// while bytes cannot hold any, which the type says once and for all.
func ptr(buf []byte) *C.char {
	if len(buf) == 0 {
		return nil
	}
	return (*C.char)(unsafe.Pointer(unsafe.SliceData(buf)))
}
