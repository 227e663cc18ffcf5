package gompi

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi/internal/backend"
	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/gompi/internal/rma"
)

// One-sided communication (RMA). A window exposes memory of every rank of a
// communicator; any rank (the origin) may then Put into, Get from and
// Accumulate into the window of any other (the target) without the target
// taking part in each transfer. Calls are grouped in epochs opened and
// closed by a synchronization:
//
//   - Fence: collective; operations issued between two fences are complete
//     everywhere when the second returns.
//   - Post/Start/Complete/Wait (PSCW): a target exposes its window to a
//     group of origins (Post ... Wait), an origin accesses a group of
//     targets (Start ... Complete).
//   - Lock/Unlock, LockAll/UnlockAll (passive target): the origin alone opens
//     and closes the epoch; Flush completes its operations without closing
//     it. The target need not call anything: each window has a service
//     goroutine on every rank that carries out what origins ask, so passive
//     target operations complete while the target computes.
//
// As in MPI, an operation may complete at any time until the call that
// closes its epoch (or a Flush); until then, an origin buffer must not be
// changed and a result buffer must not be read. Accumulate operations are
// atomic per element with respect to other accumulate operations (and
// FetchAndOp, CompareAndSwap, GetAccumulate) on the same element, and those
// of one origin to one target take effect in the order issued.
//
// Displacements and counts are in elements of the window's type T. All
// ranks of a window must use the same T.
//
// Errors: a displacement or count outside the target's window is
// ErrRMARange, a call outside its epoch (or a Lock of a target already
// locked, an Unlock of one not locked) is ErrRMASync, a freed or nil window
// is ErrWin, an operation the element type does not support
// (CompareAndSwap of a float, a user-defined operator) is ErrRMAOp; an
// operator of another element type does not compile.
// Such calls write nothing anywhere. Under a dynamic window (WinCreateDynamic)
// only the target knows what is attached: an access outside it is reported
// by the call that completes it (Flush, Unlock, Fence, Complete), and still
// writes nothing.

// Win is a window of elements of type T (see the one-sided section above).
// Its methods may be called from several goroutines, except that the
// synchronization calls of one window (Fence, Post...Wait, Lock...Unlock)
// must be made in a consistent order by the program, as in MPI.
type Win[T any] struct {
	w *window
}

// LockType says whether a passive-target lock is shared (several origins
// at once) or exclusive.
type LockType uint8

// Lock types.
const (
	LockShared    LockType = LockType(rma.LockShared)
	LockExclusive LockType = LockType(rma.LockExclusive)
)

// winFlavor says how a window's memory came to be.
type winFlavor uint8

const (
	flavorCreate winFlavor = iota
	flavorAllocate
	flavorShared
	flavorDynamic
)

func (f winFlavor) String() string {
	return [...]string{"create", "allocate", "shared", "dynamic"}[f]
}

// Tags of a window's private communicator: active-message headers on 0,
// the payload of operation t on 2t+1 and its reply on 2t+2, posts (PSCW)
// on MaxTag.
const (
	tagHeader = 0
	tagPost   = MaxTag
	maxOpTag  = (MaxTag - 3) / 2
	// inlineMax bounds a header and the payload sent in one message with
	// it: one eager message of the shared-memory transport.
	inlineMax = 4032
)

