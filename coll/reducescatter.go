package coll

// ReduceScatter and ReduceScatterBlock share their algorithms: block i of the
// layout (counts in rank order) is the part of the result that rank i gets.
// m is the whole vector.

// reduceScatterRing: partial results travel around a ring. In step s rank r
// sends its partial result of block r−s−1 to r+1 and adds the partial result
// of block r−s−2 that arrives from r−1 into its own; after p−1 steps block r
// has passed every rank and ends, complete, at rank r. A block is reduced in
// ring order starting after its owner, so the op must be commutative.
//
// Rounds: p−1. Cost: (p−1)α + ((p−1)/p)(mβ + mγ).
func reduceScatterRing(p *proc, l layout, op Op, tag int) {
	n, r := p.size, p.rank
	sb := getScratch(maxOf(l.size))
	tmp := sb.b
	for s := range n - 1 {
		out, in := (r-s-1+2*n)%n, (r-s-2+2*n)%n
		buf := tmp[:l.size[in]]
		p.sendrecv(l.block(out), p.mod(r+1), buf, p.mod(r-1), tag)
		op.Apply(buf, l.block(in))
	}
	p.putScratch(sb)
}

func maxOf(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// reduceScatterHalving: recursive halving with falling distances: in round k
// rank r and r XOR p/2^(k+1) split the blocks they work on, each sending the
// half the other keeps, so rank r ends with its own block after log₂p rounds.
// For p that is not a power of two the extra ranks fold in first and get their
// block from their neighbour at the end. Commutative ops only (see halve).
//
// Rounds: ⌊log₂p⌋, +2 if p is not a power of two.
// Cost: ⌊log₂p⌋α + ((p'−1)/p')(mβ + mγ), p' = 2^⌊log₂p⌋;
// + 2α + (m + m/p)β + mγ if p ≠ p'.
func reduceScatterHalving(p *proc, w []byte, counts []int, op Op, tag int) {
	f, r := newFold(p.size), p.rank
	sb := getScratch(len(w))
	tmp := sb.b
	l := chunks(w, counts)
	if nr := foldIn(p, f, w, tmp, op, tag); nr >= 0 {
		sizes := make([]int, f.pof2) // new rank k gets the blocks of the ranks it stands for
		for k := range sizes {
			sizes[k] = l.bytes(span(f.firstOld(k), f.firstOld(k+1)))
		}
		halve(p, f, nr, w, tmp, offsets(sizes), op, false, tag)
	}
	p.putScratch(sb)
	if r < 2*f.rem { // the odd rank hands its even neighbour its block
		if r%2 == 0 {
			p.recv(l.block(r), r+1, tag)
		} else {
			p.send(l.block(r-1), r-1, tag)
		}
	}
}

// reduceScatterReduceScatterv: a binomial reduce of the whole vector to rank
// 0, then a linear scatterv of the blocks. Keeps rank order for any op.
//
// Rounds: ⌈log₂p⌉ + p − 1. Cost: ⌈log₂p⌉(α + mβ + mγ) + (p−1)α + ((p−1)/p)mβ.
func reduceScatterReduceScatterv(p *proc, send, recv []byte, counts []int, op Op, tag int) {
	var full []byte
	if p.rank == 0 {
		fs := getScratch(len(send))
		defer p.putScratch(fs)
		full = fs.b
	}
	reduceBinomial(p, send, full, op, 0, tag)
	scattervLinear(p, chunks(full, counts), recv, 0, tag+2)
}
