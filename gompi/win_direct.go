package gompi

import (
	"encoding/binary"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/gompi/internal/rma"
	"github.com/gompi/gompi/internal/shm"
)

// The same-host path. When every rank of a window made by WinAllocate or
// WinAllocateShared reaches the others through shared memory, each maps
// every other's part (sharedMem), and an origin carries out its operations
// itself: Put and Get are copies, Accumulate and its relatives on 8-byte
// integers are atomic instructions, on other elements they run under the
// target's accumulate lock, and passive-target locks are words in the
// target's part. Nothing goes through the target's service goroutine, so
// nothing waits for it to be scheduled. GOMPI_RMA_SHM=0 turns the path off
// (every operation then goes by message, as between hosts).

// winHeaderSize is the size of the words before a rank's elements in a
// window of n ranks: a winHeader, then from winCounters for each rank r the
// number of Posts r made to this rank, then for each r the number of its
// Completes (PSCW).
func winHeaderSize(n int) int { return (winCounters + 8*n + 127) / 128 * 128 }

// winCounters is where the PSCW counters start, past the winHeader. (They
// once started at 128, on the fence's barrier words: a Post counted as a
// rank arrived at the next Fence or Free.)
const winCounters = 192

var _ [winCounters - unsafe.Sizeof(winHeader{})]byte // the header fits before the counters

// winHeader is the start of a rank's part of a shared-memory window.
type winHeader struct {
	acc       uint32 // accumulate lock: 0 free, 1 held
	accSleep  uint32 // threads asleep on acc
	_         [56]byte
	lock      uint32 // passive-target lock: the number of shared holders, or lockExcl
	lockWait  uint32 // threads asleep on lock
	bell      uint32 // bumped by every Post and Complete to this rank
	bellSleep uint32 // threads asleep on bell
	_         [48]byte
	barCount  uint32 // rank 0's: ranks arrived at the fence's barrier
	barGen    uint32 // this rank's barriers completed (barrierDirect)
	barSleep  uint32 // threads asleep on barGen
}

const lockExcl = 1 << 31

func headerOf(m []byte) *winHeader { return (*winHeader)(unsafe.Pointer(&m[0])) }

// directEligible reports whether every rank of c is reached through shared
// memory (or is this one), so that a window's memory can be mapped by all.
func directEligible(c *Comm) bool {
	if !c.r.cfg.rmaDirect {
		return false
	}
	for r := range c.Size() {
		if t := c.Transport(r); t != "self" && t != "shm" {
			return false
		}
	}
	return true
}

// setDirect switches the window to the same-host path over s. The service
// goroutine stops: nothing will come by message, and a goroutine waiting
// for messages would only wake (and spin) at every message this rank gets.
func (w *window) setDirect(s *sharedMem) {
	w.peers = make([][]byte, w.n)
	w.hdrs = make([]*winHeader, w.n)
	w.posts = make([][]uint32, w.n)
	w.completes = make([][]uint32, w.n)
	for r := range w.n {
		w.peers[r] = s.peer(r)
		w.hdrs[r] = s.header(r)
		words := unsafe.Slice((*uint32)(unsafe.Pointer(&s.words(r)[winCounters])), 2*w.n)
		w.posts[r], w.completes[r] = words[:w.n], words[w.n:]
	}
	w.postsSeen = make([]uint32, w.n)
	w.gate = make([]atomic.Uint32, w.n)
	w.completesSeen = make([]uint32, w.n)
	w.direct = true
	w.stopService()
}

// The gate of a target on the direct path: a bit per kind of epoch that
// gives this rank access to it. The synchronization calls set a bit (under
// mu) once the epoch is open, after the state that mu guards, and clear it
// before they close the epoch, so that an operation that reads a bit set
// is inside an epoch without taking mu. An operation that finds no bit
// set takes the slow path, which reports the error. (An operation running
// while another goroutine closes its epoch is a race in the program, as
// in MPI.)
const (
	gateLock  = 1 << iota // Lock or LockAll
	gateFence             // a fence epoch
	gateStart             // a PSCW access epoch
)

// gateSet sets (on) or clears bit in the gate of target (of every target
// when target is -1). A no-op off the direct path.
func (w *window) gateSet(bit uint32, on bool, target int) {
	if !w.direct {
		return
	}
	for t := range w.n {
		if target >= 0 && t != target {
			continue
		}
		if on {
			w.gate[t].Or(bit)
		} else {
			w.gate[t].And(^bit)
		}
	}
}

