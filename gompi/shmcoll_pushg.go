package gompi

import (
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/internal/shm"
	"github.com/gompi/gompi/rdtsc"
)

// Gather, Gatherv and Reduce pushed into the contributors' own lines
// ("push", on 3 or more ranks): the mirror of Scatter's and Bcast's push
// (shmcoll_push.go, shmcoll_pushb.go). Each contributor writes its block
// (Reduce: its vector), the count, the operation's code and the root into
// its own push line of the call's parity, then the call's tag, acknowledges
// the call on its line of acknowledgements and leaves: it waits for nobody.
// The root waits for each line's tag, copies the blocks (Reduce: folds the
// vectors in rank order) and acknowledges last. No step is taken: nothing
// is shared by all ranks.
//
// Why: at four ranks on two CPUs the slotted step's (every rank arrives at
// the slot's counter) whole loop of call and barrier was 20-35 µs against
// Open MPI's 15-18 (sweep at 04079ff: Gather 8 B loop 1.65x, Gatherv 1.34x,
// Reduce 1.22x) while the call's figure was below 1.0.
//
// Reuse of a line. A line of parity p is written again two pushed calls
// later. Its reader at the last call of that parity was that call's root
// (Gather, Gatherv, Reduce) or this rank itself (Scatter, Scatterv, Bcast,
// whose root wrote it: nothing to wait for). So a contributor waits, before
// it writes, for the last gathering call's root to have read the lines: that
// root stores the call's tag into its word of roots' acknowledgements of
// parity p (pushRootAckWord) once it has read every line, and writes that
// word only as a root of a gathering call, which must first read this
// contributor's next line: so the word holds that call's tag exactly when
// the contributor looks (the plain acknowledgement, which a contributor
// writes on every call without waiting, may have moved on). No wait where
// this rank was that root, or a step has been released since (every rank
// has then finished the call). The plain acknowledgements (pushAckWord) are
// not written by a gathering call: a Scatter's root after one waits for
// that call's root's acknowledgement as root alone (runPush), and after a
// Scatter every rank's, as before. One store and at most one wake-up per
// contributor, one per root. A Gather's root reads lines only, and writes
// none.
//
// Gatherv: only the root knows every count, and the contributors write
// before the root says anything. A contributor whose block does not fit a
// line (pushMax) names in its line how it comes (shmcoll_pushgv.go): in its
// push area, written into the root's buffer, or point to point (the call's
// tag base: Gatherv's push takes one on every rank alike; not tagless).

// installPushG registers "push" for Gather, Gatherv and Reduce and puts it
// first on 3 or more ranks for Gather up to pushMax bytes, on
// pushReduceMinRanks (4) or more for Reduce, and on 3 to
// pushGvTableMaxRanks (8) ranks at every size for Gatherv.
// pushReduceMinRanks: the table chooses Reduce's push from this many ranks
// (installPushG says why).
const pushReduceMinRanks = 4

func installPushG() error {
	for _, op := range []coll.Operation{coll.OpGather, coll.OpGatherv, coll.OpReduce} {
		summary := "each rank writes its block of up to 616 bytes into its own line of shared memory and leaves; the root waits for each line and copies it"
		rule := coll.Rule{MinRanks: pushMinRanks, MaxBytes: pushMax, Use: []string{"push"}}
		switch op {
		case coll.OpGatherv:
			summary = "each rank writes its block of up to 616 bytes into its own line of shared memory and leaves; a larger block its rank writes straight into the root's buffer (process_vm_writev) at the displacement the root published in its own line, then leaves; the root waits for each line and copies the small blocks"
		case coll.OpReduce:
			summary = "each rank writes its vector of up to 616 bytes into its own line of shared memory and leaves; the root waits for the lines and folds them in rank order"
		}
		err := coll.Register(coll.Algorithm{
			Op: op, Name: "push",
			Summary:     summary,
			Cost:        coll.Cost{Formula: "1 line written per contributor, p−1 read by the root, no barrier"},
			Constraints: "all ranks on one host; blocking calls; 2 or more ranks (the table chooses it from 3)",
			Available: func(c coll.Comm, a *coll.Args) bool {
				x, ok := c.(*collComm)
				return ok && !x.nonblocking && x.Size() >= 2 && pushGFits(op, a, x.Size()) &&
					x.c.c.ShmPushLines() != nil
			},
			Run: func(c coll.Comm, a *coll.Args) error { return runPushG(c.(*collComm), op, a) },
		})
		if err != nil {
			return err
		}
		if op == coll.OpReduce {
			// Reduce's push pays from 4 ranks (3: the same loop as
			// shm's, shm's call shorter). Measured beside Open MPI
			// (branch red9, GOMPI_COLL_REDUCE=push|shm alternated, 5
			// rounds, whole loop per call, µs): 4 ranks 8 B 23.4
			// against 29.6 (Open MPI 25.4), 64 B 24.2 against 33.6, 512 B
			// 38.8 against 51.8; 5 and 6 ranks 64/61 against 93/80; 3
			// ranks 15.6 both. Before red9 the root's fold allocated 640
			// bytes per call (shmcoll_pushr.go) and push was chosen from
			// 7 ranks only.
			rule.MinRanks = pushReduceMinRanks
		}
		if op == coll.OpGatherv {
			// In the table on 3 to pushGvTableMaxRanks ranks, at every
			// size (Gatherv's is 0): shmcoll_pushgv.go says why.
			rule = pushGvRule
		}
		if err := preferFront(op, rule); err != nil {
			return err
		}
	}
	return nil
}

