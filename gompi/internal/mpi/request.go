//go:build mpi || mpich

package mpi

/*
#include "shim.h"
*/
import "C"

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/gompi/internal/base"
)

// Kinds of request.
const (
	kindDone = iota // complete from the start (ProcNull, or refused by MPI)
	kindSend
	kindRecv
	kindColl // MPI's own nonblocking collective
	kindGo   // completed by a goroutine (Comm.Go)
)

// Request is one nonblocking operation: an MPI request, or a goroutine's
// work (kindGo).
//
// h is used by one thread at a time: whoever holds busy (Wait, Test, Done,
// WaitAny, Progress) calls MPI on it, so that two threads never test or
// wait on one MPI request at once, which MPI forbids. The status, the error
// and the completion hooks are written by the holder before done is set;
// done is read without it.
type Request struct {
	h          C.gompi_h
	p          *Proc
	comm       *Comm
	kind       uint8
	persistent bool // made by SendInit/RecvInit: Start may run it again
	active     bool // persistent: started and not yet completed by a Wait

	busy atomic.Uint32
	done atomic.Uint32

	peer, tag int32 // for errors: destination or source, and tag
	n         int   // receives: the buffer's length
	st        base.Status
	err       error

	pin    *runtime.Pinner // a non-persistent request's buffers, until it completes
	fin    func()          // native collectives: free what the call made
	onDone func()          // runs as the send completes (buffered sends)
	ch     chan struct{}   // kindGo: closed when the goroutine is done
	op     string          // kindColl: the operation, for errors

	prev, next *Request // in-flight list

	// Receives (see match.go): the caller's buffer and the communicator
	// handle to probe; while queued, no MPI request exists yet (h unset).
	buf      []byte
	on       C.gompi_h
	queued   atomic.Bool // waiting in the Proc's queue for its message
	qnext    *Request    // next in the queue
	msgCount int         // the matched message's size in bytes
	bounce   *C.char     // C memory the message went to when longer than buf
}

// CollRequest is a Request as the collective algorithms see it: Wait returns
// the byte count.
type CollRequest Request

// Wait waits for the request and returns the bytes it received. It is
// called once per request, which then goes back to its pool (as the
// engine's).
func (r *CollRequest) Wait() (int, error) {
	st, err := (*Request)(r).Wait()
	*(*Request)(r) = Request{}
	collReqs.Put(r)
	return st.Count, err
}

// collReqs recycles the requests of gompi's collective algorithms.
var collReqs = sync.Pool{New: func() any { return new(CollRequest) }}

// newCollReq returns a request for a collective algorithm's Isend/Irecv.
func newCollReq(c *Comm, kind uint8, peer, tag int, n int) *Request {
	r := (*Request)(collReqs.Get().(*CollRequest))
	r.p, r.comm, r.kind, r.peer, r.tag, r.n = c.p, c, kind, int32(peer), int32(tag), n
	return r
}

// NewDone returns a request that is already complete with status st: what a
// nonblocking operation with ProcNull returns. A persistent one completes at
// every Start.
func NewDone(c *Comm, st base.Status, persistent bool) *Request {
	r := &Request{p: c.p, comm: c, kind: kindDone, st: st, persistent: persistent}
	r.done.Store(1)
	return r
}

// fail completes r at once with err.
func (r *Request) fail(err error) {
	r.kind = kindDone
	r.err = err
	r.st = base.EmptyStatus
	r.done.Store(1)
}

// pinners are reused: a Pinner's first Pin sets a finalizer, which costs
// far more than the pin itself.
var pinners = sync.Pool{New: func() any { return new(runtime.Pinner) }}

// pinBuf pins buf's memory until the request completes.
func (r *Request) pinBuf(buf []byte) {
	if len(buf) == 0 {
		return
	}
	if r.pin == nil {
		r.pin = pinners.Get().(*runtime.Pinner)
	}
	r.pin.Pin(&buf[0])
}

// unpin releases what pinBuf pinned.
func (r *Request) unpin() {
	if r.pin != nil {
		r.pin.Unpin()
		pinners.Put(r.pin)
		r.pin = nil
	}
}

// startSend starts a send of buf on communicator h.
func (r *Request) startSend(buf []byte, mode int, h C.gompi_h) error {
	c := r.comm
	if len(buf) > maxCount {
		return c.tooLarge("Isend", len(buf), int(r.peer), int(r.tag))
	}
	r.pinBuf(buf)
	res := C.gompi_isend(ptr(buf), C.int(len(buf)), C.int(r.peer), C.int(r.tag), C.int(mode), h)
	if res.err != 0 {
		r.unpin()
		return c.mpiErr("Isend", res.err, int(r.peer), int(r.tag))
	}
	r.h = res.req
	c.p.track(r)
	return nil
}

