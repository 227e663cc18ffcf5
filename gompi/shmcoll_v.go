package gompi

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/gompi/gompi/coll"
)

// Shared-memory forms of the collectives with per-rank counts: Gatherv,
// Scatterv, Alltoallv, Alltoallw, Allgatherv and ReduceScatter. Through
// point-to-point algorithms a two-rank Gatherv of 8 bytes took 26 times
// Open MPI's time; here it is one shared step, as Gather.
//
// Selection must come out alike on every rank, and with Gatherv, Scatterv
// and Alltoallv/w a rank knows only its own counts: whether a call fits the
// scratch area cannot decide. So these forms take any call. Every rank
// (sender) owns a fixed slot per receiver; a block that fits its slot goes
// through it, and its count always does (a slot's header). A block too large
// for its slot goes point-to-point right after the step, and the receiver
// knows it from the header. Allgatherv and ReduceScatter, whose counts every
// rank knows, go through the scratch area only when the whole call fits.
//
// The signature of the slotted forms carries size 0 (the ranks' sizes
// differ); the receiver of a block checks its count against the header and
// reports ErrMismatch. Allgatherv and ReduceScatter put a hash of the counts
// in the signature's root word, so ranks that pass different counts get
// ErrMismatch.

// vTag is the point-to-point tag of the blocks too large for their slot.
const vTag = 0

// hdrSize is the count at the head of a slot.
const hdrSize = 8

// rootedSlot is the slot size of Gatherv and Scatterv: one slot per rank,
// cache-line aligned.
func rootedSlot(data []byte, n int) int { return len(data) / n &^ 63 }

// minRooted is what Gatherv and Scatterv need of the scratch area: a
// header and a cache line of data per rank.
func minRooted(n int, _ *coll.Args) int { return n * 128 }

// shmGatherv: every rank writes its count and, if it fits, its block into its
// slot and goes on; the root waits for all, copies the blocks that came
// through the slots and receives the others.
func shmGatherv(x *collComm, a *coll.Args, data []byte) error {
	n, me := x.Size(), x.Rank()
	q := rootedSlot(data, n)
	if me != a.Root {
		slot := data[me*q : (me+1)*q]
		binary.LittleEndian.PutUint64(slot, uint64(len(a.Send)))
		big := len(a.Send) > q-hdrSize
		if !big {
			copy(slot[hdrSize:], a.Send)
		}
		if err := x.c.c.ShmArrive(); err != nil {
			return err
		}
		if big {
			return x.Send(a.Send, a.Root, vTag)
		}
		return nil
	}
	if err := meetAsRoot(x); err != nil {
		return err
	}
	if a.Send != nil { // nil: in place, the root's block is there already
		copy(a.Recv[a.RecvDispls[me]:][:a.RecvCounts[me]], a.Send)
	}
	var bigs bigBlocks
	for r := range n {
		if r == me {
			continue
		}
		slot := data[r*q : (r+1)*q]
		c := int(binary.LittleEndian.Uint64(slot))
		dst, err := recvBlock(a.Recv, a.RecvCounts, a.RecvDispls, r, c, me)
		bigs.fail(err)
		if c <= q-hdrSize {
			copy(dst, slot[hdrSize:hdrSize+c])
		} else {
			bigs.irecv(x, dst, r)
		}
	}
	return bigs.wait()
}

// shmScatterv: the root writes every rank's count and, if it fits, its
// block into the rank's slot, posts and goes on to send the blocks too large
// for their slots; each rank waits for the root and copies its block, or
// receives it.
func shmScatterv(x *collComm, a *coll.Args, data []byte) error {
	n, me := x.Size(), x.Rank()
	q := rootedSlot(data, n)
	if me == a.Root {
		big := false
		for r := range n {
			if r == me {
				continue
			}
			slot := data[r*q : (r+1)*q]
			c := a.SendCounts[r]
			binary.LittleEndian.PutUint64(slot, uint64(c))
			if c <= q-hdrSize {
				copy(slot[hdrSize:], a.Send[a.SendDispls[r]:][:c])
			} else {
				big = true
			}
		}
		if err := x.c.c.ShmPost(); err != nil {
			return err
		}
		if a.Recv != nil { // nil: in place, the root's block stays in send
			copy(a.Recv, a.Send[a.SendDispls[me]:][:a.SendCounts[me]])
		}
		if !big {
			return nil
		}
		var bigs bigBlocks
		for r := range n {
			if c := a.SendCounts[r]; r != me && c > q-hdrSize {
				bigs.isend(x, a.Send[a.SendDispls[r]:][:c], r)
			}
		}
		return bigs.wait()
	}
	if err := awaitRoot(x, a.Root); err != nil {
		return err
	}
	slot := data[me*q : (me+1)*q]
	c := int(binary.LittleEndian.Uint64(slot))
	var err error
	dst := a.Recv
	if c != len(a.Recv) {
		err = countMismatch(a.Root, c, me, len(a.Recv))
		dst = make([]byte, c) // still take the block, so that the root is not left sending
	}
	if c <= q-hdrSize {
		copy(dst, slot[hdrSize:hdrSize+c])
	}
	if aerr := x.c.c.ShmArrive(); aerr != nil {
		return aerr
	}
	if c > q-hdrSize {
		if _, rerr := x.Recv(dst, a.Root, vTag); rerr != nil {
			return rerr
		}
	}
	return err
}