// window is the part of Win that does not depend on T.
type window struct {
	id   int
	user *Comm         // the communicator it was made on: errors, tracing
	c    *backend.Comm // private duplicate (ownComm): every message of the window; user's on the direct path
	cm   *Comm         // c as a Comm, for the (untraced) collectives
	// ownComm: c is the window's own duplicate, freed with it. A window on
	// the direct path sends nothing and has none.
	ownComm bool
	me, n   int
	elem    int
	kind    reflect.Kind
	typ     reflect.Type
	flavor  winFlavor
	sizes   []int    // elements exposed by each rank (not dynamic)
	loc     *rma.Loc // the element is a ValueIndex: MinLoc and MaxLoc apply

	// Target side.
	mem     []byte       // the local memory (not dynamic)
	regMu   sync.RWMutex // guards regions against the service
	regions rma.Regions  // dynamic windows
	shm     *sharedMem   // WinAllocate(Shared) on one host: every rank's part, mapped here
	direct  bool         // operations access the targets' memory themselves (win_direct.go)
	peers   [][]byte     // with direct: every rank's elements
	hdrs    []*winHeader // with direct: every rank's lock words
	// With direct, PSCW by counters in shared memory: posts[t][o] counts
	// the Posts of o to t, completes[t][o] its Completes; this rank has
	// consumed postsSeen[t] of t's Posts and completesSeen[o] of o's
	// Completes.
	posts, completes         [][]uint32
	postsSeen, completesSeen []uint32
	// With direct, what the epochs give on each target, readable without
	// mu (win_direct.go): the operations' fast path.
	gate    []atomic.Uint32
	serving bool          // the service goroutine runs
	locks   rma.LockTable // service only
	errs    []uint8       // service only: per origin, an error to report at its next flush
	cmu     sync.Mutex
	ccond   sync.Cond
	done    int // Complete messages received (PSCW)

	// Origin side, guarded by mu.
	mu       sync.Mutex
	fence    bool       // a fence epoch is open
	dirty    []bool     // operations to a target that need its acknowledgement
	pending  [][]waitOp // operations to a target not locally complete
	lockType []uint8    // passive-target lock held on each target
	lockAll  bool
	access   []int  // PSCW access group, nil when none
	inAccess []bool // by target
	exposure []int  // PSCW exposure group, nil when none
	tags     atomic.Uint32
	lastOp   atomic.Pointer[opChecked]

	// nat is the window's MPI side under the MPI backend (win_mpi.go),
	// which carries out every operation and synchronization; nil in the
	// pure-Go runtime.
	nat *nativeWin

	freed   atomic.Bool
	stopped chan struct{}
	srvErr  atomic.Pointer[error] // why the service stopped, if not by Free
}

// waitOp is an operation whose local completion is a request: a send of its
// header or payload, or a receive of its reply (want: the bytes expected,
// fewer meaning that the target refused the range).
type waitOp struct {
	req  *backend.Request
	want int
}

var winIDs atomic.Int64

// identitySize is the size of what a rank tells the others about its part
// of a window in shared memory (sharedMem.identity).
const identitySize = 48

// newWindow learns every rank's size and makes the window's private
// communicator and service. It is collective over c. With sm (memory to
// share on one host), the same exchange carries what the ranks need to map
// each other's part, which they then do. If every rank mapped every part,
// the window takes the direct path: it needs no private communicator (its
// creation exchanges ran on c's collective context, as a collective of
// c's) and no service. Duplicating c was most of a window's creation time.
func newWindow(name string, c *Comm, elem int, typ reflect.Type, flavor winFlavor, mem []byte, sm *sharedMem, strict bool) (*window, error) {
	if err := c.valid(name); err != nil {
		return nil, err
	}
	w := &window{user: c, c: c.c, cm: c, me: c.Rank(), n: c.Size(), elem: elem, kind: typ.Kind(), typ: typ,
		flavor: flavor, mem: mem, stopped: make(chan struct{}), shm: sm}
	w.ccond.L = &w.cmu
	if l, ok := rma.LocOf(typ); ok {
		w.loc = &l
	}
	if sm == nil && !nativeRMA {
		if err := w.dup(); err != nil {
			return nil, err
		}
	}
	// One exchange: every rank's size, its next window id (the window
	// takes the largest, the same on every rank) and its shared memory.
	const rec = 16 + identitySize
	mine := make([]byte, rec)
	binary.LittleEndian.PutUint64(mine, uint64(len(mem)/elem))
	binary.LittleEndian.PutUint64(mine[8:], uint64(winIDs.Add(1)))
	if sm != nil {
		copy(mine[16:], sm.identity())
	}
	all := make([]byte, rec*w.n)
	if err := w.allgather(mine, all); err != nil {
		w.freeComm()
		return nil, err
	}
	w.sizes = make([]int, w.n)
	ids := make([]byte, identitySize*w.n)
	for r := range w.sizes {
		w.sizes[r] = int(binary.LittleEndian.Uint64(all[rec*r:]))
		if id := int(binary.LittleEndian.Uint64(all[rec*r+8:])); id > w.id {
			w.id = id
		}
		copy(ids[identitySize*r:], all[rec*r+16:rec*(r+1)])
	}
	for {
		cur := winIDs.Load()
		if cur >= int64(w.id) || winIDs.CompareAndSwap(cur, int64(w.id)) {
			break
		}
	}
	w.errs = make([]uint8, w.n)
	w.dirty = make([]bool, w.n)
	w.pending = make([][]waitOp, w.n)
	w.lockType = make([]uint8, w.n)
	w.inAccess = make([]bool, w.n)
	if sm != nil {
		ok, err := sm.exchange(w, strict, ids)
		if err != nil {
			return w, err
		}
		if ok && c.r.cfg.rmaDirect {
			w.setDirect(sm)
			return w, nil
		}
		// Every rank got the same answer: all of them duplicate c.
		if err := w.dup(); err != nil {
			return w, err
		}
	}
	if nativeRMA {
		return w, nil // MPI carries out the operations: no private communicator, no service
	}
	w.serving = true
	liveWindows(c.r).add(w)
	go w.serve()
	return w, nil
}

