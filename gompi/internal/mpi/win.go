//go:build mpi || mpich

package mpi

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"reflect"
	"runtime"
	"sync"
	"unsafe"

	"github.com/gompi/gompi/gompi/internal/base"
)

// Win is an MPI window (MPI_Win) as the gompi package uses it: elements of
// one type, displacements in elements (in bytes, from an attached address,
// in a dynamic window). The gompi package checks every call's range, epoch
// and operator first, so calls here reach MPI only when they are correct.
//
// MPI may read an origin buffer and write a result buffer until the
// operation completes (a flush, an unlock, a fence, a Complete). A small
// operation goes through C memory of its target's staging area: its origin
// is copied there at the call, its result copied back to the Go buffer at
// completion (the Go buffer stays reachable in the list of copies
// meanwhile; MPI never sees it). That costs a copy of at most stageMax
// bytes, where pinning each Go buffer cost more than the operation itself
// (docs/PERFORMANCE.md). Larger operations, and those that find the area
// full, have their Go buffers pinned until completion instead, which also
// keeps them alive if the program drops them. Memory of WinCreate and of
// Attach is pinned for as long as the window exposes it.
type Win struct {
	h    C.gompi_h
	c    *Comm
	dt   C.gompi_h // the element's datatype
	own  bool      // dt was made for this window (a contiguous type of bytes)
	unit int       // bytes per displacement unit: the element, or 1 (dynamic)

	mu       sync.Mutex
	pins     []*runtime.Pinner // per target: buffers of operations not yet complete
	stages   []*stage          // per target: the staging area of small operations
	exposed  runtime.Pinner    // WinCreate's memory
	attached map[uintptr]*runtime.Pinner
}

// Memory of MPI_Win_allocate(_shared) is C memory: a Go slice over it holds
// no Go pointer and is never moved.

// elemType returns the MPI datatype of an element of kind and size bytes:
// the basic type for numbers and bool, else a contiguous type of bytes
// (structs, arrays), which Put, Get and accumulate with MPI_REPLACE and
// MPI_NO_OP take.
func elemType(kind reflect.Kind, size int) (C.gompi_h, bool, error) {
	if kind == reflect.Bool {
		return C.gompi_type_bool(), false, nil
	}
	if int(kind) < len(kindTypes) && kindTypes[kind] != 0 {
		return kindTypes[kind], false, nil
	}
	t := C.gompi_type_contiguous(C.int(size))
	if t.err != 0 {
		return 0, false, base.New("Win", base.ErrInternal, "MPI_Type_contiguous: "+errString(t.err), "")
	}
	return t._type, true, nil
}

// newWin starts a window of elements of kind, elem bytes each.
func (c *Comm) newWin(kind reflect.Kind, elem int) (*Win, error) {
	dt, own, err := elemType(kind, elem)
	if err != nil {
		return nil, err
	}
	return &Win{c: c, dt: dt, own: own, unit: elem, pins: make([]*runtime.Pinner, c.size), stages: make([]*stage, c.size)}, nil
}

func (w *Win) made(op string, res C.gompi_win_result) error {
	if res.err != 0 {
		if w.own {
			C.gompi_type_free(w.dt)
		}
		return w.c.mpiErr(op, res.err, -1, -1)
	}
	w.h = res.win
	return nil
}

// WinCreate exposes mem (MPI_Win_create), elements of elem bytes of the
// given kind. It is collective; mem stays pinned until Free.
func (c *Comm) WinCreate(mem []byte, kind reflect.Kind, elem int) (*Win, error) {
	w, err := c.newWin(kind, elem)
	if err != nil {
		return nil, err
	}
	if len(mem) > 0 {
		w.exposed.Pin(&mem[0])
	}
	if err := w.made("Win_create", C.gompi_win_create(ptr(mem), C.long(len(mem)), C.int(elem), c.h)); err != nil {
		w.exposed.Unpin()
		return nil, err
	}
	return w, nil
}

