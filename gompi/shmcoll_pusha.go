package gompi

import (
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/internal/shm"
)

// Alltoall and Allgather pushed into the readers' own lines ("push", on 3
// or more ranks, up to 32): every rank is the root of a Scatter
// (shmcoll_push.go) at once. Rank s writes its block for reader r at
// offset s·m of r's push line of the call's parity (Allgather: its own
// block to every reader), sets bit s in r's mask of all-to-all calls
// (pushAllMaskWord; the last writer wakes r) and goes on with the next
// reader; then it waits for its own mask to hold every other rank's bit,
// copies the blocks out, clears the mask and acknowledges the call on its
// line of acknowledgements. No step and no word shared by all ranks: each
// rank waits for the p−1 writes to its own line alone.
//
// Reuse of a line is a Scatter's: before writing into r's line of parity p
// a writer waits for r's acknowledgement of the last pushed call of that
// parity (none where a step has been released since, or where that call
// gathered: then for its root's acknowledgement as root alone, as runPush).
// A rank's line is read by that rank only, as after a Scatter; so the
// state left for the next call of the parity is a Scatter's (root −1), and
// a following gathering call's contributors need not wait. The mask is a
// word of its own (not the gathering calls' pushMaskWord), cleared by its
// reader before it acknowledges: the next writers of that parity wait for
// the acknowledgement.

// installPushA registers "push" for Alltoall and Allgather (not chosen by
// the table unless pushAllRule says so).
func installPushA() error {
	for _, op := range []coll.Operation{coll.OpAlltoall, coll.OpAllgather} {
		err := coll.Register(coll.Algorithm{
			Op: op, Name: "push",
			Summary:     "every rank writes each reader's block into that reader's own line of shared memory (all of a call's blocks to one reader: up to 616 bytes) and sets its bit in the reader's mask; each rank waits for its own mask alone",
			Cost:        coll.Cost{Formula: "p−1 blocks written and p−1 read per rank, no barrier"},
			Constraints: "all ranks on one host; blocking calls; 2 to 32 ranks; p blocks of a reader within 616 bytes",
			Available: func(c coll.Comm, a *coll.Args) bool {
				x, ok := c.(*collComm)
				return ok && !x.nonblocking && x.Size() >= 2 && x.Size() <= pushMaskRanks &&
					len(a.Recv) <= pushMax && x.c.c.ShmPushLines() != nil
			},
			Run: func(c coll.Comm, a *coll.Args) error { return runPushA(c.(*collComm), op, a) },
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// pushAllMaskWord returns rank r's mask of parity par for the all-to-all
// calls: after the gathering calls' masks in r's line of
// acknowledgements.
func pushAllMaskWord(lines []byte, n, r int, par uint32) *uint32 {
	return word32(lines, 2*n*shm.PushLineSize+r*shm.PushAckSize+40+4*int(par))
}

// runPushA runs one pushed Alltoall or Allgather.
func runPushA(x *collComm, op coll.Operation, a *coll.Args) error {
	eng := x.c.c
	lines := eng.ShmPushLines()
	x.push.n++
	if x.push.n == 0 {
		x.push.n = 1
	}
	seq := eng.ShmSeq()
	tag := uint64(uint32(seq))<<32 | uint64(x.push.n)
	par := x.push.n & 1
	prev, prevTag, prevG := x.push.seq[par], x.push.tag[par], x.push.root[par]
	x.push.seq[par], x.push.tag[par], x.push.root[par] = seq, tag, -1
	x.push.pend[par] = 0 // every writer waited for the last gathering call's root, this rank for every writer
	n, me := x.Size(), x.Rank()
	if prevTag != 0 && seq > prev && eng.ShmReady() {
		prevTag = 0
	}
	if prevTag != 0 && prevG >= 0 {
		if prevG != me {
			if err := pushFree(x, pushRootAckWord(lines, n, prevG, par), prevTag); err != nil {
				return err
			}
		}
		prevTag = 0
	}
	m := len(a.Recv) / n
	src := a.Send
	if src == nil {
		src = a.Recv // in place: every outgoing block is written before any incoming one
	}
	off := pushHdr + me*m
	bit := uint32(1) << uint(me)
	for i := 1; i < n; i++ {
		r := me + i
		if r >= n {
			r -= n
		}
		if prevTag != 0 {
			if err := pushFree(x, pushAckWord(lines, n, r, par), prevTag); err != nil {
				return err
			}
		}
		l := pushLine(lines, r, par)
		if op == coll.OpAlltoall {
			copy(l[off:off+m], src[r*m:(r+1)*m])
		} else if a.Send != nil {
			copy(l[off:off+m], a.Send)
		} else {
			copy(l[off:off+m], a.Recv[me*m:(me+1)*m])
		}
		mask := pushAllMaskWord(lines, n, r, par)
		full := pushFull(n, r)
		if old := atomic.OrUint32(mask, bit); (old|bit)&full == full {
			eng.ShmWakeWord(unsafe.Pointer(mask))
		}
	}
	if a.Send != nil {
		if op == coll.OpAlltoall {
			copy(a.Recv[me*m:(me+1)*m], a.Send[me*m:(me+1)*m])
		} else {
			copy(a.Recv[me*m:(me+1)*m], a.Send)
		}
	}
	mask := pushAllMaskWord(lines, n, me, par)
	full := pushFull(n, me)
	if v := atomic.LoadUint32(mask); v&full != full {
		if err := eng.ShmAwaitWord(unsafe.Pointer(mask), v|full); err != nil {
			return err
		}
	}
	l := pushLine(lines, me, par)
	for s := range n {
		if s != me {
			copy(a.Recv[s*m:(s+1)*m], l[pushHdr+s*m:])
		}
	}
	atomic.StoreUint32(mask, 0) // before the acknowledgement, after which the next bits come
	pushAcknowledge(x, pushAckWord(lines, n, me, par), tag)
	leadNext(x, op, -1)
	return nil
}
