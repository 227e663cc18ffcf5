package gompi

import (
	"encoding/binary"
	"runtime"
	"unsafe"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/internal/shm"
)

// Gatherv's push with the blocks over a line copied once (issue 18, branch
// gatv9). In Gatherv only the root knows every count, so each contributor
// picks how its block goes from its own count, and says which in its line;
// the root, which reads every line, follows each:
//
//   - up to pushMax bytes: the block in the line; the contributor leaves
//     at once (as Gather's push);
//   - up to shm.PushBigSize (32 KiB) where the slot has push areas (hosts
//     of up to 8 ranks) (pushInBig): the count in the line, the block in
//     the contributor's own push area of the call's parity, which is
//     reused as the line is; it leaves at once, and the root copies the
//     block out (two copies, as "cma"'s slots, but no step and no wait);
//   - larger (pushCMA): the contributor waits for the root's own line,
//     where the root has published its receive buffer (pid, address,
//     length: publishBuf) and every rank's count and displacement in it,
//     writes its block straight into that buffer with one
//     process_vm_writev (one copy, as "cma"), then writes its count into
//     its line and leaves;
//   - larger, where single copy is off for this rank (GOMPI_SHM_CMA=0, the
//     communicator agreed it off, a write of this rank's was refused
//     before: pushState.gvP2P; or its count is not the root's) (pushStep):
//     the count in the line, the block point to point, which the root
//     receives.
//
// The root publishes its line only when a count other than its own goes
// by single copy (pushGvSingle: the root knows every count, a contributor
// its own, and both decide alike), so a call of smaller blocks costs what
// Gather's push costs. Counts that disagree about that make a contributor
// wait for a root's line that never comes, until the job's wait timeout,
// as the other pushed calls do. The root's line is written as a
// contributor's is (after the last root of its parity has acknowledged
// it: runPushG), and read by the contributors before they set their bits
// in the root's mask: once the root has every bit, nobody reads its line
// or writes its buffer any more.
// A refused write (the kernel's ptrace rules may differ between pairs of
// processes) sends that block point to point: the result is right all
// the same.

// pushCMA: the count word of a contributor's line whose block is already
// in the root's buffer; pushGvTable: the count word of the root's line
// that publishes its buffer.
const (
	pushCMA     = pushStep - 1
	pushGvTable = pushStep - 2
	pushInBig   = pushStep - 3 // the block is in the contributor's push area (pushBigArea)
)

// pushBigArea returns rank r's push area of parity par (shm.PushBigSize
// bytes after the lines of acknowledgements), or nil where the slot has
// none (hosts of more than shm.PushBigMaxRanks ranks): every rank of the
// communicator finds the same.
func pushBigArea(lines []byte, n, r int, par uint32) []byte {
	off := 2*n*shm.PushLineSize + n*shm.PushAckSize + (2*r+int(par))*shm.PushBigSize
	if off+shm.PushBigSize > len(lines) {
		return nil
	}
	return lines[off : off+shm.PushBigSize : off+shm.PushBigSize]
}

// pushGvSingle says whether a block of c bytes goes by single copy (or,
// where that is off, point to point): over a line, and over the push area
// or with none. A contributor decides from its own count, the root from
// its recvcounts, alike.
func pushGvSingle(lines []byte, n, c int) bool {
	return c > pushMax && (c > shm.PushBigSize || pushBigArea(lines, n, n-1, 1) == nil)
}

// The layout after pushHdr of the root's line: the record of its receive
// buffer (cmaRecSize), then per rank its count and displacement there (8
// bytes each).
const (
	pushGvEntry    = 16
	pushGvMaxRanks = (pushMax - cmaRecSize) / pushGvEntry // 37
)

// pushGvFits: Gatherv's push on n ranks, whose root's table must fit a
// line.
func pushGvFits(n int) bool { return n <= pushGvMaxRanks }

// pushGvPublish writes, at the root, its buffer and the table into its
// line of parity par if any other rank's block is over a line. prevTag (not 0): first wait for the root of the last
// gathering call of this parity, prevRoot, to have read the line.
func pushGvPublish(x *collComm, a *coll.Args, lines []byte, tag, prevTag uint64, prevRoot int, par uint32) error {
	n, me := x.Size(), x.Rank()
	big := false
	for r := range n {
		big = big || (r != me && pushGvSingle(lines, n, a.RecvCounts[r]))
	}
	if !big {
		return nil
	}
	if prevTag != 0 {
		if err := pushFree(x, pushRootAckWord(lines, n, prevRoot, par), prevTag); err != nil {
			return err
		}
	}
	if cmaEnabled() {
		allowPeerReads() // the contributors write into this process
	}
	l := pushLine(lines, me, par)
	publishBuf(l[pushHdr:pushHdr+cmaRecSize], a.Recv)
	for r := range n {
		e := l[pushHdr+cmaRecSize+r*pushGvEntry:]
		binary.LittleEndian.PutUint64(e, uint64(a.RecvCounts[r]))
		binary.LittleEndian.PutUint64(e[8:], uint64(a.RecvDispls[r]))
	}
	binary.LittleEndian.PutUint32(l[pushCount:], pushGvTable)
	binary.LittleEndian.PutUint32(l[pushCode:], opCode(coll.OpGatherv))
	binary.LittleEndian.PutUint32(l[pushRootW:], uint32(int32(me)))
	binary.LittleEndian.PutUint32(l[pushTag+4:], uint32(tag>>32))
	x.c.c.ShmSetWord(unsafe.Pointer(word32(l, pushTag)), uint32(tag)) // contributors may sleep on it
	return nil
}

