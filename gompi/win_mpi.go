//go:build mpi || mpich

package gompi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/gompi/internal/backend"
	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/gompi/internal/mpi"
	"github.com/gompi/gompi/gompi/internal/rma"
)

// Under the MPI backend a window is an MPI window (MPI_Win_create,
// MPI_Win_allocate...) and every operation and synchronization one MPI
// call: the library carries them out, with its own progress, locks and
// atomics. gompi keeps its epoch bookkeeping (win_sync.go) and checks each
// call's target, range, epoch and operator before MPI sees it, so that a
// refused call writes nothing and never reaches MPI (where it would be
// erroneous, and Open MPI does not always notice). See docs/RMA.md, "The MPI
// backend".

const nativeRMA = true

// natFallback reports whether the library refused to make an MPI window
// (MPI_ERR_WIN): then the window takes gompi's message path over MPI
// point-to-point instead. Open MPI 4.1.4 does so when no osc component
// takes the window: with only the TCP transport (--mca btl self,tcp, as
// between hosts without an RDMA network), and for WinCreate and
// WinCreateDynamic on one rank, osc/rdma has no transport that can do its
// atomics, osc/pt2pt refuses MPI_THREAD_MULTIPLE, and osc/sm takes only
// allocated memory. Every rank
// of the window meets the same components, so all of them fall back
// together (a library that failed on some ranks only would leave the
// others waiting inside MPI_Win_create).
func natFallback(err error) bool {
	return err != nil && errors.Is(err, base.ErrWin)
}

// nativeWin is a window's MPI side.
type nativeWin struct {
	win *mpi.Win
	// A dynamic window: this rank's attached regions, and a window of
	// their tables, one per rank, that origins read to translate a
	// displacement into an address and check its range (MPI displacements
	// in a dynamic window are addresses; gompi's are not).
	mu      sync.Mutex
	regions []natRegion
	table   *mpi.Win
	tableM  []byte
	// deferred: per target, an access outside the attached memory of a
	// dynamic window, reported by the call that completes it.
	deferred []error
	anyDef   atomic.Bool // some deferred error is set: natDeferred looks
}

type natRegion struct{ start, n, addr uint64 }

// tableCap bounds the regions attached at once to a dynamic window under
// the MPI backend; the table is read whole by every operation.
const tableCap = 64

const tableWords = 1 + 3*tableCap

// oneHost reports whether every rank of c runs on this host.
func oneHost(c *Comm) bool {
	host := c.HostOf(c.Rank())
	for r := range c.Size() {
		if c.HostOf(r) != host {
			return false
		}
	}
	return true
}

// natAllocate makes a window of WinAllocate or WinAllocateShared in
// memory MPI allocates. On one host both are MPI_Win_allocate_shared: Open
// MPI then takes its osc/sm component (loads and stores), where
// MPI_Win_allocate would take osc/rdma, which crashes here in the
// shared-memory transport's single copy (Open MPI 4.1.4, docs/RMA.md).
func natAllocate(name string, c *Comm, n, size int, typ reflect.Type, flavor winFlavor, shared bool) (*window, error) {
	one := oneHost(c)
	if shared && !one {
		return nil, c.errf(name, base.ErrNotSupported, -1, -1, "the ranks of the communicator run on several hosts",
			"ranks of a shared window must share a host: split the communicator by host first")
	}
	mw, mem, err := c.c.WinAllocate(n*size, typ.Kind(), size, one)
	if !shared && natFallback(err) {
		w, err := newWindow(name, c, size, typ, flavor, make([]byte, n*size), nil, false)
		if err != nil {
			return w, err
		}
		return w, w.byMessage()
	}
	if err != nil {
		return nil, err
	}
	w, err := newWindow(name, c, size, typ, flavor, mem, nil, shared)
	if err != nil {
		mw.Free()
		return w, err
	}
	w.nat = &nativeWin{win: mw, deferred: make([]error, w.n)}
	return w, nil
}

// natCreate makes the MPI window of WinCreate over buf.
func (w *window) natCreate(buf []byte) error {
	mw, err := w.c.WinCreate(buf, w.kind, w.elem)
	if err != nil {
		return err
	}
	w.nat = &nativeWin{win: mw, deferred: make([]error, w.n)}
	return nil
}

// natDynamic makes the MPI window of WinCreateDynamic and the window of
// region tables beside it.
func (w *window) natDynamic() error {
	mw, err := w.c.WinCreateDynamic(w.kind, w.elem)
	if err != nil {
		return err
	}
	tw, mem, err := w.c.WinAllocate(8*tableWords, reflect.Int64, 8, oneHost(w.user))
	if err != nil {
		mw.Free()
		return err
	}
	w.nat = &nativeWin{win: mw, table: tw, tableM: mem, deferred: make([]error, w.n)}
	return nil
}