// alltoallSlots is the layout of Alltoallv's scratch: rank i's region of r
// bytes starts with n counts (the one for rank j at i*r + 8j), then n slots
// of s bytes (the one for rank j at i*r + 8n + j*s).
func alltoallSlots(data []byte, n int) (r, s int) {
	r = len(data) / n &^ 63
	return r, (r - hdrSize*n) / n &^ 7
}

// minAlltoallv: a count and 8 bytes of data per pair of ranks.
func minAlltoallv(n int, _ *coll.Args) int { return n * n * 2 * hdrSize }

// shmAlltoallv (Alltoallv and Alltoallw, whose counts are bytes already):
// every rank writes its counts and the blocks that fit into its region, all
// meet, and each copies its column; the blocks too large for their slots go
// point-to-point after the step.
func shmAlltoallv(x *collComm, a *coll.Args, data []byte) error {
	n, me := x.Size(), x.Rank()
	reg, s := alltoallSlots(data, n)
	send, scounts, sdispls := a.Send, a.SendCounts, a.SendDispls
	if send == nil { // in place: the blocks to send are in recv
		send, scounts, sdispls = a.Recv, a.RecvCounts, a.RecvDispls
	}
	mine := data[me*reg : (me+1)*reg]
	bigOut := false
	for j := range n {
		c := scounts[j]
		binary.LittleEndian.PutUint64(mine[j*hdrSize:], uint64(c))
		if c <= s {
			copy(mine[n*hdrSize+j*s:], send[sdispls[j]:][:c])
		} else {
			bigOut = true
		}
	}
	// In place, a large block must leave before the receives overwrite it.
	var outgoing [][]byte
	if bigOut && a.Send == nil {
		outgoing = make([][]byte, n)
		for j := range n {
			if c := scounts[j]; c > s {
				outgoing[j] = bytes.Clone(send[sdispls[j]:][:c])
			}
		}
	}
	if err := meet(x); err != nil {
		return err
	}
	var bigs bigBlocks
	for i := range n {
		theirs := data[i*reg : (i+1)*reg]
		c := int(binary.LittleEndian.Uint64(theirs[me*hdrSize:]))
		dst, err := recvBlock(a.Recv, a.RecvCounts, a.RecvDispls, i, c, me)
		bigs.fail(err)
		switch {
		case c <= s:
			copy(dst, theirs[n*hdrSize+me*s:][:c])
		case i == me && outgoing != nil:
			copy(dst, outgoing[me])
		case i == me:
			copy(dst, send[sdispls[me]:][:c])
		default:
			bigs.irecv(x, dst, i)
		}
	}
	for j := range n {
		if c := scounts[j]; j != me && c > s {
			blk := send[sdispls[j]:][:c]
			if outgoing != nil {
				blk = outgoing[j]
			}
			bigs.isend(x, blk, j)
		}
	}
	return bigs.wait()
}

// allgathervNeed: the blocks one after the other, -1 for counts that do not
// fit (checked at the call; here only their sum matters).
func allgathervNeed(_ int, a *coll.Args) int { return sumInts(a.RecvCounts) }

// shmAllgatherv: every rank writes its block at the sum of the counts before
// it, all meet, every rank copies all blocks to their displacements.
func shmAllgatherv(x *collComm, a *coll.Args, data []byte) error {
	n, me := x.Size(), x.Rank()
	counts, displs := a.RecvCounts, a.RecvDispls
	off := sumInts(counts[:me])
	if a.Send != nil {
		copy(data[off:], a.Send)
	} else {
		copy(data[off:], a.Recv[displs[me]:][:counts[me]])
	}
	if err := meet(x); err != nil {
		return err
	}
	off = 0
	for r := range n {
		if r != me || a.Send != nil {
			copy(a.Recv[displs[r]:][:counts[r]], data[off:off+counts[r]])
		}
		off += counts[r]
	}
	return nil
}

// reduceScatterNeed: every rank's whole vector.
func reduceScatterNeed(n int, a *coll.Args) int { return n * sumInts(a.RecvCounts) }