// byMessage starts the message path on a window made for MPI whose MPI
// window the library could not make (see natFallback). Collective.
func (w *window) byMessage() error {
	if err := w.dup(); err != nil {
		return err
	}
	w.serving = true
	liveWindows(w.user.r).add(w)
	go w.serve()
	return nil
}

// dup gives the window a private duplicate of its communicator, for the
// messages of the message path. Collective.
func (w *window) dup() error {
	d, err := w.user.c.Dup()
	if err != nil {
		return err
	}
	w.c, w.cm, w.ownComm = d, newComm(w.user.r, d), true
	return nil
}

// freeComm frees the private communicator, if the window has one.
func (w *window) freeComm() {
	if w.ownComm {
		w.c.Free()
		w.ownComm = false
	}
}

// winSet is the windows of a rank whose service goroutine runs.
type winSet struct {
	mu   sync.Mutex
	wins map[*window]bool
}

var winSets sync.Map // *rank → *winSet

func liveWindows(r *rank) *winSet {
	v, _ := winSets.LoadOrStore(r, &winSet{wins: map[*window]bool{}})
	return v.(*winSet)
}

func (s *winSet) add(w *window) {
	s.mu.Lock()
	s.wins[w] = true
	s.mu.Unlock()
}

func (s *winSet) remove(w *window) {
	s.mu.Lock()
	delete(s.wins, w)
	s.mu.Unlock()
}

// stopWindows ends the service goroutines of r's windows that were never
// freed, before the rank's engine closes under them (Finalize, or the end
// of a rank of Run), and releases r's arena.
func stopWindows(r *rank) {
	defer releaseArena(r)
	v, ok := winSets.LoadAndDelete(r)
	if !ok {
		return
	}
	s := v.(*winSet)
	s.mu.Lock()
	wins := make([]*window, 0, len(s.wins))
	for w := range s.wins {
		wins = append(wins, w)
	}
	s.mu.Unlock()
	for _, w := range wins {
		w.freed.Store(true)
		w.stopService()
	}
}

// The window's own collectives run past the tracer. On its private
// communicator they use message-passing algorithms: the shared-memory ones
// first set up a slot for the communicator, which costs more than a whole
// window creation (measured: a fresh communicator's first barrier at n = 2
// took 16 ms). On the user's communicator (the creation of a window that
// then takes the direct path) the usual choice runs, shared memory
// included: the communicator has its slot already. Under the MPI backend
// the library's own run.
func (w *window) allgather(send, recv []byte) error {
	if err := w.cm.c.DrainNBC(); err != nil { // on the user's communicator: its nonblocking calls' steps first (nbcshm.go)
		return err
	}
	x := w.cm.newCollComm()
	return w.cm.collErr(RoutineAllgather, coll.Call(x, coll.OpAllgather, x.with(coll.Args{Send: send, Recv: recv}), w.alg("bruck")...))
}

func (w *window) barrier() error {
	if err := w.cm.c.DrainNBC(); err != nil {
		return err
	}
	x := w.cm.newCollComm()
	return w.cm.collErr(RoutineBarrier, coll.Call(x, coll.OpBarrier, x.with(coll.Args{}), w.alg("dissemination")...))
}

