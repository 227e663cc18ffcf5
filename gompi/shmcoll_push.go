package gompi

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/internal/shm"
)

// Scatterv pushed into the readers' own lines ("push", on 3 or more ranks).
// The slotted forms (shm, cma) make a Scatterv of small blocks one step: the
// root writes the blocks and a table into the scratch half, stores the post
// word and arrives at the counter that every rank arrives at; each reader
// loads the post word, the signatures and its slot and arrives in turn, and
// the root's next step waits until all have. That is five or six shared
// lines per call, several of them written by every rank. At four ranks on
// two CPUs, 8 B, it cost 0.70-0.78 µs (mean over ranks) where Open MPI's
// root completes eager sends into one fast box per reader and leaves
// (0.29-0.35 µs).
//
// Here the root writes each reader's block, its count, the operation's code
// and the root into that reader's own line of the slot's push lines
// (shm.CollPush: two lines per rank, by the parity of the call), then the
// call's tag, and leaves; a reader waits for its line alone, copies the
// block and acknowledges the tag on its line of acknowledgements. The root
// writes a line again only once every rank has acknowledged the last call
// of that parity, the call before the last: it rarely waits, and where a
// step has been released since, it does not even look. No step is taken:
// nothing is shared by all ranks.
//
// Every rank must take the same path, and only the root knows every count:
// where a block does not fit a line (pushMax), the root writes pushStep in
// every reader's line instead, and every rank then runs the slotted form the
// selection gives without "push" (cma, else shm, else linear). So a call
// with a block over 616 bytes costs one line more per reader than before.
//
// The tag is the communicator's step number (ShmSeq, which every rank has
// alike at a call, and which only grows across the slot's owners) in the
// high half and the count of pushed calls on the communicator in the low
// half: it never matches what an earlier call or an earlier owner of the
// slot left in a line. A reader checks the root's operation code, root and
// count against its own and reports ErrMismatch (acknowledging all the
// same); ranks that disagree on the operation or the root may wait until the
// job's wait timeout, as in the rooted shm steps.

// The layout of a push line (shm.PushLineSize bytes): the tag (low half at
// 0, the futex word, written last; high half at 4), the count (8; pushStep:
// the call goes as a step), the operation's code (12), the root (16), then
// the block. A reader's acknowledgements are on its line of them, the word
// of parity p at 8p (low half, the futex word, written last; high half at
// 8p+4).
const (
	pushTag   = 0
	pushCount = 8
	pushCode  = 12
	pushRootW = 16
	pushHdr   = 24
	pushMax   = shm.PushLineSize - pushHdr // 616 bytes
	pushStep  = ^uint32(0)
)

// pushMinRanks: on two ranks the per-count forms ride the arrival words'
// lines (shmcoll_vline.go), one line each way already.
const pushMinRanks = 3

// pushState is a communicator's count of pushed calls, the step number
// (ShmSeq) and tag of the last pushed call of each parity, and whether the current
// call runs the slotted form after its lines (push unavailable).
type pushState struct {
	n    uint32
	seq  [2]uint64
	tag  [2]uint64 // the tag of that call; 0: none yet
	root [2]int    // the root of that call if it gathered (shmcoll_pushg.go: the lines' reader); -1: it scattered
	// pend: this rank's last contribution to a gathering call of each
	// parity whose root may not have read it yet (its tag, root and step
	// number; 0: none), for Finalize (pushSettle, shmcoll_pushg.go).
	pend       [2]uint64
	pendRoot   [2]int
	pendSeq    [2]uint64
	registered bool
	follow     bool
	own        []byte // Reduce's root in place: a copy of its vector (shmcoll_pushr.go)
	gvP2P      bool   // a read of this rank's Gatherv block was refused: send them point to point (shmcoll_pushgv.go)
}

// installPush registers "push" for Scatterv and puts it in front of every
// other rule on 3 or more ranks (tierFirst; before installCMAv's rule).
func installPush() error {
	err := coll.Register(coll.Algorithm{
		Op: coll.OpScatterv, Name: "push",
		Summary:     "the root writes each block of up to 616 bytes into its reader's own line of shared memory and leaves; each reader waits for its line alone (larger blocks: the slotted forms)",
		Cost:        coll.Cost{Formula: "p−1 lines written by the root, 1 read per reader, no barrier"},
		Constraints: "all ranks on one host; blocking calls; 3 or more ranks",
		Available: func(c coll.Comm, _ *coll.Args) bool {
			x, ok := c.(*collComm)
			return ok && !x.nonblocking && !x.push.follow && x.Size() >= pushMinRanks && x.c.c.ShmPushLines() != nil
		},
		Run: func(c coll.Comm, a *coll.Args) error { return runPush(c.(*collComm), coll.OpScatterv, a) },
	})
	if err != nil {
		return err
	}
	if err := prefer(coll.OpScatterv, tierFirst, coll.Rule{MinRanks: pushMinRanks, Use: []string{"push"}}); err != nil {
		return err
	}
	if err := installPushB(); err != nil { // Scatter and Bcast (shmcoll_pushb.go)
		return err
	}
	return installPushG() // Gather, Gatherv and Reduce (shmcoll_pushg.go)
}