// shmReduceScatter: every rank writes its vector, all meet, and each folds
// its own part over all ranks in rank order.
func shmReduceScatter(x *collComm, a *coll.Args, data []byte) error {
	n, me := x.Size(), x.Rank()
	total := sumInts(a.RecvCounts)
	copy(data[me*total:], contribution(a)[:total])
	if err := meet(x); err != nil {
		return err
	}
	off, m := sumInts(a.RecvCounts[:me]), a.RecvCounts[me]
	out := a.Recv[:m]
	copy(out, data[(n-1)*total+off:][:m])
	for r := n - 2; r >= 0; r-- {
		a.Op.Apply(data[r*total+off:][:m], out)
	}
	return nil
}

// countsHash is the signature word of Allgatherv and ReduceScatter: FNV-1a
// of the counts, so that ranks passing different counts disagree.
func countsHash(a *coll.Args) uint32 {
	h := uint32(2166136261)
	for _, c := range a.RecvCounts {
		for k := 0; k < 64; k += 8 {
			h = (h ^ uint32(byte(c>>k))) * 16777619
		}
	}
	return h
}

func sumInts(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// recvBlock returns where the block of c bytes from rank src goes: its
// place in recv, or, when c is not the count this rank expects, a buffer of
// c bytes to take it into (so that the sender is not left waiting) and
// ErrMismatch.
func recvBlock(recv []byte, counts, displs []int, src, c, me int) ([]byte, error) {
	if c == counts[src] {
		return recv[displs[src]:][:c], nil
	}
	return make([]byte, c), countMismatch(src, c, me, counts[src])
}

func countMismatch(src, sent, me, expected int) error {
	return fmt.Errorf("%w: rank %d sends %d bytes to rank %d, which expects %d", coll.ErrMismatch, src, sent, me, expected)
}

// bigBlocks are the point-to-point transfers of the blocks too large for
// their slots, and the first error of the call.
type bigBlocks struct {
	reqs []coll.Request
	err  error
}

func (b *bigBlocks) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

func (b *bigBlocks) irecv(x *collComm, buf []byte, src int)  { b.add(x.Irecv(buf, src, vTag)) }
func (b *bigBlocks) isend(x *collComm, buf []byte, dest int) { b.add(x.Isend(buf, dest, vTag)) }

func (b *bigBlocks) add(r coll.Request, err error) {
	if err != nil {
		b.fail(err)
		return
	}
	b.reqs = append(b.reqs, r)
}

// wait waits for every transfer, then returns the first error.
func (b *bigBlocks) wait() error {
	for _, r := range b.reqs {
		if _, err := r.Wait(); err != nil {
			b.fail(err)
		}
	}
	return b.err
}

// The costs of the slotted forms (s: a scratch half).
const (
	costRootedSlots   = "1 shared barrier + 2 copies of the blocks within the slots (s/p bytes each); the others point-to-point"
	costAlltoallSlots = "1 shared barrier + 2 copies of the blocks within the slots (about s/p² bytes each); the others point-to-point"
)

var shmAlgsV = []*shmAlg{
	{op: coll.OpGatherv, summary: "every rank writes its count and, if it fits its slot, its block, and goes on; the root waits for all, copies the blocks and receives those too large for a slot",
		cost: costRootedSlots,
		need: minRooted, run: shmGatherv},
	{op: coll.OpScatterv, summary: "the root writes every count and the blocks that fit their slots and goes on; each rank waits for the root and copies its block, or receives one too large for its slot",
		cost: costRootedSlots,
		need: minRooted, run: shmScatterv},
	{op: coll.OpAlltoallv, summary: "every rank writes its counts and the blocks that fit their slots; all meet; each copies its column and exchanges the larger blocks point-to-point",
		cost: costAlltoallSlots,
		need: minAlltoallv, run: shmAlltoallv},
	{op: coll.OpAlltoallw, summary: "as Alltoallv (the counts are bytes): counts and small blocks through the slots, the larger blocks point-to-point",
		cost: costAlltoallSlots,
		need: minAlltoallv, run: shmAlltoallv},
	{op: coll.OpAllgatherv, summary: "every rank writes its block after those of the ranks before it; all meet; every rank copies them all",
		cost: "1 shared barrier + Σm written, p·Σm read",
		need: allgathervNeed, sigWord: countsHash, run: shmAllgatherv},
	{op: coll.OpReduceScatter, summary: "every rank writes its vector; each folds its own part over all ranks in rank order",
		cost: "1 shared barrier + p·Σm copied + (p−1)·m reduced per rank",
		need: reduceScatterNeed, sigWord: countsHash, run: shmReduceScatter},
}
