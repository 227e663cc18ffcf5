//go:build mpi || mpich

package mpi

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/gompi/internal/base"
)

// Comm is an MPI communicator as gompi uses it: h carries the user's
// point-to-point messages and MPI's own collectives; ch, a duplicate of it,
// carries the point-to-point messages of gompi's collective algorithms
// (package coll), so that their tags never meet the user's. Arguments are
// validated by the caller (the gompi package).
type Comm struct {
	p          *Proc
	h, ch      C.gompi_h
	rank, size int
	name       string
	members    []int32 // communicator rank → world rank
	collSeq    atomic.Uint32
	tagMask    uint32 // collective calls numbered modulo tagMask+1 (see CollTagBase)
	user       any    // the API's communicator wrapping this one
}

// SetUser records the API object that wraps c.
func (c *Comm) SetUser(u any) { c.user = u }

// User returns what SetUser recorded.
func (c *Comm) User() any { return c.user }

// newComm wraps h and makes its collective twin.
func newComm(p *Proc, h C.gompi_h, name string) (*Comm, error) {
	c := &Comm{p: p, h: h, name: name, rank: int(C.gompi_comm_rank(h)), size: int(C.gompi_comm_size(h))}
	cname := C.CString(name + ".coll")
	d := C.gompi_comm_dup(h, cname)
	C.free(unsafe.Pointer(cname))
	if d.err != 0 {
		return nil, c.mpiErr("Comm_dup", d.err, -1, -1)
	}
	c.ch = d.comm
	world := make([]C.int, c.size)
	if err := C.gompi_translate_ranks(h, C.int(c.size), &world[0]); err != 0 {
		return nil, c.mpiErr("Comm_group", err, -1, -1)
	}
	c.members = make([]int32, c.size)
	for i, w := range world {
		c.members[i] = int32(w)
	}
	// Tags of collective calls: the call number above CollTagShift bits,
	// within MPI_TAG_UB.
	callBits := bits.Len(uint(p.tagUB)) - CollTagShift
	c.tagMask = uint32(1)<<max(min(callBits, 16), 1) - 1
	return c, nil
}

// Rank returns the calling rank's rank in c.
func (c *Comm) Rank() int { return c.rank }

// Size returns the number of ranks in c.
func (c *Comm) Size() int { return c.size }

// Name returns a name for messages ("world", "world.split(3)").
func (c *Comm) Name() string { return c.name }

// Proc returns the rank c belongs to.
func (c *Comm) Proc() *Proc { return c.p }

// WorldRank returns the world rank of communicator rank r.
func (c *Comm) WorldRank(r int) int { return int(c.members[r]) }

// Send sends buf to rank dest (MPI_Send, MPI_Ssend or MPI_Rsend by mode).
func (c *Comm) Send(buf []byte, dest, tag, mode int) error {
	return c.send(buf, dest, tag, mode, c.h)
}

func (c *Comm) send(buf []byte, dest, tag, mode int, h C.gompi_h) error {
	if len(buf) > maxCount {
		return c.tooLarge("Send", len(buf), dest, tag)
	}
	if err := C.gompi_send(ptr(buf), C.int(len(buf)), C.int(dest), C.int(tag), C.int(mode), h); err != 0 {
		return c.mpiErr("Send", err, dest, tag)
	}
	return nil
}

// Recv receives into buf (MPI_Recv).
func (c *Comm) Recv(buf []byte, src, tag int) (base.Status, error) {
	return c.recv(buf, src, tag, c.h)
}

func (c *Comm) recv(buf []byte, src, tag int, h C.gompi_h) (base.Status, error) {
	if len(buf) > maxCount {
		return base.Status{}, c.tooLarge("Recv", len(buf), src, tag)
	}
	if !c.p.queueEmpty() {
		// Earlier receives wait for their messages: this one waits behind
		// them, as MPI matches receives in posting order.
		r := &Request{p: c.p, comm: c, kind: kindRecv, peer: int32(src), tag: int32(tag), n: len(buf)}
		c.irecv(r, buf, src, tag, h)
		return r.Wait()
	}
	st := C.gompi_recv_probed(ptr(buf), C.int(len(buf)), C.int(src), C.int(tag), h)
	// A truncated message: MPI counts the whole message, gompi the bytes
	// stored.
	s := base.Status{Source: int(st.source), Tag: int(st.tag), Count: min(int(st.count), len(buf))}
	if st.err != 0 {
		if C.gompi_error_class(st.err) == C.GOMPI_EC_TRUNCATE && int(st.count) > len(buf) {
			s.Count = len(buf)
			return s, c.truncateErr(int(st.count), len(buf), s.Source, s.Tag)
		}
		err := c.mpiErr("Recv", st.err, src, tag)
		truncated(&s, err, len(buf), src, tag)
		return s, err
	}
	return s, nil
}