// pushLine returns rank r's push line of parity par.
func pushLine(lines []byte, r int, par uint32) []byte {
	off := (2*r + int(par)) * shm.PushLineSize
	return lines[off : off+shm.PushLineSize : off+shm.PushLineSize]
}

// pushAckWord returns the 8 bytes of rank r's acknowledgement of parity par
// on a communicator of n ranks.
func pushAckWord(lines []byte, n, r int, par uint32) []byte {
	off := 2*n*shm.PushLineSize + r*shm.PushAckSize + 8*int(par)
	return lines[off : off+8 : off+8]
}

func word32(l []byte, off int) *uint32 { return (*uint32)(unsafe.Pointer(&l[off])) }

func word64(l []byte, off int) *uint64 { return (*uint64)(unsafe.Pointer(&l[off])) }

// runPush runs one Scatterv (or a Scatter or Bcast of blocks that fit a
// line: shmcoll_pushb.go) on the push lines, or, a Scatterv whose root
// says so, through the slotted form after them.
func runPush(x *collComm, op coll.Operation, a *coll.Args) error {
	eng := x.c.c
	lines := eng.ShmPushLines()
	x.push.n++
	if x.push.n == 0 { // never the tag of a line nobody wrote
		x.push.n = 1
	}
	seq := eng.ShmSeq()
	tag := uint64(uint32(seq))<<32 | uint64(x.push.n)
	par := x.push.n & 1
	code := opCode(op)
	// The lines of this parity were last written at the last pushed call
	// of this parity, of step number prev and tag prevTag, or by an earlier
	// owner of the slot, before its last step. Every rank acknowledged
	// that call (its root too, with nothing to read), and a root writes a
	// line only once its reader has: so no two roots ever write one line at
	// once (a root does not write its own line, which therefore may hold
	// an older tag: the acknowledgements, not the lines' tags, say when a
	// line is free). Each rank acknowledged before it arrived at step
	// prev; if step prev has been released (this rank's last step, seq−1 ≥
	// prev, is), every rank has, and the root need not load the
	// acknowledgements.
	prev, prevTag, prevG := x.push.seq[par], x.push.tag[par], x.push.root[par]
	x.push.seq[par], x.push.tag[par], x.push.root[par] = seq, tag, -1 // the lines' readers were their ranks (shmcoll_pushg.go)
	x.push.pend[par] = 0                                              // this call's root waited for the last gathering call's root (below), its readers for the root
	var step bool
	var err error
	if x.Rank() == a.Root {
		if prevTag != 0 && seq > prev && eng.ShmReady() {
			prevTag = 0
		}
		if prevTag != 0 && prevG >= 0 {
			// That call gathered (shmcoll_pushg.go): its root read
			// the lines and acknowledged as root; its contributors
			// did not acknowledge.
			if prevG != a.Root {
				if err := pushFree(x, pushRootAckWord(lines, x.Size(), prevG, par), prevTag); err != nil {
					return err
				}
			}
			prevTag = 0
		}
		step, err = pushRoot(x, op, a, lines, tag, prevTag, par, code)
	} else {
		step, err = pushRead(x, op, a, lines, tag, par, code)
	}
	if err != nil || !step {
		leadNext(x, op, a.Root)
		return err
	}
	x.push.follow = true
	err = pushSlotted(x, a)
	x.push.follow = false
	return err
}

// pushSlotted runs the slotted form of a Scatterv whose root said so: "cma"
// straight away where it is available (the table's next rule), without
// selecting again (the whole selection took a microsecond); else what the
// selection gives without "push".
func pushSlotted(x *collComm, a *coll.Args) error {
	if x.base == tagsNone {
		// Push took no tag base (taglessAlgorithm); the slotted forms
		// may send the blocks that do not fit their slots point to
		// point. Every rank reaches here for the same call.
		x.base = x.c.c.CollTagBase()
	}
	for _, s := range cmavAlgs {
		if s.op == coll.OpScatterv && s.name == "" {
			n := x.Size()
			if _, ok := cmaComm(x); ok && n*sigSize+max(cmavNeed(s.op, n), n*(cmaRecSize+1)) <= x.c.c.ShmCapacity() {
				return runCMAv(x, s, a)
			}
		}
	}
	return coll.Call(x, coll.OpScatterv, a)
}