// pushGvWriteBig moves a contributor's block b over a line and fills its
// line l (but for the tag): pushCMA where it wrote the block into the
// root's buffer, else pushStep (the caller then sends it). The count is at
// pushHdr either way.
func pushGvWriteBig(x *collComm, a *coll.Args, lines, l, b []byte, tag uint64, par uint32) (sent bool, err error) {
	binary.LittleEndian.PutUint64(l[pushHdr:], uint64(len(b)))
	if !pushGvSingle(lines, x.Size(), len(b)) {
		scratchCopy(x.Size(), pushBigArea(lines, x.Size(), x.Rank(), par), b)
		binary.LittleEndian.PutUint32(l[pushCount:], pushInBig)
		return true, nil
	}
	if !x.push.gvP2P && x.c.cma.Load() != cmaOff && cmaEnabled() {
		sent, err = pushGvWrite(x, a, lines, b, tag, par)
	}
	if sent {
		binary.LittleEndian.PutUint32(l[pushCount:], pushCMA)
	} else {
		binary.LittleEndian.PutUint32(l[pushCount:], pushStep)
	}
	return sent, err
}

// pushGvWrite waits for the root's line of this call and writes b into
// the root's buffer where the root's table puts it. It reports false (the
// block then goes point to point) where the root's count is not len(b),
// so that the root reports the mismatch, or where the write failed.
func pushGvWrite(x *collComm, a *coll.Args, lines, b []byte, tag uint64, par uint32) (bool, error) {
	eng := x.c.c
	l := pushLine(lines, a.Root, par)
	if err := eng.ShmAwaitWord(unsafe.Pointer(word32(l, pushTag)), uint32(tag)); err != nil {
		return false, err
	}
	if err := eng.ShmAwaitWord(unsafe.Pointer(word32(l, pushTag+4)), uint32(tag>>32)); err != nil {
		return false, err
	}
	if binary.LittleEndian.Uint32(l[pushCount:]) != pushGvTable || binary.LittleEndian.Uint32(l[pushCode:]) != opCode(coll.OpGatherv) {
		return false, nil // not this call's table: the root reports what it finds
	}
	e := l[pushHdr+cmaRecSize+x.Rank()*pushGvEntry:]
	if binary.LittleEndian.Uint64(e) != uint64(len(b)) {
		return false, nil
	}
	err := peerBuf(l[pushHdr:pushHdr+cmaRecSize]).write(b, int(binary.LittleEndian.Uint64(e[8:])))
	runtime.KeepAlive(b)
	if err != nil {
		x.push.gvP2P = true // refused once: point to point from now on
		return false, nil
	}
	return true, nil
}

// pushGvRoot is the root's part of a pushed Gatherv once every line has
// been written: it copies the blocks in the lines, checks the counts of
// those already in its buffer, and posts the receives of those that come
// point to point into big, which the caller waits for (after its
// acknowledgement). big is the caller's, so that a call allocates nothing.
func pushGvRoot(x *collComm, a *coll.Args, lines []byte, tag uint64, par uint32, fail func(error), big *bigBlocks) {
	n, me := x.Size(), x.Rank()
	if a.Send != nil {
		copy(a.Recv[a.RecvDispls[me]:][:a.RecvCounts[me]], a.Send)
	}
	for r := range n {
		if r == me {
			continue
		}
		c, b, e := pushGLine(x, coll.OpGatherv, a, lines, r, tag, par)
		if e != nil {
			fail(e)
			continue
		}
		dst := a.Recv[a.RecvDispls[r]:][:a.RecvCounts[r]]
		switch c {
		case pushInBig:
			got := binary.LittleEndian.Uint64(pushLine(lines, r, par)[pushHdr:])
			if got != uint64(len(dst)) {
				fail(countMismatch(r, int(got), me, len(dst)))
				continue
			}
			copy(dst, pushBigArea(lines, n, r, par))
		case pushCMA, pushStep:
			got := binary.LittleEndian.Uint64(pushLine(lines, r, par)[pushHdr:])
			switch {
			case got != uint64(len(dst)):
				fail(countMismatch(r, int(got), me, len(dst)))
				if c == pushStep {
					big.irecv(x, make([]byte, got), r) // the sender sends all the same: take it
				}
			case c == pushStep:
				big.irecv(x, dst, r)
			}
		default:
			if int(c) != len(dst) {
				fail(countMismatch(r, int(c), me, len(dst)))
				continue
			}
			copy(dst, b)
		}
	}
	runtime.KeepAlive(a.Recv)
}

// pushGvLine says whether a line's count word is one of Gatherv's blocks
// that are not in the line.
func pushGvLine(c uint32) bool { return c == pushStep || c == pushCMA || c == pushInBig }

// pushGvTableMaxRanks: the table chooses Gatherv's push on 3 to this many
// ranks, at every size (Gatherv's size in the table is 0), where its whole
// loop was as short as "cma"'s or shorter: measured on 3, 4, 6 and 8 ranks
// against "cma" beside Open MPI (docs/PERFORMANCE.md, "Gatherv pushed at
// every size"). Beyond 8 ranks the slots have no push areas.
const pushGvTableMaxRanks = 8

// pushGvRule is Gatherv's push in the table, in front of "cma".
var pushGvRule = coll.Rule{MinRanks: pushMinRanks, MaxRanks: pushGvTableMaxRanks, Use: []string{"push"}}
