package coll

// Allreduce algorithms. They work in place on w, which holds the rank's
// contribution on entry and the result on return. m is the vector.

// allreduceRecursiveDoubling: in round k rank r swaps its whole partial result
// with r XOR 2^k and both combine, the lower run of ranks on the left, so
// after log₂p rounds all hold the result. For p that is not a power of two
// the extra ranks fold into a neighbour first and get the result back at the
// end (see fold). Few rounds, but the whole vector every round: for short
// vectors.
//
// Rounds: ⌊log₂p⌋, +2 if p is not a power of two.
// Cost: ⌊log₂p⌋(α + mβ + mγ), + 2α + 2mβ + mγ if p is not a power of two.
func allreduceRecursiveDoubling(p *proc, w []byte, op Op, tag int) {
	f := newFold(p.size)
	sb := getScratch(len(w))
	tmp := sb.b
	if nr := foldIn(p, f, w, tmp, op, tag); nr >= 0 {
		for mask := 1; mask < f.pof2; mask *= 2 {
			partner := nr ^ mask
			p.sendrecv(w, f.oldRank(partner), tmp, f.oldRank(partner), tag)
			if partner < nr {
				op.Apply(tmp, w)
			} else {
				op.combineLow(w, tmp)
			}
		}
	}
	foldOut(p, f, w, tag)
	p.putScratch(sb)
}

// allreduceRing: a ring reduce-scatter (after p−1 steps rank r holds chunk r
// of the result, see reduceScatterRing) followed by a ring allgather of the
// chunks. Bandwidth-optimal, 2(p−1) rounds: for long vectors. The partial
// results go round the ring, so the op must be commutative.
//
// Rounds: 2(p−1). Cost: 2(p−1)α + 2((p−1)/p)mβ + ((p−1)/p)mγ.
func allreduceRing(p *proc, w []byte, op Op, tag int) {
	l := chunks(w, split(len(w), op.ElemSize, p.size))
	reduceScatterRing(p, l, op, tag)
	allgatherRing(p, l, 0, tag+1)
}

// allreduceRabenseifner: reduce-scatter by recursive halving, then allgather
// by recursive doubling, which retraces the halving backwards. log₂p rounds
// each way and about 2m bytes per rank: the usual choice for medium and long
// vectors. Keeps rank order (see halve), so any op works.
//
// Rounds: 2⌊log₂p⌋, +2 if p is not a power of two.
// Cost: 2⌊log₂p⌋α + 2((p'−1)/p')mβ + ((p'−1)/p')mγ, p' = 2^⌊log₂p⌋;
// + 2α + 2mβ + mγ if p ≠ p'.
func allreduceRabenseifner(p *proc, w []byte, op Op, tag int) {
	f := newFold(p.size)
	sb := getScratch(len(w))
	tmp := sb.b
	if nr := foldIn(p, f, w, tmp, op, tag); nr >= 0 {
		off := offsets(split(len(w), op.ElemSize, f.pof2))
		lo, hi := halve(p, f, nr, w, tmp, off, op, true, tag)
		for mask := f.pof2 / 2; mask > 0; mask /= 2 { // the halving backwards
			width := hi - lo
			olo, ohi := hi, hi+width // the partner holds the neighbouring run
			if nr&mask != 0 {
				olo, ohi = lo-width, lo
			}
			partner := f.oldRank(nr ^ mask)
			p.sendrecv(w[off[lo]:off[hi]], partner, w[off[olo]:off[ohi]], partner, tag)
			lo, hi = min(lo, olo), max(hi, ohi)
		}
	}
	foldOut(p, f, w, tag)
	p.putScratch(sb)
}

// allreduceReduceBcast: a binomial reduce to rank 0, then a binomial
// broadcast. Twice the rounds of recursive doubling, but simple, and in rank
// order for any op.
//
// Rounds: 2⌈log₂p⌉. Cost: 2⌈log₂p⌉(α + mβ) + ⌈log₂p⌉mγ.
func allreduceReduceBcast(p *proc, w []byte, op Op, tag int) {
	reduceBinomial(p, w, w, op, 0, tag)
	bcastBinomial(p, w, 0, tag+2)
}