// truncated completes the status of a receive that failed: a truncated
// message fills the whole buffer; where the library left the status unset
// (MPICH), the source and tag are those asked for (unknown for wildcards).
func truncated(s *base.Status, err error, n, src, tag int) {
	if !errors.Is(err, base.ErrTruncate) {
		return
	}
	s.Count = n
	if s.Source == base.AnySource {
		s.Source = src
	}
	if s.Tag == base.AnyTag {
		s.Tag = tag
	}
	var e *base.Error
	if errors.As(err, &e) {
		e.Peer, e.Tag = s.Source, s.Tag
	}
}

// Isend starts a send (MPI_Isend, MPI_Issend or MPI_Irsend by mode).
func (c *Comm) Isend(buf []byte, dest, tag, mode int) (*Request, error) {
	r := &Request{p: c.p, comm: c, kind: kindSend, peer: int32(dest), tag: int32(tag)}
	if err := r.startSend(buf, mode, c.h); err != nil {
		return nil, err
	}
	return r, nil
}

// IsendDone is Isend with a function that runs when the send completes
// (before IsendDone returns, if it completes at once). Buffered sends use
// it to free their buffer space; Proc.Progress completes such sends.
func (c *Comm) IsendDone(buf []byte, dest, tag, mode int, onDone func()) (*Request, error) {
	r := &Request{p: c.p, comm: c, kind: kindSend, peer: int32(dest), tag: int32(tag), onDone: onDone}
	if err := r.startSend(buf, mode, c.h); err != nil {
		return nil, err
	}
	r.Done()
	return r, nil
}

// Irecv posts a receive (MPI_Irecv). A receive MPI refuses is returned
// already complete, with the error.
func (c *Comm) Irecv(buf []byte, src, tag int) *Request {
	r := &Request{p: c.p, comm: c, kind: kindRecv, peer: int32(src), tag: int32(tag), n: len(buf)}
	c.irecv(r, buf, src, tag, c.h)
	return r
}

func (c *Comm) irecv(r *Request, buf []byte, src, tag int, h C.gompi_h) *Request {
	if len(buf) > maxCount {
		r.fail(c.tooLarge("Irecv", len(buf), src, tag))
		return r
	}
	r.buf, r.on = buf, h
	c.postRecv(r)
	return r
}

// postRecv pins r's buffer and queues r for its message (see match.go).
func (c *Comm) postRecv(r *Request) {
	r.pinBuf(r.buf)
	c.p.track(r)
	c.p.enqueue(r)
}

// SendInit makes a persistent send (MPI_Send_init and its modes).
func (c *Comm) SendInit(buf []byte, dest, tag, mode int) *Request {
	r := &Request{p: c.p, comm: c, kind: kindSend, peer: int32(dest), tag: int32(tag), persistent: true}
	if len(buf) > maxCount {
		r.fail(c.tooLarge("SendInit", len(buf), dest, tag))
		return r
	}
	k := r.keepPersistent(buf)
	res := C.gompi_send_init(ptr(buf), C.int(len(buf)), C.int(dest), C.int(tag), C.int(mode), c.h)
	return r.madePersistent(k, res, "SendInit")
}

// RecvInit makes a persistent receive (MPI_Recv_init).
func (c *Comm) RecvInit(buf []byte, src, tag int) *Request {
	r := &Request{p: c.p, comm: c, kind: kindRecv, peer: int32(src), tag: int32(tag), n: len(buf), persistent: true}
	if len(buf) > maxCount {
		r.fail(c.tooLarge("RecvInit", len(buf), src, tag))
		return r
	}
	// No MPI persistent request: each Start queues the receive as Irecv
	// does, so that it too learns its message's size first.
	r.buf, r.on = buf, c.h
	r.st = base.EmptyStatus
	r.done.Store(1) // inactive until Start
	return r
}