// alg forces the algorithm name on the window's own communicator (not
// under the MPI backend: the library chooses).
func (w *window) alg(name string) []coll.Option {
	if !w.ownComm || nativeColl {
		return nil
	}
	return []coll.Option{coll.WithAlgorithm(name)}
}

// checkWinElem refuses element types that cannot live in a window.
func checkWinElem[T any](name string) (reflect.Type, int, error) {
	t := reflect.TypeFor[T]()
	if err := checkElem(name, t); err != nil {
		return nil, 0, err
	}
	size := int(unsafe.Sizeof(*new(T)))
	if size == 0 {
		return nil, 0, base.New(name, base.ErrArg, fmt.Sprintf("element type %v has size 0", t), "")
	}
	return t, size, nil
}

func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// WinCreate makes a window over buf: every rank exposes its own buf (of any
// length, possibly empty) to the others. It is collective over c. buf must
// stay alive and must not be read or written by the rank itself while
// others may access it (within an epoch), except under an exclusive lock
// of its own.
func WinCreate[T any](c *Comm, buf []T) (*Win[T], error) {
	typ, size, err := checkWinElem[T]("WinCreate")
	if err != nil {
		return nil, err
	}
	var w *window
	err = winTraced(RoutineWinCreate, c, len(buf)*size, func() (err error) {
		w, err = newWindow("WinCreate", c, size, typ, flavorCreate, bytesOf(buf), nil, false)
		if err == nil && nativeRMA {
			if err = w.natCreate(bytesOf(buf)); natFallback(err) {
				err = w.byMessage()
			}
		}
		return
	})
	if err != nil {
		return nil, err
	}
	return &Win[T]{w}, nil
}

// WinAllocate makes a window of n zeroed elements on every rank (n may
// differ between ranks); Local returns this rank's part. When every rank
// of c is on this host (reached through shared memory), the memory is
// shared as WinAllocateShared's and origins access it themselves: the
// fastest kind of window. It is collective over c.
func WinAllocate[T any](c *Comm, n int) (*Win[T], error) {
	return allocate[T]("WinAllocate", RoutineWinAllocate, c, n, false)
}

// WinAllocateShared makes a window of n elements per rank, as WinAllocate,
// in memory that every rank of c can load and store directly: SharedQuery
// returns any rank's part as a slice. All ranks of c must run on one host
// (ErrNotSupported otherwise). The memory is an anonymous memory file per
// rank, mapped by the others; nothing is left behind when the job ends,
// however it ends. Operations on it are carried out by the origin itself
// (see win_direct.go). It is collective over c.
func WinAllocateShared[T any](c *Comm, n int) (*Win[T], error) {
	return allocate[T]("WinAllocateShared", RoutineWinAllocateShared, c, n, true)
}

// allocate makes the memory of WinAllocate (shared if every rank is on
// this host) or of WinAllocateShared (shared, or an error).
func allocate[T any](name string, r Routine, c *Comm, n int, shared bool) (*Win[T], error) {
	typ, size, err := checkWinElem[T](name)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, c.errf(name, base.ErrArg, -1, -1, fmt.Sprintf("%d elements", n), "the size must be 0 or more")
	}
	flavor := flavorAllocate
	if shared {
		flavor = flavorShared
	}
	var w *window
	err = winTraced(r, c, n*size, func() (err error) {
		if nativeRMA {
			w, err = natAllocate(name, c, n, size, typ, flavor, shared)
			return err
		}
		var sm *sharedMem
		var mem []byte
		if shared || directEligible(c) {
			if sm, err = newSharedMem(c, n*size, shared); err != nil {
				return err
			}
			mem = sm.data()
		}
		if mem == nil && !shared {
			mem = bytesOf(make([]T, n)) // no shared memory here: the message path
		}
		w, err = newWindow(name, c, size, typ, flavor, mem, sm, shared)
		if err != nil && w == nil && sm != nil {
			sm.close()
		}
		return err
	})
	if err != nil {
		if w != nil {
			w.free()
		}
		return nil, err
	}
	return &Win[T]{w}, nil
}