// natAttach attaches mem (given displacement d by w.regions) to the MPI
// window and publishes it in this rank's table. Called with w.regMu held.
func (w *window) natAttach(mem []byte, d uint64) error {
	x := w.nat
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.regions) == tableCap {
		return w.errf("Attach", base.ErrNotSupported, -1, fmt.Sprintf("%d regions are attached already", tableCap),
			"under the MPI backend a dynamic window holds at most that many at once: detach one first")
	}
	addr, err := x.win.Attach(mem)
	if err != nil {
		return err
	}
	x.regions = append(x.regions, natRegion{start: d, n: uint64(len(mem) / w.elem), addr: uint64(addr)})
	return w.natPublish()
}

// natDetach detaches mem from the MPI window and the table. Called with
// w.regMu held.
func (w *window) natDetach(mem []byte) error {
	x := w.nat
	x.mu.Lock()
	defer x.mu.Unlock()
	addr := uint64(uintptr(unsafe.Pointer(&mem[0])))
	x.regions = slices.DeleteFunc(x.regions, func(g natRegion) bool { return g.addr == addr })
	if err := w.natPublish(); err != nil {
		return err
	}
	return x.win.Detach(mem)
}

// natPublish writes this rank's regions into its table, under an exclusive
// lock of its own part, so that an origin reads either the old or the new
// table. Called with x.mu held.
func (w *window) natPublish() error {
	x := w.nat
	if _, err := x.table.Sync(mpi.WinLock, mpi.LockExclusive, w.me); err != nil {
		return err
	}
	t := x.tableM
	binary.LittleEndian.PutUint64(t, uint64(len(x.regions)))
	for i, g := range x.regions {
		e := t[8+24*i:]
		binary.LittleEndian.PutUint64(e, g.start)
		binary.LittleEndian.PutUint64(e[8:], g.n)
		binary.LittleEndian.PutUint64(e[16:], g.addr)
	}
	_, err := x.table.Sync(mpi.WinUnlock, 0, w.me)
	return err
}

// natAddress reads target's table and returns the address of elements
// disp..disp+count-1 there, or false if they are not all attached.
func (w *window) natAddress(target, disp, count int) (uint64, bool, error) {
	x := w.nat
	var tb [8 * tableWords]byte
	t := tb[:]
	if err := x.table.ReadLocked(target, t); err != nil {
		return 0, false, err
	}
	n := min(int(binary.LittleEndian.Uint64(t)), tableCap)
	d, c := uint64(disp), uint64(count)
	for i := range n {
		e := t[8+24*i:]
		start, size, addr := binary.LittleEndian.Uint64(e), binary.LittleEndian.Uint64(e[8:]), binary.LittleEndian.Uint64(e[16:])
		if d >= start && d-start <= size && c <= size-(d-start) {
			return addr + (d-start)*uint64(w.elem), true, nil
		}
	}
	return 0, false, nil
}

// natSharedQuery returns rank r's memory of a shared window.
func (w *window) natSharedQuery(r int) ([]byte, error) { return w.nat.win.SharedQuery(r) }

// natFree frees the MPI window: a last fence first completes operations of
// a fence epoch still in flight (every rank calls Free, and none has
// another epoch open: Free refuses that first).
func (w *window) natFree() error {
	x := w.nat
	_, ferr := x.win.Sync(mpi.WinFence, mpi.ModeNoSucceed, -1)
	err := x.win.Free()
	if x.table != nil {
		if terr := x.table.Free(); err == nil {
			err = terr
		}
	}
	w.freed.Store(true)
	if ferr != nil {
		return ferr
	}
	if err == nil {
		err = w.natDeferred("Free", nil)
	}
	return err
}

// natOpCode maps a checked operator onto MPI's for the window's elements.
func (w *window) natOpCode(name string, target int, code rma.OpCode) (mpi.RMAOp, error) {
	if code.IsLoc() {
		return 0, w.errf(name, base.ErrRMAOp, target, fmt.Sprintf("%v is not an MPI pair type", w.typ),
			"MinLoc and MaxLoc need MPI_DOUBLE_INT and its kin ({value; C int}); gompi.ValueIndex has a Go int index, "+
				"so under the MPI backend they are not available on windows")
	}
	op, ok := mpi.OpIndex(code.String(), w.kind)
	if !ok {
		return 0, w.errf(name, base.ErrRMAOp, target, fmt.Sprintf("MPI does not define %s on %v", code, w.typ),
			"under the MPI backend use an operator MPI defines on the type (logical ones on integers and bool)")
	}
	return op, nil
}

