package coll

// Barrier algorithms. Messages are empty; only their order matters. Cost is in
// the α–β model: α per message on the critical path (β never appears).

// barrierDissemination: in round k every rank signals rank r+2^k and waits for
// rank r−2^k (mod p). After round k a rank has heard, directly or through
// others, from the 2^(k+1)−1 ranks before it, so after ⌈log₂p⌉ rounds from
// everyone. No special case for p that is not a power of two.
//
// Rounds: ⌈log₂p⌉. Cost: ⌈log₂p⌉α.
func barrierDissemination(p *proc, tag int) {
	for dist := 1; dist < p.size; dist *= 2 {
		p.sendrecv(nil, p.mod(p.rank+dist), nil, p.mod(p.rank-dist), tag)
	}
}

// barrierRecursiveDoubling: in round k rank r exchanges with r XOR 2^k, so
// that after log₂p rounds every rank has heard from all. For p that is not a
// power of two the extra ranks first fold into a neighbour (see fold) and are
// released by it at the end.
//
// Rounds: ⌊log₂p⌋, +2 if p is not a power of two. Cost: (⌊log₂p⌋ + 2·[p≠2^k])α.
func barrierRecursiveDoubling(p *proc, tag int) {
	f, r := newFold(p.size), p.rank
	if r < 2*f.rem && r%2 == 0 {
		p.send(nil, r+1, tag) // arrive through the neighbour...
		p.recv(nil, r+1, tag) // ...and wait for its release
		return
	}
	if r < 2*f.rem {
		p.recv(nil, r-1, tag)
	}
	nr := f.newRank(r)
	for mask := 1; mask < f.pof2; mask *= 2 {
		partner := f.oldRank(nr ^ mask)
		p.sendrecv(nil, partner, nil, partner, tag)
	}
	if r < 2*f.rem {
		p.send(nil, r-1, tag)
	}
}

// barrierLinear: a central counter. Every rank reports to rank 0; when 0 has
// heard from all it releases them one by one.
//
// Rounds: p (the releases leave rank 0 one after the other). Cost: 2(p−1)α.
func barrierLinear(p *proc, tag int) {
	if p.rank != 0 {
		p.send(nil, 0, tag)
		p.recv(nil, 0, tag)
		return
	}
	reqs := make([]pending, 0, p.size-1)
	for i := 1; i < p.size; i++ {
		reqs = append(reqs, p.irecv(nil, i, tag))
	}
	p.wait(reqs...)
	for i := 1; i < p.size; i++ {
		p.send(nil, i, tag)
	}
}

// barrierBinomial: the ranks report up a binomial tree to rank 0 (each waits
// for its children, then tells its parent), and rank 0 releases them down the
// same tree with an empty broadcast.
//
// Rounds: 2⌈log₂p⌉. Cost: 2⌈log₂p⌉α.
func barrierBinomial(p *proc, tag int) {
	for mask := 1; mask < p.size; mask *= 2 {
		if p.rank&mask != 0 {
			p.send(nil, p.rank-mask, tag)
			break
		}
		if p.rank+mask < p.size {
			p.recv(nil, p.rank+mask, tag)
		}
	}
	bcastBinomial(p, nil, 0, tag+1)
}