// WinCreateDynamic makes a window with no memory: each rank then attaches
// slices of its own (Attach) and tells the origins the displacement Attach
// returned. It is collective over c.
func WinCreateDynamic[T any](c *Comm) (*Win[T], error) {
	typ, size, err := checkWinElem[T]("WinCreateDynamic")
	if err != nil {
		return nil, err
	}
	var w *window
	err = winTraced(RoutineWinCreateDynamic, c, 0, func() (err error) {
		w, err = newWindow("WinCreateDynamic", c, size, typ, flavorDynamic, nil, nil, false)
		if err == nil && nativeRMA {
			if err = w.natDynamic(); natFallback(err) {
				err = w.byMessage()
			}
		}
		return
	})
	if err != nil {
		return nil, err
	}
	return &Win[T]{w}, nil
}

// Attach exposes buf in a dynamic window and returns the displacement of
// buf[0], which origins use (buf[i] is at the displacement plus i). It is
// local: tell the origins the displacement (by a message or a collective).
// buf must stay alive until Detach.
func (x *Win[T]) Attach(buf []T) (int, error) {
	w, err := x.valid("Attach")
	if err != nil {
		return 0, err
	}
	var d uint64
	err = w.traced(RoutineWinAttach, -1, len(buf)*w.elem, func() error {
		if w.flavor != flavorDynamic {
			return w.errf("Attach", base.ErrWin, -1, "only a window made by WinCreateDynamic takes attached memory", "")
		}
		if len(buf) == 0 {
			return w.errf("Attach", base.ErrArg, -1, "the slice is empty", "attach at least one element")
		}
		w.regMu.Lock()
		defer w.regMu.Unlock()
		var ok bool
		if d, ok = w.regions.Attach(bytesOf(buf), w.elem); !ok {
			return w.errf("Attach", base.ErrArg, -1, "the slice overlaps memory already attached", "detach it first")
		}
		if w.nat != nil {
			if err := w.natAttach(bytesOf(buf), d); err != nil {
				w.regions.Detach(bytesOf(buf))
				return err
			}
		}
		return nil
	})
	return int(d), err
}

// Detach takes buf (as passed to Attach) out of a dynamic window; later
// accesses to its displacements fail with ErrRMARange.
func (x *Win[T]) Detach(buf []T) error {
	w, err := x.valid("Detach")
	if err != nil {
		return err
	}
	return w.traced(RoutineWinDetach, -1, len(buf)*w.elem, func() error {
		if w.flavor != flavorDynamic {
			return w.errf("Detach", base.ErrWin, -1, "only a window made by WinCreateDynamic has attached memory", "")
		}
		w.regMu.Lock()
		defer w.regMu.Unlock()
		if !w.regions.Detach(bytesOf(buf)) {
			return w.errf("Detach", base.ErrArg, -1, "the slice is not attached", "pass the slice given to Attach")
		}
		if w.nat != nil {
			return w.natDetach(bytesOf(buf))
		}
		return nil
	})
}

// Local returns this rank's memory of the window: the slice given to
// WinCreate, or the memory WinAllocate and WinAllocateShared made; nil for
// a dynamic window.
func (x *Win[T]) Local() []T {
	if x == nil || x.w == nil || len(x.w.mem) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(x.w.mem))), len(x.w.mem)/x.w.elem)
}

// SharedQuery returns rank r's memory of a window made by
// WinAllocateShared, for direct loads and stores (synchronize them as MPI
// requires: with Sync under a lock, or with Fence or a barrier).
func (x *Win[T]) SharedQuery(r int) ([]T, error) {
	w, err := x.valid("SharedQuery")
	if err != nil {
		return nil, err
	}
	if w.flavor != flavorShared {
		return nil, w.errf("SharedQuery", base.ErrWin, r, "the window was not made by WinAllocateShared", "")
	}
	if r < 0 || r >= w.n {
		return nil, w.errf("SharedQuery", base.ErrRank, r, fmt.Sprintf("rank %d is not in 0..%d", r, w.n-1), "")
	}
	var m []byte
	if w.nat != nil {
		if m, err = w.natSharedQuery(r); err != nil {
			return nil, err
		}
	} else {
		m = w.shm.peer(r)
	}
	if len(m) == 0 {
		return []T{}, nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(m))), len(m)/w.elem), nil
}