// WinAllocate makes a window of size bytes on this rank in memory MPI
// allocates (MPI_Win_allocate, or MPI_Win_allocate_shared with shared),
// and returns that memory, zeroed. It is collective.
func (c *Comm) WinAllocate(size int, kind reflect.Kind, elem int, shared bool) (*Win, []byte, error) {
	op := "Win_allocate"
	if shared {
		op = "Win_allocate_shared"
	}
	w, err := c.newWin(kind, elem)
	if err != nil {
		return nil, nil, err
	}
	res := C.gompi_win_allocate(C.long(size), C.int(elem), boolInt(shared), c.h)
	if err := w.made(op, res); err != nil {
		return nil, nil, err
	}
	var mem []byte
	if size > 0 {
		// MPI does not zero it; gompi promises zeroed elements. No
		// other rank accesses it before the caller's next collective.
		mem = unsafe.Slice((*byte)(res.base), size)
		clear(mem)
	}
	return w, mem, nil
}

// WinCreateDynamic makes a window with no memory (MPI_Win_create_dynamic):
// displacements are then addresses, in bytes. It is collective.
func (c *Comm) WinCreateDynamic(kind reflect.Kind, elem int) (*Win, error) {
	w, err := c.newWin(kind, elem)
	if err != nil {
		return nil, err
	}
	w.unit = 1
	w.attached = map[uintptr]*runtime.Pinner{}
	return w, w.made("Win_create_dynamic", C.gompi_win_create_dynamic(c.h))
}

// SharedQuery returns rank r's memory of a window made with shared
// (MPI_Win_shared_query).
func (w *Win) SharedQuery(r int) ([]byte, error) {
	res := C.gompi_win_shared_query(w.h, C.int(r))
	if res.err != 0 {
		return nil, w.c.mpiErr("Win_shared_query", res.err, r, -1)
	}
	if res.size == 0 || res.base == nil {
		return []byte{}, nil
	}
	return unsafe.Slice((*byte)(res.base), int(res.size)), nil
}

// Attach exposes mem in a dynamic window (MPI_Win_attach) and returns its
// address, the displacement of its first byte. mem stays pinned until
// Detach.
func (w *Win) Attach(mem []byte) (uintptr, error) {
	p := new(runtime.Pinner)
	p.Pin(&mem[0])
	if err := C.gompi_win_attach(w.h, ptr(mem), C.long(len(mem))); err != 0 {
		p.Unpin()
		return 0, w.c.mpiErr("Win_attach", err, -1, -1)
	}
	addr := uintptr(unsafe.Pointer(&mem[0]))
	w.mu.Lock()
	w.attached[addr] = p
	w.mu.Unlock()
	return addr, nil
}

// Detach takes mem out of a dynamic window (MPI_Win_detach).
func (w *Win) Detach(mem []byte) error {
	if err := C.gompi_win_detach(w.h, ptr(mem)); err != 0 {
		return w.c.mpiErr("Win_detach", err, -1, -1)
	}
	addr := uintptr(unsafe.Pointer(&mem[0]))
	w.mu.Lock()
	p := w.attached[addr]
	delete(w.attached, addr)
	w.mu.Unlock()
	if p != nil {
		p.Unpin()
	}
	return nil
}

// Free frees the window (MPI_Win_free, collective) and what it pinned.
func (w *Win) Free() error {
	if err := C.gompi_win_sync(C.GOMPI_WIN_FREE, 0, 0, w.h, nil); err != 0 {
		return w.c.mpiErr("Win_free", err, -1, -1)
	}
	if w.own {
		C.gompi_type_free(w.dt)
	}
	w.exposed.Unpin()
	w.mu.Lock()
	for _, p := range w.attached {
		p.Unpin()
	}
	w.attached = nil
	w.mu.Unlock()
	w.unpin(-1)
	w.mu.Lock()
	for t, st := range w.stages {
		if st != nil {
			C.free(st.mem)
			w.stages[t] = nil
		}
	}
	w.mu.Unlock()
	return nil
}

// RMAOp is an accumulate operator: the index of a predefined reduction
// operator (see OpIndex), or OpReplace, OpNoOp.
type RMAOp int

// Operators of accumulate beyond the reductions.
const (
	OpReplace RMAOp = 10
	OpNoOp    RMAOp = 11
)

// rmaOps are MPI's operators by RMAOp, read once.
var rmaOps [OpNoOp + 1]C.gompi_h