// Probe blocks until a message matching (src, tag) can be received
// (MPI_Probe).
func (c *Comm) Probe(src, tag int) (base.Status, error) {
	c.p.match() // queued receives take their messages first
	st := C.gompi_probe(C.int(src), C.int(tag), c.h)
	if st.err != 0 {
		return base.Status{}, c.mpiErr("Probe", st.err, src, tag)
	}
	return base.Status{Source: int(st.source), Tag: int(st.tag), Count: int(st.count)}, nil
}

// Iprobe reports whether a message matching (src, tag) can be received now
// (MPI_Iprobe).
func (c *Comm) Iprobe(src, tag int) (base.Status, bool) {
	c.p.match()
	st := C.gompi_iprobe(C.int(src), C.int(tag), c.h)
	if st.err != 0 || st.flag == 0 {
		return base.Status{}, false
	}
	return base.Status{Source: int(st.source), Tag: int(st.tag), Count: int(st.count)}, true
}

// Dup makes a communicator with the same ranks (MPI_Comm_dup).
func (c *Comm) Dup() (*Comm, error) {
	name := c.name + ".dup"
	cname := C.CString(name)
	d := C.gompi_comm_dup(c.h, cname)
	C.free(unsafe.Pointer(cname))
	if d.err != 0 {
		return nil, c.mpiErr("Comm_dup", d.err, -1, -1)
	}
	return newComm(c.p, d.comm, name)
}

// Split partitions c by color, ordered by key then rank (MPI_Comm_split). A
// negative color (Undefined) joins no communicator: nil.
func (c *Comm) Split(color, key int) (*Comm, error) {
	name := fmt.Sprintf("%s.split(%d)", c.name, color)
	cname := C.CString(name)
	s := C.gompi_comm_split(c.h, C.int(color), C.int(key), cname)
	C.free(unsafe.Pointer(cname))
	if s.err != 0 {
		return nil, c.mpiErr("Comm_split", s.err, -1, -1)
	}
	if color < 0 || s.comm == C.gompi_comm_null() {
		return nil, nil
	}
	return newComm(c.p, s.comm, name)
}

// CreateGroup makes a communicator of the ranks of c listed, in that order,
// called by them alone (MPI_Comm_create_group). The caller must be listed.
func (c *Comm) CreateGroup(ranks []int, tag int) (*Comm, error) {
	name := fmt.Sprintf("%s.group(%d)", c.name, tag)
	cname := C.CString(name)
	cr := make([]C.int, len(ranks))
	for i, r := range ranks {
		cr[i] = C.int(r)
	}
	s := C.gompi_comm_create_group(c.h, C.int(len(cr)), &cr[0], C.int(tag), cname)
	C.free(unsafe.Pointer(cname))
	if s.err != 0 {
		return nil, c.mpiErr("Comm_create_group", s.err, -1, tag)
	}
	if s.comm == C.gompi_comm_null() {
		return nil, nil
	}
	return newComm(c.p, s.comm, name)
}

// Free releases c and its collective twin (MPI_Comm_free).
func (c *Comm) Free() error {
	c.p.withdrawComm(c)
	if err := C.gompi_comm_free(c.ch); err != 0 {
		return c.mpiErr("Comm_free", err, -1, -1)
	}
	if err := C.gompi_comm_free(c.h); err != 0 {
		return c.mpiErr("Comm_free", err, -1, -1)
	}
	return nil
}

// CollTagShift is the number of low tag bits left to one collective call of
// gompi's algorithms.
const CollTagShift = 15

// CollTagBase returns the tag base of the next collective call on c, as the
// engine's: calls are numbered in call order, which every rank shares, and
// the number goes above CollTagShift bits, modulo what MPI_TAG_UB leaves
// (65536 calls with Open MPI's 2³¹−1).
func (c *Comm) CollTagBase() int {
	seq := c.collSeq.Add(1)
	return int(seq&c.tagMask) << CollTagShift
}