// pushRoot writes every reader's line: its block and count, or pushStep if
// some block does not fit a line (then it reports step, and writes nothing
// of its own block: the slotted form does).
// prevTag is the tag every rank must have acknowledged first (0: none).
func pushRoot(x *collComm, op coll.Operation, a *coll.Args, lines []byte, tag, prevTag uint64, par, code uint32) (step bool, err error) {
	n, me := x.Size(), x.Rank()
	for r := range n {
		if r != me && len(pushBlock(op, a, n, r)) > pushMax {
			step = true
			break
		}
	}
	// Three passes, so that the lines' cache misses overlap: the loads of
	// the acknowledgements (where needed), then the stores of every line's
	// contents and tag, release stores that do not wait for each other
	// (an atomic store would wait for each line in turn), then one atomic
	// store, this rank's own acknowledgement, which is the fence before
	// the loads of the sleeper count that the wake-ups take.
	for r := range n {
		if r != me && prevTag != 0 {
			if err := pushFree(x, pushAckWord(lines, n, r, par), prevTag); err != nil {
				return false, err
			}
		}
	}
	for r := range n {
		if r == me {
			continue
		}
		l := pushLine(lines, r, par)
		c := pushStep
		if !step {
			b := pushBlock(op, a, n, r)
			c = uint32(len(b))
			copy(l[pushHdr:], b)
		}
		binary.LittleEndian.PutUint32(l[pushCount:], c)
		binary.LittleEndian.PutUint32(l[pushCode:], code)
		binary.LittleEndian.PutUint32(l[pushRootW:], uint32(int32(me)))
		binary.LittleEndian.PutUint32(l[pushTag+4:], uint32(tag>>32))
		shm.StoreRelease32(word32(l, pushTag), uint32(tag))
	}
	pushAcknowledge(x, pushAckWord(lines, n, me, par), tag)
	eng := x.c.c
	for r := range n {
		if r != me {
			eng.ShmWakeWord(unsafe.Pointer(word32(pushLine(lines, r, par), pushTag)))
		}
	}
	if !step && a.Recv != nil && op != coll.OpBcast { // nil: in place, the root's block stays in send
		copy(a.Recv, pushBlock(op, a, n, me))
	}
	return step, nil
}

// pushBlock is, at the root, the block of rank r of n: Scatterv's by the
// counts, Scatter's by its position, Bcast's buffer for every rank.
func pushBlock(op coll.Operation, a *coll.Args, n, r int) []byte {
	switch op {
	case coll.OpBcast:
		return a.Recv
	case coll.OpScatter:
		b := len(a.Send) / n
		return a.Send[r*b : (r+1)*b]
	}
	return a.Send[a.SendDispls[r]:][:a.SendCounts[r]]
}

// pushFree waits until the acknowledgement ack holds tag.
func pushFree(x *collComm, ack []byte, tag uint64) error {
	if atomic.LoadUint64(word64(ack, 0)) == tag {
		return nil
	}
	eng := x.c.c
	// The reader writes the high half first: once the low half matches,
	// the high half has too.
	if err := eng.ShmAwaitWord(unsafe.Pointer(word32(ack, 0)), uint32(tag)); err != nil {
		return err
	}
	return eng.ShmAwaitWord(unsafe.Pointer(word32(ack, 4)), uint32(tag>>32))
}

// pushRead waits for this rank's line to carry tag, takes its block (or
// reports that the call goes as a step) and acknowledges the line.
func pushRead(x *collComm, op coll.Operation, a *coll.Args, lines []byte, tag uint64, par, code uint32) (step bool, err error) {
	eng := x.c.c
	l := pushLine(lines, x.Rank(), par)
	if err := eng.ShmAwaitPushed(unsafe.Pointer(word32(l, pushTag)), uint32(tag)); err != nil {
		return false, err
	}
	if err := eng.ShmAwaitWord(unsafe.Pointer(word32(l, pushTag+4)), uint32(tag>>32)); err != nil {
		return false, err
	}
	c := binary.LittleEndian.Uint32(l[pushCount:])
	root := int(int32(binary.LittleEndian.Uint32(l[pushRootW:])))
	switch {
	case binary.LittleEndian.Uint32(l[pushCode:]) != code || root != a.Root:
		err = fmt.Errorf("%w: rank %d expects a %s from root %d, rank %d's line holds another call (root %d)",
			coll.ErrMismatch, x.Rank(), op, a.Root, root, root)
	case c == pushStep && op == coll.OpScatterv:
		step = true
	case int(c) != len(a.Recv):
		err = countMismatch(root, int(c), x.Rank(), len(a.Recv))
	default:
		copy(a.Recv, l[pushHdr:pushHdr+int(c)])
	}
	pushAcknowledge(x, pushAckWord(lines, x.Size(), x.Rank(), par), tag)
	return step, err
}

// pushAcknowledge stores tag into the acknowledgement ack.
func pushAcknowledge(x *collComm, ack []byte, tag uint64) {
	binary.LittleEndian.PutUint32(ack[4:], uint32(tag>>32)) // before the low half, which publishes it
	x.c.c.ShmSetWord(unsafe.Pointer(word32(ack, 0)), uint32(tag))
}