func init() {
	for i := range rmaOps {
		rmaOps[i] = C.gompi_op_rma(C.int(i))
	}
}

// OpIndex returns the operator named as package coll names predefined
// operators ("sum", "replace", "no_op"...), and whether MPI defines it on
// elements of kind (MPI_REPLACE and MPI_NO_OP on any).
func OpIndex(name string, kind reflect.Kind) (RMAOp, bool) {
	switch name {
	case "replace":
		return OpReplace, true
	case "no_op":
		return OpNoOp, true
	}
	i := predefinedOp(name)
	if i < 0 {
		return 0, false
	}
	if kind == reflect.Bool {
		return RMAOp(i), name == "land" || name == "lor" || name == "lxor"
	}
	if (name == "land" || name == "lor" || name == "lxor") && kind != reflect.Bool && !isIntKind(kind) {
		return 0, false
	}
	return RMAOp(i), allows(name, kind)
}

func isIntKind(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Uintptr
}

// pin keeps buf alive and in place until the operations to target
// complete. Called with nothing held.
func (w *Win) pin(target int, bufs ...[]byte) {
	w.mu.Lock()
	p := w.pins[target]
	if p == nil {
		p = pinners.Get().(*runtime.Pinner)
		w.pins[target] = p
	}
	for _, b := range bufs {
		if len(b) > 0 {
			p.Pin(&b[0])
		}
	}
	w.mu.Unlock()
}

// unpin releases the buffers of the operations to target (all: -1), once
// they are complete, and copies the results of staged ones to their Go
// buffers.
func (w *Win) unpin(target int) {
	w.mu.Lock()
	for t, p := range w.pins {
		if p != nil && (target < 0 || t == target) {
			p.Unpin()
			pinners.Put(p)
			w.pins[t] = nil
		}
	}
	for t, st := range w.stages {
		if st != nil && st.used > 0 && (target < 0 || t == target) {
			st.complete()
		}
	}
	w.mu.Unlock()
}

// stageSize is the C memory of a target's staging area; stageMax bounds
// the bytes of one staged operation (origin, compare and result).
const (
	stageSize = 4096
	stageMax  = 256
)

// stage is C memory where small operations to one target keep their
// origins and receive their results until they complete.
type stage struct {
	mem  unsafe.Pointer
	used int
	back []copyBack
}

// copyBack is a result to copy from the stage to Go memory at completion.
type copyBack struct {
	dst []byte
	off int
}

func (st *stage) bytes(off, n int) []byte {
	return unsafe.Slice((*byte)(unsafe.Add(st.mem, off)), n)
}

// put copies b into the stage and returns its C address (nil for none).
func (st *stage) put(b []byte) *C.char {
	if len(b) == 0 {
		return nil
	}
	off := st.used
	st.used += (len(b) + 7) &^ 7
	copy(st.bytes(off, len(b)), b)
	return (*C.char)(unsafe.Add(st.mem, off))
}

// result reserves room for a result to be copied to dst at completion.
func (st *stage) result(dst []byte) *C.char {
	if len(dst) == 0 {
		return nil
	}
	off := st.used
	st.used += (len(dst) + 7) &^ 7
	st.back = append(st.back, copyBack{dst, off})
	return (*C.char)(unsafe.Add(st.mem, off))
}

// complete copies the results out and empties the stage.
func (st *stage) complete() {
	for i, b := range st.back {
		copy(b.dst, st.bytes(b.off, len(b.dst)))
		st.back[i] = copyBack{}
	}
	st.back = st.back[:0]
	st.used = 0
}

// mark says how full target's stage is, for rollback.
func (w *Win) mark(target int) [2]int {
	if st := w.stages[target]; st != nil {
		return [2]int{st.used, len(st.back)}
	}
	return [2]int{}
}

// rollback empties target's stage back to mark.
func (w *Win) rollback(target int, mark [2]int) {
	if st := w.stages[target]; st != nil {
		st.used, st.back = mark[0], st.back[:mark[1]]
	}
}