// keep is what a persistent request holds for its whole life: its pinned
// buffer and its MPI handle, released by a cleanup when the request is
// garbage collected (gompi has no Request.Free).
type keep struct {
	pin runtime.Pinner
	h   C.gompi_h
	p   *Proc
}

func (r *Request) keepPersistent(buf []byte) *keep {
	k := &keep{p: r.p}
	if len(buf) > 0 {
		k.pin.Pin(&buf[0])
	}
	return k
}

func (r *Request) madePersistent(k *keep, res C.gompi_req, op string) *Request {
	if res.err != 0 {
		k.pin.Unpin()
		r.fail(r.comm.mpiErr(op, res.err, int(r.peer), int(r.tag)))
		return r
	}
	r.h, k.h = res.req, res.req
	r.st = base.EmptyStatus
	r.done.Store(1) // inactive until Start
	runtime.AddCleanup(r, func(k *keep) {
		k.p.mu.Lock()
		if !k.p.done {
			C.gompi_request_free(&k.h)
		}
		k.p.mu.Unlock()
		k.pin.Unpin()
	}, k)
	return r
}

// acquire takes r's MPI handle, waiting for a thread that only tests it.
func (r *Request) acquire() {
	for !r.busy.CompareAndSwap(0, 1) {
		runtime.Gosched()
	}
}

// complete records the outcome of r's MPI request; the caller holds busy.
func (r *Request) complete(st C.gompi_status) {
	switch r.kind {
	case kindRecv:
		r.st = base.Status{Source: int(st.source), Tag: int(st.tag), Count: min(int(st.count), r.n)}
		if st.cancelled != 0 {
			r.st = base.Status{Source: base.AnySource, Tag: base.AnyTag, Cancelled: true}
		}
	default:
		r.st = base.EmptyStatus
	}
	r.err = nil
	if st.err != 0 {
		peer := int(r.peer)
		if r.kind == kindRecv && st.source >= 0 {
			peer = int(st.source)
		}
		op := "Send"
		switch r.kind {
		case kindRecv:
			op = "Recv"
		case kindColl:
			op, peer = r.op, -1
		}
		r.err = r.comm.mpiErr(op, st.err, peer, int(r.tag))
		if r.kind == kindRecv {
			truncated(&r.st, r.err, r.n, int(r.peer), int(r.tag))
		}
	}
	if r.kind == kindRecv {
		r.unbounce()
	}
	if r.fin != nil {
		r.fin()
		r.fin = nil
	}
	if !r.persistent || r.kind == kindRecv {
		r.unpin() // a persistent receive pins its buffer at each Start
	}
	r.p.untrack(r)
	if r.onDone != nil {
		r.onDone()
	}
	r.done.Store(1)
}

// Done reports whether r has completed. Under MPI that takes a look at the
// request (MPI_Test, which also progresses the library once), unless
// another thread is waiting on it.
func (r *Request) Done() bool {
	if r.done.Load() != 0 {
		return true
	}
	if r.queued.Load() {
		if r.p.match(); r.queued.Load() {
			return false
		}
	}
	if r.done.Load() != 0 {
		return true
	}
	if r.kind == kindGo || !r.busy.CompareAndSwap(0, 1) {
		return false
	}
	if r.done.Load() == 0 {
		if st := C.gompi_test(&r.h); st.flag != 0 || st.err != 0 {
			r.complete(st)
		}
	}
	r.busy.Store(0)
	return r.done.Load() != 0
}

// Persistent reports whether the request was made by SendInit or RecvInit.
func (r *Request) Persistent() bool { return r.persistent }

// Active reports whether a persistent request has been started and not yet
// completed by Wait or Test.
func (r *Request) Active() bool { return r.active }

// Proc returns the rank r belongs to.
func (r *Request) Proc() *Proc { return r.p }

// Wait blocks until r completes (MPI_Wait) and returns its status. A
// persistent request becomes inactive again.
func (r *Request) Wait() (base.Status, error) {
	if r.done.Load() == 0 {
		if r.kind == kindGo {
			<-r.ch
		} else if r.waitMatched(); r.done.Load() == 0 {
			r.acquire()
			if r.done.Load() == 0 {
				r.complete(C.gompi_wait(&r.h))
			}
			r.busy.Store(0)
		}
	}
	r.active = false
	return r.st, r.err
}

