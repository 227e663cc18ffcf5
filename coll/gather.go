package coll

// Gather and scatter, regular and v. m is one rank's block.

// gatherTree gathers blocks up a binomial tree rooted at root: a rank first
// receives the blocks of its subtree from its children, nearest child first,
// then sends them all to its parent in one message. Blocks are indexed by
// rank relative to root, so every subtree is a contiguous index range; l must
// hold the rank's own subtree (the root: everything).
func gatherTree(p *proc, l layout, root, tag int) {
	n, vr := p.size, rel(p.rank, root, p.size)
	for mask := 1; mask < n; mask *= 2 {
		if vr&mask != 0 {
			p.sendBlocks(l, span(vr, min(vr+mask, n)), abs(vr-mask, root, n), tag)
			return
		}
		if c := vr + mask; c < n {
			p.recvBlocks(l, span(c, min(c+mask, n)), abs(c, root, n), tag)
		}
	}
}

// scatterTree is gatherTree backwards: a rank receives its subtree's blocks
// from its parent, then hands each child its subtree's blocks, farthest first.
func scatterTree(p *proc, l layout, root, tag int) {
	n, vr := p.size, rel(p.rank, root, p.size)
	mask := 1
	for ; mask < n; mask *= 2 {
		if vr&mask != 0 {
			p.recvBlocks(l, span(vr, min(vr+mask, n)), abs(vr-mask, root, n), tag)
			break
		}
	}
	for mask /= 2; mask > 0; mask /= 2 {
		if c := vr + mask; c < n {
			p.sendBlocks(l, span(c, min(c+mask, n)), abs(c, root, n), tag)
		}
	}
}

// subtree is the number of ranks in the binomial subtree of relative rank vr.
func subtree(vr, n int) int {
	if vr == 0 {
		return n
	}
	return min(vr&-vr, n-vr)
}

// treeLayout is where a rank keeps the blocks of its binomial subtree: the
// root in the user's buffer full (blocks at their ranks' places); a leaf needs
// only its own block own; an inner rank a temporary buffer from the pool, in
// relative order, which it gives back with p.putScratch(tmp) (tmp is nil
// where there is none).
func treeLayout(p *proc, full, own []byte, m, root int) (l layout, tmp *scratch) {
	n, vr := p.size, rel(p.rank, root, p.size)
	if p.rank == root {
		return blocks(full, n, func(v int) (int, int) { return abs(v, root, n) * m, m }), nil
	}
	sub := subtree(vr, n)
	buf := own
	if sub > 1 {
		tmp = getScratch(sub * m)
		buf = tmp.b
	}
	return blocks(buf, n, func(v int) (int, int) {
		if v < vr || v >= vr+sub {
			return 0, 0 // not in this subtree: never touched
		}
		return (v - vr) * m, m
	}), tmp
}

// gatherBinomial: the blocks climb a binomial tree to the root; a rank sends
// its whole subtree at once. Fewer messages than linear, but a byte travels
// up to ⌈log₂p⌉ times.
//
// Rounds: ⌈log₂p⌉. Cost: ⌈log₂p⌉α + (p−1)mβ.
func gatherBinomial(p *proc, send, recv []byte, m, root, tag int) {
	l, tmp := treeLayout(p, recv, send, m, root)
	// A leaf's block is send itself: copying it onto itself would write to
	// a buffer the caller lent for reading only (and race with any other
	// reader of it, such as a concurrent nonblocking collective).
	if b := l.block(rel(p.rank, root, p.size)); send != nil && len(b) > 0 && &b[0] != &send[0] {
		copy(b, send)
	}
	gatherTree(p, l, root, tag)
	p.putScratch(tmp)
}

// scatterBinomial: the blocks descend a binomial tree from the root; a rank
// receives its whole subtree at once and passes each child its part.
//
// Rounds: ⌈log₂p⌉. Cost: ⌈log₂p⌉α + (p−1)mβ.
func scatterBinomial(p *proc, send, recv []byte, m, root, tag int) {
	full := send
	if p.rank != root {
		full = nil
	}
	l, tmp := treeLayout(p, full, recv, m, root)
	scatterTree(p, l, root, tag)
	if recv != nil {
		copy(recv, l.block(rel(p.rank, root, p.size)))
	}
	p.putScratch(tmp)
}

// gathervLinear: every rank sends its block straight to the root, which posts
// all receives at once.
//
// Rounds: 1 (the root's p−1 receives are not serialized in the schedule).
// Cost: (p−1)(α + mβ): the root's link carries them one after the other.
func gathervLinear(p *proc, send []byte, l layout, root, tag int) {
	if p.rank != root {
		p.send(send, root, tag)
		return
	}
	reqs := make([]pending, 0, p.size-1)
	for i := range p.size {
		if i != root {
			reqs = append(reqs, p.irecv(l.block(i), i, tag))
		}
	}
	if send != nil {
		p.copyLocal(l.block(root), send)
	}
	p.wait(reqs...)
}

// scattervLinear: the root sends every rank its block in turn.
//
// Rounds: p−1. Cost: (p−1)(α + mβ).
func scattervLinear(p *proc, l layout, recv []byte, root, tag int) {
	if p.rank != root {
		p.recv(recv, root, tag)
		return
	}
	reqs := make([]pending, 0, p.size-1)
	for i := 1; i < p.size; i++ {
		dest := abs(i, root, p.size)
		reqs = append(reqs, p.isend(l.block(dest), dest, tag))
	}
	if recv != nil {
		p.copyLocal(recv, l.block(root))
	}
	p.wait(reqs...)
}