// pushGFits says whether every rank's block (Reduce: the vector) fits a
// line, as every rank computes alike (Gatherv: on up to pushGvMaxRanks,
// where the root's table fits its line; its larger blocks go another way).
func pushGFits(op coll.Operation, a *coll.Args, n int) bool {
	switch op {
	case coll.OpGather:
		return gatherBlock(n, a) <= pushMax
	case coll.OpReduce:
		return len(contribution(a)) <= pushMax
	}
	return pushGvFits(n)
}

// runPushG runs one pushed Gather, Gatherv or Reduce.
func runPushG(x *collComm, op coll.Operation, a *coll.Args) error {
	eng := x.c.c
	lines := eng.ShmPushLines()
	x.push.n++
	if x.push.n == 0 {
		x.push.n = 1
	}
	seq := eng.ShmSeq()
	tag := uint64(uint32(seq))<<32 | uint64(x.push.n)
	par := x.push.n & 1
	prev, prevTag, prevRoot := x.push.seq[par], x.push.tag[par], x.push.root[par]
	x.push.seq[par], x.push.tag[par], x.push.root[par] = seq, tag, a.Root
	var err error
	if prevTag != 0 && (prevRoot < 0 || prevRoot == x.Rank() || (seq > prev && eng.ShmReady())) {
		prevTag = 0
	}
	if x.Rank() == a.Root {
		x.push.pend[par] = 0      // it read the lines, after the last root of this parity
		if op == coll.OpGatherv { // its buffer in its line for blocks over a line (shmcoll_pushgv.go)
			err = pushGvPublish(x, a, lines, tag, prevTag, prevRoot, par)
		}
		if err == nil {
			err = pushGRoot(x, op, a, lines, tag, par)
		}
	} else {
		x.push.pend[par], x.push.pendRoot[par], x.push.pendSeq[par] = tag, a.Root, seq
		if !x.push.registered {
			pushRegister(x.c)
			x.push.registered = true
		}
		err = pushGWrite(x, op, a, lines, tag, prevTag, prevRoot, par)
	}
	leadNext(x, op, a.Root)
	return err
}

// pushGWrite writes this contributor's line: its block, or (Gatherv, a
// block over a line) the count and how the block comes (pushGvWriteBig),
// sending it point to point where it goes so.
func pushGWrite(x *collComm, op coll.Operation, a *coll.Args, lines []byte, tag, prevTag uint64, prevRoot int, par uint32) error {
	n, me := x.Size(), x.Rank()
	if prevTag != 0 {
		if err := pushFree(x, pushRootAckWord(lines, n, prevRoot, par), prevTag); err != nil {
			return err
		}
	}
	b := contribution(a) // Gather, Gatherv: the send block (a contributor is never in place)
	l := pushLine(lines, me, par)
	big, sent := len(b) > pushMax, false
	if big { // Gatherv (shmcoll_pushgv.go)
		var err error
		if sent, err = pushGvWriteBig(x, a, lines, l, b, tag, par); err != nil {
			return err
		}
	} else {
		copy(l[pushHdr:], b)
		binary.LittleEndian.PutUint32(l[pushCount:], uint32(len(b)))
	}
	binary.LittleEndian.PutUint32(l[pushCode:], opCode(op))
	binary.LittleEndian.PutUint32(l[pushRootW:], uint32(int32(a.Root)))
	binary.LittleEndian.PutUint32(l[pushTag+4:], uint32(tag>>32))
	// No acknowledgement: the root's says the line is read.
	if n <= pushMaskRanks {
		// The root sleeps on its mask, not on the lines: the last
		// contributor alone wakes it.
		shm.StoreRelease32(word32(l, pushTag), uint32(tag))
		full := pushFull(n, a.Root)
		mask := pushMaskWord(lines, n, a.Root, par)
		if old := atomic.OrUint32(mask, 1<<uint(me)); (old|1<<uint(me))&full == full {
			x.c.c.ShmWakeWord(unsafe.Pointer(mask))
			// The root is now due at the next step: poll for its
			// release where the root runs on another CPU.
			x.c.c.ShmPollNextRelease(int(atomic.LoadUint32(pushRootCPUWord(lines, n, a.Root))) - 1) // 0, unknown: -1
		}
	} else {
		x.c.c.ShmSetWord(unsafe.Pointer(word32(l, pushTag)), uint32(tag))
	}
	if big && !sent {
		return x.Send(b, a.Root, vTag)
	}
	return nil
}