// open reports whether an operation of count elements at disp of target
// can go the fast way: a direct window, a target in range, elements inside
// its part, and an epoch that gives access (a passive one when passive).
// Only a direct window has gates, and free clears them, so that a freed
// window never goes the fast way: the operations' untraced path (fast)
// needs no other check.
func (w *window) open(target, disp, count int, passive bool) bool {
	if uint(target) >= uint(len(w.gate)) || disp < 0 || count <= 0 || count > w.sizes[target]-disp {
		return false
	}
	g := w.gate[target].Load()
	if passive {
		return g&gateLock != 0
	}
	return g != 0
}

// signal counts one Post or Complete of this rank at target (word is the
// target's counter for this rank) and wakes the target if it sleeps.
func (w *window) signal(target int, word *uint32) {
	atomic.AddUint32(word, 1)
	h := w.hdrs[target]
	atomic.AddUint32(&h.bell, 1)
	wakeIf(&h.bell, &h.bellSleep)
}

// arrived waits (or with block false, only looks) until every rank of
// group has signalled this rank once more than seen records, in counters
// (posts or completes), and then records it.
func (w *window) arrived(group []int, counters [][]uint32, seen []uint32, block bool) (bool, error) {
	h := w.hdrs[w.me]
	for i := 0; ; i++ {
		bell := atomic.LoadUint32(&h.bell)
		all := true
		for _, g := range group {
			if atomic.LoadUint32(&counters[w.me][g]) == seen[g] {
				all = false
				break
			}
		}
		if all {
			for _, g := range group {
				seen[g]++
			}
			return true, nil
		}
		if !block {
			return false, nil
		}
		if err := w.pause(i, &h.bell, &h.bellSleep, bell); err != nil {
			return false, err
		}
	}
}

// pause waits a little for a word that read seen: it spins, then yields
// the CPU, then sleeps on the word (a futex) while it still reads seen, the
// runtime's rule that keeps 64 ranks on 2 cores fair. After a sleep it
// fails if a rank of the window is gone, so that no wait outlives a peer.
func (w *window) pause(i int, word, sleepers *uint32, seen uint32) error {
	switch {
	case i < 64:
		return nil
	case i < 96:
		shm.Yield()
		return nil
	}
	atomic.AddUint32(sleepers, 1)
	shm.WaitWord(word, seen, 10*time.Millisecond)
	atomic.AddUint32(sleepers, ^uint32(0))
	// A rank that has gone after changing the word (the last to arrive at
	// Free's barrier, then finalized) is no loss: the caller looks again.
	if atomic.LoadUint32(word) == seen && w.peerGone() {
		return w.errf("wait", base.ErrPeerLost, -1, "a rank of the window finalized or exited while this one waited", "")
	}
	return nil
}

func wakeIf(word, sleepers *uint32) {
	if atomic.LoadUint32(sleepers) != 0 {
		shm.WakeWord(word)
	}
}

// The passive-target lock word: the number of shared holders, or
// lockExcl; lockWant is set while an exclusive locker waits, and keeps new
// shared lockers out until it has had its turn, so that a stream of shared
// lockers cannot starve it (the message path's lock table queues requests
// for the same reason).
const lockWant = 1 << 30

// tryShared takes a shared lock if no exclusive holder has it and none
// waits for it.
func (h *winHeader) tryShared() (bool, uint32) {
	v := atomic.LoadUint32(&h.lock)
	return v&(lockExcl|lockWant) == 0 && atomic.CompareAndSwapUint32(&h.lock, v, v+1), v
}

func (w *window) lockShared(h *winHeader) error {
	for i := 0; ; i++ {
		ok, v := h.tryShared()
		if ok {
			return nil
		}
		if v&(lockExcl|lockWant) == 0 {
			continue // lost a race with another shared locker
		}
		if err := w.pause(i, &h.lock, &h.lockWait, v); err != nil {
			return err
		}
	}
}

func (w *window) lockExclusive(h *winHeader) error {
	for i := 0; ; i++ {
		v := atomic.LoadUint32(&h.lock)
		if v&^lockWant == 0 {
			if atomic.CompareAndSwapUint32(&h.lock, v, lockExcl) {
				return nil
			}
			continue
		}
		if v&lockWant == 0 {
			if !atomic.CompareAndSwapUint32(&h.lock, v, v|lockWant) {
				continue
			}
			v |= lockWant
		}
		if err := w.pause(i, &h.lock, &h.lockWait, v); err != nil {
			return err
		}
	}
}

func (h *winHeader) unlock(typ uint8) {
	if typ == rma.LockExclusive {
		atomic.StoreUint32(&h.lock, 0)
	} else {
		atomic.AddUint32(&h.lock, ^uint32(0))
	}
	wakeIf(&h.lock, &h.lockWait)
}

// lockAcc takes the accumulate lock of a target. Its holders never wait
// for anything while they hold it, so it waits without giving up.
func (w *window) lockAcc(h *winHeader) {
	for i := 0; ; i++ {
		if atomic.CompareAndSwapUint32(&h.acc, 0, 1) {
			return
		}
		w.pause(i, &h.acc, &h.accSleep, 1)
	}
}

