package gompi

import (
	"runtime"

	"github.com/gompi/gompi/coll"
)

// Single-copy reductions that push their results (issue 18). The first
// forms of Allreduce and Reduce (shmcoll_cmared.go's history) read the
// reduced blocks from their owners after a middle step: three shared steps,
// each needing every rank scheduled once, and at the root of a Reduce the
// p−1 reads one after the other. Here each rank writes its reduced block
// into the receive buffer of every rank that wants it
// (process_vm_writev), and the closing step is the only one after the
// opening: two steps, and the gather's copies done by p−1 ranks at once
// instead of one rank.
//
// Why the writes need no step of their own: rank r writes only block r of
// a peer's receive buffer. The peer's own fold writes its own block; and
// where the receive buffer is also the peer's input (in place), block r of
// that input is read by rank r alone (phase 1), which has read it before
// it writes. Every rank stays in the closing step until every write into
// its buffer is done and every read of its input too.
//
// Two-rank Reduce (cmaReduce2): the root reads the first part of the
// other's vector (5/8) and folds it while the other writes the rest
// of its vector into the root's buffer; after the closing step the root
// folds that part. The root folds everything (the other's CPU only
// copies), and the root's read and the other's write run at once.

// cmaAllreduce: phase 1 into this rank's block of recv, then that block
// into every peer's recv.
func cmaAllreduce(x *collComm, a *coll.Args, data []byte) error {
	n, me := x.Size(), x.Rank()
	in := contribution(a)
	recs, ran, err := redStart(x, coll.OpAllreduce, a, data, in, a.Recv)
	if ran {
		return err
	}
	off := elemOffsets(len(a.Recv), a.Op.ElemSize, n)
	lo, hi := off[me], off[me+1]
	mine, held := in[lo:hi], []*[]byte(nil)
	if a.Send == nil { // in place: phase 1 overwrites this rank's block
		s := getRedScratch(hi - lo)
		copy(*s, mine)
		mine, held = *s, append(held, s)
	}
	tmp := getRedScratch(min(hi-lo, redPiece))
	held = append(held, tmp)
	blk := a.Recv[lo:hi]
	err = foldBlock(x, a.Op, recs, 2, mine, lo, blk, *tmp)
	for i := 1; i < n && err == nil; i++ {
		r := (me + i) % n // start at different peers
		err = recs[2*r+1].write(blk, lo)
	}
	return closePushed(x, err, in, a.Recv, held)
}

// cmaReduce: on two ranks cmaReduce2; on more, where the root's landing
// buffer ((p−1)m) is at most reduceGatherMax, cmaReduceGather; else phase 1
// into this rank's block (the root's in its recv, the others' in scratch),
// then every other rank writes its block into the root's recv.
func cmaReduce(x *collComm, a *coll.Args, data []byte) error {
	n, me := x.Size(), x.Rank()
	if n == 2 {
		return cmaReduce2(x, a, data)
	}
	if (n-1)*len(contribution(a)) <= reduceGatherMax {
		return cmaReduceGather(x, a, data)
	}
	in := contribution(a)
	off := elemOffsets(len(in), a.Op.ElemSize, n)
	lo, hi := off[me], off[me+1]
	var held []*[]byte
	var out, published []byte
	if me == a.Root {
		out, published = a.Recv[lo:hi], a.Recv
	} else {
		s := getRedScratch(hi - lo)
		out, held = *s, append(held, s)
	}
	recs, ran, err := redStart(x, coll.OpReduce, a, data, in, published)
	if ran {
		return err
	}
	mine := in[lo:hi]
	if me == a.Root && a.Send == nil {
		s := getRedScratch(hi - lo)
		copy(*s, mine)
		mine, held = *s, append(held, s)
	}
	tmp := getRedScratch(min(hi-lo, redPiece))
	held = append(held, tmp)
	err = foldBlock(x, a.Op, recs, 2, mine, lo, out, *tmp)
	if me != a.Root && err == nil {
		err = recs[2*a.Root+1].write(out, lo)
	}
	return closePushed(x, err, in, a.Recv, held)
}