// CollSend, CollRecv, CollIsend and CollIrecv are point-to-point calls on the
// collective twin, for gompi's collective algorithms.
func (c *Comm) CollSend(buf []byte, dest, tag int) error {
	return c.send(buf, dest, tag, ModeStandard, c.ch)
}

// CollRecv receives on the collective twin.
func (c *Comm) CollRecv(buf []byte, src, tag int) (base.Status, error) {
	return c.recv(buf, src, tag, c.ch)
}

// CollIsend starts a send on the collective twin. Its request comes from a
// pool: its single Wait (as a CollRequest) gives it back.
func (c *Comm) CollIsend(buf []byte, dest, tag int) (*CollRequest, error) {
	r := newCollReq(c, kindSend, dest, tag, 0)
	if err := r.startSend(buf, ModeStandard, c.ch); err != nil {
		*r = Request{}
		collReqs.Put((*CollRequest)(r))
		return nil, err
	}
	return (*CollRequest)(r), nil
}

// CollIrecv posts a receive on the collective twin; like CollIsend, its
// request is pooled.
func (c *Comm) CollIrecv(buf []byte, src, tag int) *CollRequest {
	return (*CollRequest)(c.irecv(newCollReq(c, kindRecv, src, tag, len(buf)), buf, src, tag, c.ch))
}

// The shared-memory collectives belong to the pure-Go engine's segment:
// capacity -1 keeps them from ever being chosen here.

// ShmCapacity returns -1: no shared-memory collectives over MPI.
func (c *Comm) ShmCapacity() int { return -1 }

// ShmScratch returns nil (see ShmCapacity).
func (c *Comm) ShmScratch() []byte { return nil }

// ShmScratchPrev returns nil (see ShmCapacity).
func (c *Comm) ShmScratchPrev() []byte { return nil }

// ShmPairLine returns nil (see ShmCapacity).
func (c *Comm) ShmPairLine(rank int, prev bool) []byte { return nil }

// ShmPairLineSize returns 0 (see ShmCapacity).
func (c *Comm) ShmPairLineSize() int { return 0 }

// ShmStep fails: there is no segment under MPI.
func (c *Comm) ShmStep() error { return errNoShm() }

// ShmBarrier fails as ShmStep.
func (c *Comm) ShmBarrier() error { return errNoShm() }

// ShmLeadNext does nothing: no step is ever taken under MPI.
func (c *Comm) ShmLeadNext(rank int) {}

// ShmLeadLast does nothing, as ShmLeadNext.
func (c *Comm) ShmLeadLast(rank int) {}

// ShmStepPost fails as ShmStep.
func (c *Comm) ShmStepPost() error { return errNoShm() }

// ShmBegin does nothing: no step is ever open under MPI.
func (c *Comm) ShmBegin() error { return nil }

// ShmPost fails as ShmStep.
func (c *Comm) ShmPost() error { return errNoShm() }

// ShmAwaitPost fails as ShmStep.
func (c *Comm) ShmAwaitPost() error { return errNoShm() }

// ShmArrive fails as ShmStep.
func (c *Comm) ShmArrive() error { return errNoShm() }

// ShmSeq returns 0 (see ShmCapacity).
func (c *Comm) ShmSeq() uint64 { return 0 }

// ShmSetWord does nothing (see ShmCapacity).
func (c *Comm) ShmSetWord(w unsafe.Pointer, v uint32) {}

// ShmAwaitWord fails as ShmStep.
func (c *Comm) ShmAwaitWord(w unsafe.Pointer, v uint32) error { return errNoShm() }

// ShmAwaitCount fails as ShmStep.
func (c *Comm) ShmAwaitCount(w unsafe.Pointer, v uint32) error { return errNoShm() }

func errNoShm() error {
	return base.New("collective", base.ErrNotSupported, "no shared-memory collectives under the MPI backend", "")
}

// ShmPairOpen reports false: no step is ever open under MPI.
func (c *Comm) ShmPairOpen() bool { return false }

// ShmBarrierAhead fails as ShmStep.
func (c *Comm) ShmBarrierAhead() error { return errNoShm() }