// Test reports whether r has completed (MPI_Test) and if so returns its
// status as Wait does.
func (r *Request) Test() (base.Status, bool, error) {
	if !r.Done() {
		return base.Status{}, false, nil
	}
	r.active = false
	return r.st, true, r.err
}

// Cancel takes back a receive that has not matched (MPI_Cancel); its status
// then says Cancelled. Sends cannot be cancelled.
func (r *Request) Cancel() error {
	if r.kind != kindRecv {
		return base.New("Cancel", base.ErrNotSupported, "only receives can be cancelled",
			"complete the send instead; cancelling sends is deprecated in MPI")
	}
	if r.done.Load() != 0 {
		return nil
	}
	if r.p.withdraw(r) {
		r.unpin()
		r.p.untrack(r)
		r.st = base.Status{Source: base.AnySource, Tag: base.AnyTag, Cancelled: true}
		r.done.Store(1)
		return nil
	}
	r.acquire()
	var err C.int
	if r.done.Load() == 0 {
		err = C.gompi_cancel(&r.h)
	}
	r.busy.Store(0)
	if err != 0 {
		return r.comm.mpiErr("Cancel", err, int(r.peer), int(r.tag))
	}
	return nil
}

// Start runs a persistent request once more (MPI_Start).
func (r *Request) Start() error {
	if !r.persistent {
		return base.New("Start", base.ErrRequest, "not a persistent request", "make it with SendInit or RecvInit")
	}
	if r.active || r.done.Load() == 0 {
		return base.New("Start", base.ErrRequest, "the request is still active", "Wait for it before starting it again")
	}
	r.active = true
	if r.kind == kindDone {
		return nil // ProcNull, or refused at creation: nothing to do
	}
	r.err = nil
	r.st = base.Status{}
	r.done.Store(0)
	if r.kind == kindRecv {
		r.comm.postRecv(r)
		return nil
	}
	r.p.track(r)
	if err := C.gompi_start(&r.h); err != 0 {
		r.p.untrack(r)
		r.err = r.comm.mpiErr("Start", err, int(r.peer), int(r.tag))
		r.done.Store(1)
		return r.err
	}
	return nil
}

// Go runs fn on a goroutine of its own and returns a request that completes,
// with fn's error, when fn returns: nonblocking collectives that run one of
// gompi's algorithms use it.
func (c *Comm) Go(fn func() error) *Request {
	r := &Request{p: c.p, comm: c, kind: kindGo, ch: make(chan struct{}), st: base.EmptyStatus}
	c.p.bg.Add(1)
	go func() {
		defer c.p.bg.Done()
		r.err = fn()
		r.done.Store(1)
		close(r.ch)
	}()
	return r
}

// WaitAny blocks until one of reqs completes and returns its index; nil
// entries and inactive persistent requests are skipped; -1 if none is left.
// It tests each request in turn (MPI_Test), yielding between rounds, since
// the requests may mix MPI requests and goroutines.
func (p *Proc) WaitAny(reqs []*Request) (int, error) {
	var start time.Time
	for round := 0; ; round++ {
		live := false
		for i, r := range reqs {
			if r == nil || (r.persistent && !r.active) {
				continue
			}
			live = true
			if r.Done() {
				return i, nil
			}
		}
		if !live {
			return -1, nil
		}
		switch {
		case round < 64:
		case round == 64:
			start = time.Now()
		case time.Since(start) < 10*time.Millisecond:
			runtime.Gosched()
		default:
			time.Sleep(50 * time.Microsecond)
		}
	}
}

// Free lets r complete on its own (MPI_Request_free): Progress, which
// waits and tests call, completes it, releasing its buffer's pin; nothing
// of its outcome is kept. Its MPI request is not freed at once, since the
// buffer must stay pinned until MPI is done with it.
func (r *Request) Free() {
	if r.done.Load() != 0 || r.kind == kindGo {
		return
	}
	r.p.mu.Lock()
	r.p.freed = append(r.p.freed, r)
	r.p.mu.Unlock()
}

// waitMatched waits until a queued receive has its message (or failed).
func (r *Request) waitMatched() {
	var start time.Time
	for round := 0; r.queued.Load(); round++ {
		r.p.match()
		switch {
		case !r.queued.Load():
		case round < 64:
		case round == 64:
			start = time.Now()
		case time.Since(start) < 10*time.Millisecond:
			runtime.Gosched()
		default:
			time.Sleep(20 * time.Microsecond)
		}
	}
}

// Comm returns the communicator r belongs to.
func (r *Request) Comm() *Comm { return r.comm }