// natOp issues one checked operation. Origins of FetchAndOp and
// CompareAndSwap may live on the caller's stack: mpi.Win.Op copies them
// unless it stages them in C memory. In a dynamic window the
// displacement becomes the target's address; outside its attached memory
// nothing is issued, and the call that completes the operation reports it.
func (w *window) natOp(name string, which int, origin, compare, result []byte, target, disp, count int, code rma.OpCode, own bool) (*backend.Request, error) {
	var op mpi.RMAOp
	if which == mpi.RMAAcc || which == mpi.RMAGetAcc || which == mpi.RMAFetch {
		var err error
		if op, err = w.natOpCode(name, target, code); err != nil {
			return nil, err
		}
	}
	x := w.nat
	d := int64(disp)
	if w.flavor == flavorDynamic {
		addr, ok, err := w.natAddress(target, disp, count)
		if err != nil {
			return nil, err
		}
		if !ok {
			rerr := w.errf(name, base.ErrRMARange, target, "an operation fell outside the target's attached memory; nothing was written",
				"attach the memory first (dynamic window)")
			if own {
				return mpi.NewFailed(w.c, rerr), nil
			}
			x.mu.Lock()
			if x.deferred[target] == nil {
				x.deferred[target] = rerr
				x.anyDef.Store(true)
			}
			x.mu.Unlock()
			return nil, nil
		}
		d = int64(addr)
	}
	w.dirty[target] = true
	if own {
		return x.win.ROp(which, origin, result, count, target, d, op)
	}
	return nil, x.win.Op(which, origin, compare, result, count, target, d, op, which == mpi.RMAFetch || which == mpi.RMACAS)
}

// natDeferred returns (and forgets) the first deferred error of targets
// (every target: nil).
func (w *window) natDeferred(name string, targets []int) error {
	x := w.nat
	if !x.anyDef.Load() {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	var first error
	take := func(t int) {
		if x.deferred[t] != nil && first == nil {
			first = x.deferred[t]
		}
		x.deferred[t] = nil
	}
	if targets == nil {
		for t := range x.deferred {
			take(t)
		}
	}
	for _, t := range targets {
		take(t)
	}
	x.anyDef.Store(slices.ContainsFunc(x.deferred, func(e error) bool { return e != nil }))
	return first
}

// natSync runs one MPI synchronization.
func (w *window) natSync(which, arg, target int) (bool, error) {
	return w.nat.win.Sync(which, arg, target)
}

func (w *window) natFence() error { _, err := w.natSync(mpi.WinFence, 0, -1); return err }

func (w *window) natLock(typ LockType, target int) error {
	lt := mpi.LockShared
	if typ == LockExclusive {
		lt = mpi.LockExclusive
	}
	_, err := w.natSync(mpi.WinLock, lt, target)
	return err
}

func (w *window) natUnlock(target int) error {
	_, err := w.natSync(mpi.WinUnlock, 0, target)
	return err
}

func (w *window) natLockAll() error { _, err := w.natSync(mpi.WinLockAll, 0, -1); return err }

func (w *window) natUnlockAll() error { _, err := w.natSync(mpi.WinUnlockAll, 0, -1); return err }

// natFlush is Flush (remote) or FlushLocal of target, or of every target
// (-1).
func (w *window) natFlush(target int, remote bool) error {
	which := mpi.WinFlush
	switch {
	case target < 0 && remote:
		which = mpi.WinFlushAll
	case target < 0:
		which = mpi.WinFlushLocalAll
	case !remote:
		which = mpi.WinFlushLocal
	}
	_, err := w.natSync(which, 0, target)
	return err
}

// natWinSync is MPI_Win_sync, which MPI allows only within a
// passive-target epoch; outside one, a memory barrier is what it does.
func (w *window) natWinSync() error {
	w.mu.Lock()
	passive := w.lockAll || slices.ContainsFunc(w.lockType, func(l uint8) bool { return l != 0 })
	w.mu.Unlock()
	if !passive {
		return nil
	}
	_, err := w.natSync(mpi.WinSync, 0, -1)
	return err
}

func (w *window) natPost(group []int) error  { return w.nat.win.PostStart(false, group) }
func (w *window) natStart(group []int) error { return w.nat.win.PostStart(true, group) }
func (w *window) natComplete() error         { _, err := w.natSync(mpi.WinComplete, 0, -1); return err }

// natWait is MPI_Win_wait, or MPI_Win_test when not block.
func (w *window) natWait(block bool) (bool, error) {
	if block {
		_, err := w.natSync(mpi.WinWait, 0, -1)
		return err == nil, err
	}
	return w.natSync(mpi.WinTest, 0, -1)
}

// The operations of natOp.
const (
	natPut    = mpi.RMAPut
	natGet    = mpi.RMAGet
	natAcc    = mpi.RMAAcc
	natGetAcc = mpi.RMAGetAcc
	natFetch  = mpi.RMAFetch
	natCAS    = mpi.RMACAS
)