// pushGLine waits for rank r's line of parity par to carry tag and returns
// its count (pushStep: the block comes point to point; its count is then at
// the block's place) and block, or an error if it holds another call.
func pushGLine(x *collComm, op coll.Operation, a *coll.Args, lines []byte, r int, tag uint64, par uint32) (uint32, []byte, error) {
	eng := x.c.c
	l := pushLine(lines, r, par)
	if err := eng.ShmAwaitWord(unsafe.Pointer(word32(l, pushTag)), uint32(tag)); err != nil {
		return 0, nil, err
	}
	if err := eng.ShmAwaitWord(unsafe.Pointer(word32(l, pushTag+4)), uint32(tag>>32)); err != nil {
		return 0, nil, err
	}
	c := binary.LittleEndian.Uint32(l[pushCount:])
	root := int(int32(binary.LittleEndian.Uint32(l[pushRootW:])))
	if binary.LittleEndian.Uint32(l[pushCode:]) != opCode(op) || root != a.Root {
		return 0, nil, fmt.Errorf("%w: rank %d expects a %s to root %d, rank %d's line holds another call (root %d)",
			coll.ErrMismatch, x.Rank(), op, a.Root, r, root)
	}
	if pushGvLine(c) {
		return c, nil, nil
	}
	if c > pushMax {
		return 0, nil, fmt.Errorf("%w: rank %d's line holds %d bytes", coll.ErrMismatch, r, c)
	}
	return c, l[pushHdr : pushHdr+int(c)], nil
}

// pushGRoot reads every contributor's line, copies or folds the blocks,
// receives Gatherv's blocks that come point to point, and acknowledges.
func pushGRoot(x *collComm, op coll.Operation, a *coll.Args, lines []byte, tag uint64, par uint32) error {
	n, me := x.Size(), x.Rank()
	var err error
	fail := func(e error) {
		if err == nil {
			err = e
		}
	}
	// block waits for rank r's line and returns its block if the line
	// holds this call with want bytes; otherwise it records the error.
	block := func(r, want int) ([]byte, bool) {
		c, b, e := pushGLine(x, op, a, lines, r, tag, par)
		switch {
		case e != nil:
			fail(e)
		case int(c) != want:
			fail(countMismatch(r, int(c), me, want))
		default:
			return b, true
		}
		return nil, false
	}
	var mask *uint32
	var big bigBlocks // Gatherv's blocks that come point to point, waited for after the acknowledgement
	if n <= pushMaskRanks {
		// Whatever the word held before (another owner of the slot may
		// have left other data there) stays; the contributors add
		// their bits to it.
		mask = pushMaskWord(lines, n, me, par)
		full := pushFull(n, me)
		if m := atomic.LoadUint32(mask); m&full != full {
			// Where it runs, for the contributor that completes the
			// mask (ShmPollNextRelease): stored only when it moved.
			if cw, cpu := pushRootCPUWord(lines, n, me), uint32(rdtsc.CPU()+1); atomic.LoadUint32(cw) != cpu {
				atomic.StoreUint32(cw, cpu)
			}
			if e := x.c.c.ShmAwaitGathered(unsafe.Pointer(mask), m|pushFull(n, me)); e != nil {
				return e
			}
		}
	}
	switch op {
	case coll.OpGather:
		m := gatherBlock(n, a)
		if a.Send != nil {
			copy(a.Recv[me*m:(me+1)*m], a.Send)
		}
		for r := range n {
			if r == me {
				continue
			}
			if b, ok := block(r, m); ok {
				copy(a.Recv[r*m:(r+1)*m], b)
			}
		}
	case coll.OpGatherv:
		pushGvRoot(x, a, lines, tag, par, fail, &big)
	case coll.OpReduce:
		m := len(contribution(a))
		for r := range n {
			if r == me {
				continue
			}
			block(r, m) // the fold below reads the lines in rank order
		}
		if err == nil {
			pushReduceFold(x, a, lines, par) // shmcoll_pushr.go
		}
	}
	if mask != nil {
		atomic.StoreUint32(mask, 0) // before the acknowledgement, after which the next bits come
	}
	pushAcknowledge(x, pushRootAckWord(lines, n, me, par), tag)
	fail(big.wait()) // nothing to wait for but in a Gatherv with blocks point to point
	return err
}

