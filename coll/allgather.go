package coll

// Allgather and Allgatherv share their algorithms: every one works on a
// layout of per-rank blocks, equal (Allgather) or not (Allgatherv). m is one
// rank's block.

// allgatherRing: the blocks travel around a ring. In step s rank r passes the
// block it received in the step before (its own at first) to r+1 and receives
// a new one from r−1; after p−1 steps every rank has seen every block. Ranks
// are taken relative to origin (Bcast uses this with chunks indexed
// relative to its root). Each step moves one block per link: bandwidth-optimal.
//
// Rounds: p−1. Cost: (p−1)(α + mβ).
func allgatherRing(p *proc, l layout, origin, tag int) {
	n, vr := p.size, rel(p.rank, origin, p.size)
	next, prev := abs(vr+1, origin, n), abs(vr-1+n, origin, n)
	for s := range n - 1 {
		p.sendrecv(l.block((vr-s+n)%n), next, l.block((vr-s-1+2*n)%n), prev, tag)
	}
}

// allgatherRecursiveDoubling: in round k rank r swaps everything it has with
// r XOR 2^k, so the data held doubles every round: log₂p rounds for p a power
// of two. Otherwise the extra ranks first fold their block into a neighbour
// (see fold), and get the whole result from it at the end.
//
// Rounds: ⌊log₂p⌋, +2 if p is not a power of two.
// Cost: ⌊log₂p⌋α + (p−1)mβ, + 2α + (p+1)mβ if p is not a power of two.
func allgatherRecursiveDoubling(p *proc, l layout, tag int) {
	f, r := newFold(p.size), p.rank
	all := span(0, p.size)
	if r < 2*f.rem && r%2 == 0 {
		p.sendBlocks(l, []int{r}, r+1, tag)
		p.recvBlocks(l, all, r+1, tag)
		return
	}
	if r < 2*f.rem {
		p.recvBlocks(l, []int{r - 1}, r-1, tag)
	}
	nr := f.newRank(r)
	for mask := 1; mask < f.pof2; mask *= 2 {
		mine, theirs := nr&^(mask-1), (nr^mask)&^(mask-1) // first new ranks of the two groups
		partner := f.oldRank(nr ^ mask)
		p.exchangeBlocks(l, span(f.firstOld(mine), f.firstOld(mine+mask)), partner,
			l, span(f.firstOld(theirs), f.firstOld(theirs+mask)), partner, tag)
	}
	if r < 2*f.rem {
		p.sendBlocks(l, all, r-1, tag)
	}
}

// allgatherBruck: in round k rank r sends the 2^k blocks it has (its own and
// the next ones, mod p) to r−2^k and receives the next 2^k from r+2^k, so
// the run of blocks it holds doubles every round, for any p. Blocks land at
// their final places at once; a run that wraps around is packed.
//
// Rounds: ⌈log₂p⌉. Cost: ⌈log₂p⌉α + (p−1)mβ.
func allgatherBruck(p *proc, l layout, tag int) {
	n, r := p.size, p.rank
	for dist := 1; dist < n; dist *= 2 {
		cnt := min(dist, n-dist)
		p.exchangeBlocks(l, cyclic(r, cnt, n), p.mod(r-dist), l, cyclic(r+dist, cnt, n), p.mod(r+dist), tag)
	}
}

// allgatherGatherBcast: gather all blocks at rank 0 up a binomial tree, then
// broadcast the whole vector down a binomial tree. Simple, but the vector
// crosses ⌈log₂p⌉ links in the broadcast.
//
// Rounds: 2⌈log₂p⌉. Cost: 2⌈log₂p⌉α + (p−1)mβ + ⌈log₂p⌉pmβ.
func allgatherGatherBcast(p *proc, l layout, tag int) {
	all := span(0, p.size)
	packed, inPlace := l.view(all) // the vector, as one buffer in rank order
	var tmp *scratch
	if !inPlace {
		tmp = getScratch(l.bytes(all))
		packed = tmp.b
	}
	pl := chunks(packed, l.size)
	if !inPlace {
		copy(pl.block(p.rank), l.block(p.rank))
	}
	gatherTree(p, pl, 0, tag)
	bcastBinomial(p, packed, 0, tag+1)
	if !inPlace {
		l.unpack(all, packed)
		p.putScratch(tmp)
	}
}