func (h *winHeader) unlockAcc() {
	atomic.StoreUint32(&h.acc, 0)
	wakeIf(&h.acc, &h.accSleep)
}

// barrierDirect is the fence's barrier on the direct path, and Free's: a
// counter in rank 0's header, and a generation in each rank's own. The
// last rank to arrive resets the counter, then advances every rank's
// generation. A waiter reads only its own header, and the last rank
// writes a rank's header only before that rank can leave: after Free's
// barrier a rank gives its part back to its arena at once (a later window
// reuses it), so nobody may still be reading it.
func (w *window) barrierDirect() error {
	own := w.hdrs[w.me]
	gen := atomic.LoadUint32(&own.barGen)
	if root := w.hdrs[0]; atomic.AddUint32(&root.barCount, 1) == uint32(w.n) {
		atomic.StoreUint32(&root.barCount, 0)
		for _, h := range w.hdrs {
			atomic.AddUint32(&h.barGen, 1)
			// h may be reused once its rank left: at worst a futex
			// wake-up that no one waits for.
			wakeIf(&h.barGen, &h.barSleep)
		}
		return nil
	}
	for i := 0; atomic.LoadUint32(&own.barGen) == gen; i++ {
		if err := w.pause(i, &own.barGen, &own.barSleep, gen); err != nil {
			return err
		}
	}
	return nil
}

// at returns count elements of target's memory from disp (already checked).
func (w *window) at(target, disp, count int) []byte {
	return w.peers[target][disp*w.elem : (disp+count)*w.elem]
}

// addr returns the address of element disp of target's memory (checked by
// open): the operations' fast path, without at's slice bounds.
func (w *window) addr(target, disp int) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(unsafe.SliceData(w.peers[target])), disp*w.elem)
}

// copyIn copies the elements of src to dst, the address of as many
// elements; copyOut the other way. One element is one typed load and
// store, and 8 or 4 bytes (a Put of 8 bytes, say) one 8- or 4-byte move:
// no call to memmove for the latency-bound small transfers.
func copyIn[T any](dst unsafe.Pointer, src []T) {
	if len(src) == 1 {
		*(*T)(dst) = src[0]
		return
	}
	moveSmall(unsafe.Slice((*byte)(dst), len(src)*int(unsafe.Sizeof(src[0]))), bytesOf(src))
}

func copyOut[T any](dst []T, src unsafe.Pointer) {
	if len(dst) == 1 {
		dst[0] = *(*T)(src)
		return
	}
	moveSmall(bytesOf(dst), unsafe.Slice((*byte)(src), len(dst)*int(unsafe.Sizeof(dst[0]))))
}

// moveSmall is copy(dst, src) of slices of the same length.
func moveSmall(dst, src []byte) {
	switch len(src) {
	case 8:
		binary.LittleEndian.PutUint64(dst, binary.LittleEndian.Uint64(src))
	case 4:
		binary.LittleEndian.PutUint32(dst, binary.LittleEndian.Uint32(src))
	default:
		copy(dst, src)
	}
}

// accDirect combines origin into target's elements (old receives them as
// they were when old is not nil).
func (w *window) accDirect(code rma.OpCode, origin, old []byte, target, disp, count int) {
	dst := w.at(target, disp, count)
	lockFree := rma.Atomic(w.kind, w.elem)
	if !lockFree {
		w.lockAcc(w.hdrs[target])
		defer w.hdrs[target].unlockAcc()
	}
	w.combine(code, dst, origin, old)
}

// combine applies code to dst with src (old receives dst as it was, when
// not nil). The caller holds whatever makes it atomic.
func (w *window) combine(code rma.OpCode, dst, src, old []byte) {
	switch {
	case code.IsLoc():
		if old != nil {
			copy(old, dst)
		}
		if w.loc != nil { // checked at the origin, of the same type
			w.loc.Apply(code, dst, src)
		}
	case old != nil:
		rma.FetchApply(code, w.kind, w.elem, dst, src, old)
	default:
		rma.Apply(code, w.kind, w.elem, dst, src)
	}
}

func (w *window) casDirect(originCompare, result []byte, target, disp int) {
	dst := w.at(target, disp, 1)
	if !rma.Atomic(w.kind, w.elem) {
		w.lockAcc(w.hdrs[target])
		defer w.hdrs[target].unlockAcc()
	}
	rma.CAS(w.elem, dst, originCompare[:w.elem], originCompare[w.elem:], result)
}

// fence orders this rank's direct stores before what follows (a Flush).
func fence() {
	var v atomic.Int64
	v.Add(1)
}