// pushMaskRanks: up to this many ranks, the contributors of a gathering
// call also set their bit in the root's mask of the call's parity
// (pushMaskWord), and the root waits for the mask instead of each line
// in turn: on ranks that outnumber the CPUs every wait sleeps at once,
// and the root would be woken once per line.
const pushMaskRanks = 32

// pushMaskWord returns rank r's mask of parity par: the contributors' bits
// of its gathering call, cleared by r before it acknowledges the call.
func pushMaskWord(lines []byte, n, r int, par uint32) *uint32 {
	return word32(lines, 2*n*shm.PushLineSize+r*shm.PushAckSize+32+4*int(par))
}

// pushRootCPUWord returns rank r's word of the CPU it last waited on as
// the root of a gathering call, plus one (0: not known), after its masks in
// the same line of acknowledgements. A hint: a contributor that reads
// another slot owner's leftover or a stale CPU polls for a microsecond in
// vain or yields where it could have polled, nothing more.
func pushRootCPUWord(lines []byte, n, r int) *uint32 {
	return word32(lines, 2*n*shm.PushLineSize+r*shm.PushAckSize+40)
}

// pushFull is the mask of every contributor of a call of n ranks to root.
func pushFull(n, root int) uint32 {
	return uint32(uint64(1)<<uint(n)-1) &^ (1 << uint(root))
}

// pushRootAckWord returns the 8 bytes of rank r's acknowledgement of
// parity par as the root of a gathering call (after pushAckWord's two, in
// the same line of acknowledgements).
func pushRootAckWord(lines []byte, n, r int, par uint32) []byte {
	off := 2*n*shm.PushLineSize + r*shm.PushAckSize + 16 + 8*int(par)
	return lines[off : off+8 : off+8]
}

// A contributor leaves a gathering call before its root has read its line.
// If it then ends (Finalize, or the end of Run's function), a root still
// waiting for another contributor finds a member gone and fails with
// ErrPeerLost, as its wait checks every member. So at the end a rank waits
// for the roots of its last contributions to have read them
// (pushSettle), as the slotted steps' settle waits for their open step.
// Comm.Free needs nothing: it is a step, which every rank reaches only
// after its reads.

var pushComms struct {
	sync.Mutex
	m map[*Comm]struct{}
}

// pushRegister lists c as one whose rank may end with a contribution
// unread.
func pushRegister(c *Comm) {
	pushComms.Lock()
	if pushComms.m == nil {
		pushComms.m = map[*Comm]struct{}{}
	}
	pushComms.m[c] = struct{}{}
	pushComms.Unlock()
}

// pushSettle waits until the roots of rank r's last contributions to
// gathering calls, on every communicator not freed, have read them. Errors
// (a root gone, the job aborting) end the wait: the rank is ending.
func pushSettle(r *rank) {
	pushComms.Lock()
	var mine []*Comm
	for c := range pushComms.m {
		if c.r == r {
			mine = append(mine, c)
			delete(pushComms.m, c)
		}
	}
	pushComms.Unlock()
	for _, c := range mine {
		x := &c.bx
		x.push.registered = false
		if c.freed.Load() {
			continue
		}
		eng := c.c
		lines := eng.ShmPushLines()
		for par := range uint32(2) {
			tag := x.push.pend[par]
			if tag == 0 || lines == nil {
				continue
			}
			x.push.pend[par] = 0
			if eng.ShmSeq() > x.push.pendSeq[par] && eng.ShmReady() {
				continue // a step since: every rank has finished the call
			}
			_ = pushFree(x, pushRootAckWord(lines, c.Size(), x.push.pendRoot[par], par), tag)
		}
	}
}