// reduce2Cut is where the root's part of a two-rank Reduce of m bytes ends
// and the other's begins: 5/8 of the vector, on a page boundary where the
// element size allows, so that neither copy pins a page the other pins
// too. The root reads and folds its part while the other only copies, and
// folds the other's part after the closing step. The bound was 3/7 (from
// reads and writes of about 15 GB/s and a fold of 40); measured side by
// side on the development VM (per-call p50, docs/PERFORMANCE.md, "Two-rank
// Exscan and Reduce, both copying"), the root's share of 5/8 took
// 0.75-0.82x the time of 3/7 at 64 KiB-1 MiB, 1/4 and 1/2 were slower and
// 3/4 to all of it no faster: the other's writev and the root's fold of
// what it wrote cost more than the root's own read.
func reduce2Cut(m, esize int) int {
	cut := m * 5 / 8 / esize * esize
	if 4096%esize == 0 && cut > 4096 {
		cut &^= 4095
	}
	return cut
}

// cmaReduce2 is Reduce on two ranks: the root reads [0, cut) of the other's
// vector and folds it while the other writes [cut, m) of its own into the
// root's landing buffer; the root folds that part after the closing step.
// The landing buffer is the root's recv where the fold can go there
// directly (landing), else scratch.
func cmaReduce2(x *collComm, a *coll.Args, data []byte) error {
	in := contribution(a)
	m, root := len(in), a.Root
	cut := reduce2Cut(m, a.Op.ElemSize)
	var held []*[]byte
	var land []byte // where the other's [cut, m) lands, at the root
	if x.Rank() == root {
		land, held = reduce2Landing(a, cut, m, held)
	}
	recs, ran, err := redStart(x, coll.OpReduce, a, data, in, land)
	if ran {
		return err
	}
	if x.Rank() != root {
		err = recs[2*root+1].write(in[cut:], 0)
		if err = redClose(x, err, true); err != nil { // the root reads [0, cut) of in
			return err
		}
		runtime.KeepAlive(in)
		return nil
	}
	var first []byte
	first, held = reduce2Landing(a, 0, cut, held)
	err = recs[2*(1-root)].read(first, 0)
	if err == nil {
		reduce2Fold(a, 0, cut, first)
	}
	if err = redClose(x, err, true); err != nil {
		return err
	}
	reduce2Fold(a, cut, m, land)
	runtime.KeepAlive(in)
	runtime.KeepAlive(a.Recv)
	putRedScratch(held...)
	return nil
}

// reduce2Direct says whether the other's part can land in the root's recv
// and be folded there: recv = mine ∘ other needs the root to be rank 0, or
// the operator commutative; and recv must not be the root's input.
func reduce2Direct(a *coll.Args) bool {
	return a.Send != nil && (a.Root == 0 || a.Op.Commutative)
}

// reduce2Landing returns where the other rank's [lo, hi) goes at the root:
// recv[lo:hi], or a scratch buffer (added to held).
func reduce2Landing(a *coll.Args, lo, hi int, held []*[]byte) ([]byte, []*[]byte) {
	if reduce2Direct(a) {
		return a.Recv[lo:hi], held
	}
	s := getRedScratch(hi - lo)
	return *s, append(held, s)
}

// reduce2Fold puts v₀ ∘ v₁ over [lo, hi) into the root's recv, the other's
// part having landed in land (reduce2Landing).
func reduce2Fold(a *coll.Args, lo, hi int, land []byte) {
	in := contribution(a)
	mine, recv := in[lo:hi], a.Recv[lo:hi]
	switch {
	case reduce2Direct(a): // land is recv: mine ∘ other, or other ∘ mine commuted
		a.Op.Apply(mine, recv)
	case a.Root == 1 && a.Send != nil: // recv = other ∘ mine, one pass
		a.Op.ApplyTo(recv, land, mine)
	case a.Root == 1: // in place: recv holds mine
		a.Op.Apply(land, recv)
	default: // root 0, in place or not: land = mine ∘ other, then into recv
		a.Op.Apply(mine, land)
		copy(recv, land)
	}
}

// reduceGatherMax bounds the scratch the root of cmaReduceGather takes;
// larger Reduces (1 MiB on more than 17 ranks, 8 MiB on more than 3) fold
// by blocks on every rank. Tests lower it to run that form.
var reduceGatherMax = 16 << 20

// closePushed ends cmaAllreduce's and the block form of cmaReduce: the
// closing step (every read of this rank's input and every write into its
// receive buffer done), then the scratch pieces go back to the pool.
func closePushed(x *collComm, err error, in, recv []byte, held []*[]byte) error {
	if err = redClose(x, err, true); err != nil {
		return err
	}
	runtime.KeepAlive(in)
	runtime.KeepAlive(recv)
	putRedScratch(held...)
	return nil
}