// staged returns C addresses for an operation's buffers in target's stage,
// or false if they do not fit (then the caller pins them). Called with w.mu
// held.
func (w *Win) staged(target int, origin, compare, result []byte) (o, c, r *C.char, ok bool) {
	n := (len(origin)+7)&^7 + (len(compare)+7)&^7 + (len(result)+7)&^7
	if n > stageMax {
		return nil, nil, nil, false
	}
	st := w.stages[target]
	if st == nil {
		st = &stage{mem: C.malloc(stageSize)}
		w.stages[target] = st
	}
	if st.used+n > stageSize {
		return nil, nil, nil, false
	}
	return st.put(origin), st.put(compare), st.result(result), true
}

var opNamesRMA = [...]string{C.GOMPI_RMA_PUT: "Put", C.GOMPI_RMA_GET: "Get", C.GOMPI_RMA_ACC: "Accumulate",
	C.GOMPI_RMA_GET_ACC: "Get_accumulate", C.GOMPI_RMA_FOP: "Fetch_and_op", C.GOMPI_RMA_CAS: "Compare_and_swap"}

// Operations of Op.
const (
	RMAPut    = C.GOMPI_RMA_PUT
	RMAGet    = C.GOMPI_RMA_GET
	RMAAcc    = C.GOMPI_RMA_ACC
	RMAGetAcc = C.GOMPI_RMA_GET_ACC
	RMAFetch  = C.GOMPI_RMA_FOP
	RMACAS    = C.GOMPI_RMA_CAS
)

// Op issues one operation (MPI_Put, MPI_Get, MPI_Accumulate,
// MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap) of count
// elements to target at displacement disp (in units of the window). It
// stages origin, compare and result, or pins them, until the operations to
// target complete (see Win).
// With onStack, origin and compare may live on the caller's stack
// (FetchAndOp's value): unless staged, they are copied to the heap first.
func (w *Win) Op(which int, origin, compare, result []byte, count, target int, disp int64, op RMAOp, onStack bool) error {
	if count > maxCount {
		return w.c.tooLarge(opNamesRMA[which], count, target, -1)
	}
	w.mu.Lock()
	mark := w.mark(target)
	o, c, r, ok := w.staged(target, origin, compare, result)
	w.mu.Unlock()
	if !ok {
		if onStack {
			origin, compare = append([]byte(nil), origin...), append([]byte(nil), compare...)
		}
		w.pin(target, origin, compare, result)
		o, c, r = ptr(origin), ptr(compare), ptr(result)
	}
	err := C.gompi_win_op(C.int(which), o, c, r, C.int(count), w.dt,
		C.int(target), C.long(disp), rmaOps[op], w.h, 0, nil)
	if err != 0 {
		if ok {
			w.mu.Lock()
			w.rollback(target, mark) // nothing to copy back for a refused operation
			w.mu.Unlock()
		}
		return w.c.mpiErr(opNamesRMA[which], err, target, -1)
	}
	return nil
}

// ROp is Op's request form (MPI_Rput, MPI_Rget, MPI_Raccumulate,
// MPI_Rget_accumulate): the request pins the buffers until it completes.
func (w *Win) ROp(which int, origin, result []byte, count, target int, disp int64, op RMAOp) (*Request, error) {
	name := "R" + opNamesRMA[which]
	if count > maxCount {
		return nil, w.c.tooLarge(name, count, target, -1)
	}
	r := &Request{p: w.c.p, comm: w.c, kind: kindColl, op: name, peer: int32(target), tag: -1}
	r.pinBuf(origin)
	r.pinBuf(result)
	var h C.gompi_h
	err := C.gompi_win_op(C.int(which), ptr(origin), nil, ptr(result), C.int(count), w.dt,
		C.int(target), C.long(disp), rmaOps[op], w.h, 1, &h)
	if err != 0 {
		r.unpin()
		return nil, w.c.mpiErr(name, err, target, -1)
	}
	r.h = h
	w.c.p.track(r)
	return r, nil
}

// ReadLocked copies the first len(buf) bytes of target's part of w into
// buf under a shared lock (MPI_Win_lock, MPI_Get, MPI_Win_unlock in one
// call), from displacement 0. The operation completes within the call, so
// buf need not be pinned.
func (w *Win) ReadLocked(target int, buf []byte) error {
	if err := C.gompi_win_read_locked(w.h, C.int(target), ptr(buf), C.int(len(buf))); err != 0 {
		return w.c.mpiErr("Get", err, target, -1)
	}
	return nil
}