// ID returns the window's number, the same on every rank; tracers see it in
// Event.Window.
func (x *Win[T]) ID() int {
	if x == nil || x.w == nil {
		return 0
	}
	return x.w.id
}

// Comm returns the communicator the window was made on.
func (x *Win[T]) Comm() *Comm {
	if x == nil || x.w == nil {
		return nil
	}
	return x.w.user
}

// Flavor says how the window's memory was made: "create", "allocate",
// "shared" or "dynamic".
func (x *Win[T]) Flavor() string {
	if x == nil || x.w == nil {
		return ""
	}
	return x.w.flavor.String()
}

// Free releases the window; it is collective. Operations of a fence epoch
// still in flight complete first; an open lock, access or exposure epoch
// is ErrRMASync (close it first) and the window stays usable.
func (x *Win[T]) Free() error {
	w, err := x.valid("Free")
	if err != nil {
		return err
	}
	return w.traced(RoutineWinFree, -1, -1, func() error {
		w.mu.Lock()
		open := w.lockAll || w.access != nil || w.exposure != nil
		for _, l := range w.lockType {
			open = open || l != 0
		}
		w.mu.Unlock()
		if open {
			return w.errf("Free", base.ErrRMASync, -1, "an epoch is still open", "call Unlock, UnlockAll, Complete or Wait first")
		}
		if w.freed.Swap(true) {
			return w.errf("Free", base.ErrWin, -1, "the window was already freed", "")
		}
		if w.nat != nil {
			return w.natFree()
		}
		ferr := w.completeAll("Free", true)
		barrier := w.barrier
		if w.direct {
			barrier = w.barrierDirect // c may be freed already: the window does not need it
		}
		if err := barrier(); err != nil {
			return err
		}
		w.free()
		return ferr
	})
}

// stopService ends the service goroutine.
func (w *window) stopService() {
	if !w.serving {
		return
	}
	w.serving = false
	liveWindows(w.user.r).remove(w)
	var h [rma.HeaderSize]byte
	(&rma.Header{Kind: rma.KindStop}).Encode(h[:])
	if w.c.Send(h[:], w.me, tagHeader, backend.ModeStandard) == nil {
		<-w.stopped
	}
}

// free stops the service and releases what the window holds.
func (w *window) free() {
	w.freed.Store(true)
	for i := range w.gate {
		w.gate[i].Store(0) // no more fast path (open)
	}
	w.stopService()
	if w.shm != nil {
		w.shm.close()
	}
	w.freeComm()
}

// fast returns the window for an operation's untraced same-host path: nil
// when a tracer is set (or x is nil). The caller still asks open, which
// fails for a window that is not direct or is freed; then it goes through
// valid and the traced path, which report what is wrong.
func (x *Win[T]) fast() *window {
	if x == nil || tracer.Load() != nil {
		return nil
	}
	return x.w
}

func (x *Win[T]) valid(op string) (*window, error) {
	if x == nil || x.w == nil {
		return nil, base.New(op, base.ErrWin, "the window is nil", "make one with WinCreate, WinAllocate, WinAllocateShared or WinCreateDynamic")
	}
	if x.w.freed.Load() {
		return nil, x.w.errf(op, base.ErrWin, -1, fmt.Sprintf("window %d was freed", x.w.id), "")
	}
	if p := x.w.srvErr.Load(); p != nil {
		return nil, x.w.errf(op, base.ErrWin, -1, fmt.Sprintf("window %d stopped serving: %v", x.w.id, *p), "")
	}
	return x.w, nil
}

func (w *window) errf(op string, class error, peer int, detail, hint string) error {
	return &base.Error{Op: "Win." + op, Rank: w.me, Peer: peer, Tag: -1, Err: class, Detail: detail, Hint: hint}
}

// nextTag returns a fresh operation number t (payload tag 2t+1, reply 2t+2).
func (w *window) nextTag() uint32 {
	for {
		t := w.tags.Add(1)
		if t <= maxOpTag {
			return t
		}
		w.tags.CompareAndSwap(t, 0)
	}
}