// Synchronizations of Sync.
const (
	WinFence         = C.GOMPI_WIN_FENCE
	WinLock          = C.GOMPI_WIN_LOCK
	WinUnlock        = C.GOMPI_WIN_UNLOCK
	WinLockAll       = C.GOMPI_WIN_LOCK_ALL
	WinUnlockAll     = C.GOMPI_WIN_UNLOCK_ALL
	WinFlush         = C.GOMPI_WIN_FLUSH
	WinFlushAll      = C.GOMPI_WIN_FLUSH_ALL
	WinFlushLocal    = C.GOMPI_WIN_FLUSH_LOCAL
	WinFlushLocalAll = C.GOMPI_WIN_FLUSH_LOCAL_ALL
	WinSync          = C.GOMPI_WIN_SYNC
	WinComplete      = C.GOMPI_WIN_COMPLETE
	WinWait          = C.GOMPI_WIN_WAIT
	WinTest          = C.GOMPI_WIN_TEST
)

var syncNames = [...]string{WinFence: "Win_fence", WinLock: "Win_lock", WinUnlock: "Win_unlock",
	WinLockAll: "Win_lock_all", WinUnlockAll: "Win_unlock_all", WinFlush: "Win_flush", WinFlushAll: "Win_flush_all",
	WinFlushLocal: "Win_flush_local", WinFlushLocalAll: "Win_flush_local_all", WinSync: "Win_sync",
	WinComplete: "Win_complete", WinWait: "Win_wait", WinTest: "Win_test"}

// Lock types of Sync(WinLock...): MPI's.
var (
	LockShared    = int(C.MPI_LOCK_SHARED)
	LockExclusive = int(C.MPI_LOCK_EXCLUSIVE)
	// ModeNoSucceed is the assertion of a last fence (MPI_MODE_NOSUCCEED).
	ModeNoSucceed = int(C.MPI_MODE_NOSUCCEED)
)

// Sync runs one synchronization. arg is the lock type (WinLock) or the
// assertion (WinFence); target is the target of WinLock, WinUnlock,
// WinFlush and WinFlushLocal (-1 for every target). It returns the flag
// of WinTest. Operations it completes release their buffers.
func (w *Win) Sync(which, arg, target int) (bool, error) {
	var flag C.int
	if err := C.gompi_win_sync(C.int(which), C.int(arg), C.int(target), w.h, &flag); err != 0 {
		return false, w.c.mpiErr(syncNames[which], err, target, -1)
	}
	switch which {
	case WinLock, WinLockAll, WinSync:
	case WinUnlock, WinFlush, WinFlushLocal:
		w.unpin(target)
	case WinFence, WinUnlockAll, WinFlushAll, WinFlushLocalAll, WinComplete:
		w.unpin(-1)
	}
	return flag != 0, nil
}

// PostStart opens an exposure epoch (MPI_Win_post) or, with start, an
// access epoch (MPI_Win_start) for the window ranks listed.
func (w *Win) PostStart(start bool, ranks []int) error {
	cr := C.malloc(C.size_t(len(ranks)+1) * C.size_t(unsafe.Sizeof(C.int(0))))
	defer C.free(cr)
	rs := unsafe.Slice((*C.int)(cr), len(ranks)+1)
	for i, r := range ranks {
		rs[i] = C.int(r)
	}
	if err := C.gompi_win_post_start(boolInt(start), C.int(len(ranks)), &rs[0], w.h); err != 0 {
		name := "Win_post"
		if start {
			name = "Win_start"
		}
		return w.c.mpiErr(name, err, -1, -1)
	}
	return nil
}

// NewFailed returns a request that is complete with err: a request-based
// operation that the gompi package refused after handing out nothing (an
// access outside a dynamic window's attached memory, which the request's
// Wait reports).
func NewFailed(c *Comm, err error) *Request {
	r := &Request{p: c.p, comm: c}
	r.fail(err)
	return r
}
