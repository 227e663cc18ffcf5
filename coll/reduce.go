package coll

// Reduce algorithms, and the pieces of the recursive-halving family that
// Allreduce and ReduceScatter share. m is the vector, γ the cost of reducing
// one byte.

// reduceBinomial: contributions climb a binomial tree; a rank combines what
// its children send with its own value and sends the result to its parent.
// A commutative op uses the tree rooted at root; otherwise the tree is rooted
// at rank 0, where every subtree is a contiguous run of ranks so the result
// comes out in rank order, and rank 0 hands it to root.
//
// Rounds: ⌈log₂p⌉ (+1 for a non-commutative op and root ≠ 0).
// Cost: ⌈log₂p⌉(α + mβ + mγ) (+ α + mβ).
func reduceBinomial(p *proc, send, recv []byte, op Op, root, tag int) {
	n, r := p.size, p.rank
	top := root
	if !op.Commutative {
		top = 0
	}
	vr := rel(r, top, n)
	acc, own := send, false // acc is ours to change once own is set
	if r == root && r == top {
		copy(recv, send)
		acc, own = recv, true
	}
	// The copies come from the scratch pool: fresh memory per call cost
	// more than the message (page faults; see scratch.go).
	var accS, tmpS *scratch
	for mask := 1; mask < n; mask *= 2 {
		if vr&mask != 0 {
			p.send(acc, abs(vr-mask, top, n), tag)
			break
		}
		if c := vr + mask; c < n {
			if !own {
				accS = getScratch(len(acc))
				copy(accS.b, acc)
				acc, own = accS.b, true
			}
			if tmpS == nil {
				tmpS = getScratch(len(acc))
			}
			p.recv(tmpS.b, abs(c, top, n), tag)
			op.combineLow(acc, tmpS.b) // acc holds ranks [vr, c), tmp [c, c+mask)
		}
	}
	if top != root {
		if r == top {
			p.send(acc, root, tag+1)
		} else if r == root {
			p.recv(recv, top, tag+1)
		}
	}
	for _, sc := range [...]*scratch{accS, tmpS} {
		if sc != nil {
			p.putScratch(sc)
		}
	}
}

// reduceLinear: every rank sends its vector to the root, which combines them
// one by one, from the highest rank down so that each new one is the left
// operand: the result is x₀∘x₁∘…∘x_{p−1} for any op.
//
// Rounds: 1. Cost: (p−1)(α + mβ + mγ): the root receives and reduces one
// vector after the other.
func reduceLinear(p *proc, send, recv []byte, op Op, root, tag int) {
	if p.rank != root {
		p.send(send, root, tag)
		return
	}
	ownS, tmpS := getScratch(len(send)), getScratch(len(send))
	own, tmp := ownS.b, tmpS.b
	copy(own, send) // send may be recv (in place)
	defer func() { p.putScratch(ownS); p.putScratch(tmpS) }()
	for i := p.size - 1; i >= 0; i-- {
		x := own
		if i != root {
			p.recv(tmp, i, tag)
			x = tmp
		}
		if i == p.size-1 {
			copy(recv, x)
		} else {
			op.Apply(x, recv)
		}
	}
}

// foldIn is the first step of the recursive-doubling family for p that is not
// a power of two: among the first 2·rem ranks, each even rank sends its
// vector w to its odd neighbour, which sets w = w_even ∘ w_odd. It returns the
// rank's new rank, -1 for the even ranks, which then sit out.
func foldIn(p *proc, f fold, w, tmp []byte, op Op, tag int) int {
	if r := p.rank; r < 2*f.rem {
		if r%2 == 0 {
			p.send(w, r+1, tag)
			return -1
		}
		p.recv(tmp[:len(w)], r-1, tag)
		op.Apply(tmp[:len(w)], w)
	}
	return f.newRank(p.rank)
}

// foldOut is the last step: the odd ranks give the result w back to their
// even neighbours.
func foldOut(p *proc, f fold, w []byte, tag int) {
	if r := p.rank; r < 2*f.rem {
		if r%2 == 0 {
			p.recv(w, r+1, tag)
		} else {
			p.send(w, r-1, tag)
		}
	}
}

// halve is recursive halving (a reduce-scatter) among the pof2 new ranks of f.
// The vector w is cut into pof2 chunks (chunk i is w[off[i]:off[i+1]]). In
// each round a rank and its partner split the chunks they are working on:
// each sends the half it gives up and reduces the half it keeps with the
// partner's copy of it. It returns the chunk range [lo, hi) the rank holds
// fully reduced at the end (one chunk).
//
// With rising distances (partner nr XOR 1, then 2, 4...) a rank's partial
// results always cover a contiguous run of ranks, the partner's run lying
// below or above it, so the op is applied in rank order and any op works; rank
// nr ends with chunk bitreverse(nr). With falling distances rank nr ends
// with chunk nr, but runs are not contiguous: the op must be commutative.
func halve(p *proc, f fold, nr int, w, tmp []byte, off []int, op Op, rising bool, tag int) (lo, hi int) {
	lo, hi = 0, f.pof2
	mask, stop := 1, f.pof2
	if !rising {
		mask, stop = f.pof2/2, 0
	}
	for mask != stop {
		partner := nr ^ mask
		mid := (lo + hi) / 2
		keepLo, keepHi, giveLo, giveHi := lo, mid, mid, hi
		if nr > partner {
			keepLo, keepHi, giveLo, giveHi = mid, hi, lo, mid
		}
		keep, in := w[off[keepLo]:off[keepHi]], tmp[off[keepLo]:off[keepHi]]
		p.sendrecv(w[off[giveLo]:off[giveHi]], f.oldRank(partner), in, f.oldRank(partner), tag)
		if partner < nr {
			op.Apply(in, keep) // the partner's run is below ours
		} else {
			op.combineLow(keep, in)
		}
		lo, hi = keepLo, keepHi
		if rising {
			mask *= 2
		} else {
			mask /= 2
		}
	}
	return lo, hi
}

// offsets turns sizes into prefix sums: chunk i is [off[i], off[i+1]).
func offsets(sizes []int) []int {
	off := make([]int, len(sizes)+1)
	for i, s := range sizes {
		off[i+1] = off[i] + s
	}
	return off
}

// reduceRabenseifner: reduce-scatter by recursive halving, so that each rank
// holds 1/p of the result, then gather the pieces to the root by recursive
// doubling (the halving backwards). Each byte is sent about twice and reduced
// once: the algorithm for long vectors. Non-commutative ops stay in order
// (rising distances, see halve). The result gathers at the first new rank,
// which passes it to root if root is another rank.
//
// Rounds: 2⌊log₂p⌋, +1 if p is not a power of two, +1 if root is not the
// rank that gathers. Cost: 2⌊log₂p⌋α + 2((p'−1)/p')mβ + ((p'−1)/p')mγ, p' =
// 2^⌊log₂p⌋; + α + mβ + mγ if p ≠ p'; + α + mβ if root does not gather.
func reduceRabenseifner(p *proc, send, recv []byte, op Op, root, tag int) {
	f := newFold(p.size)
	w := recv
	if p.rank != root {
		wb := getScratch(len(send))
		defer p.putScratch(wb)
		w = wb.b
	}
	copy(w, send)
	sb := getScratch(len(w))
	tmp := sb.b
	if nr := foldIn(p, f, w, tmp, op, tag); nr >= 0 {
		off := offsets(split(len(w), op.ElemSize, f.pof2))
		lo, hi := halve(p, f, nr, w, tmp, off, op, true, tag)
		for mask := f.pof2 / 2; mask > 0; mask /= 2 { // gather the halves back to new rank 0
			width := hi - lo
			if nr&mask != 0 {
				p.send(w[off[lo]:off[hi]], f.oldRank(nr^mask), tag)
				break
			}
			p.recv(w[off[hi]:off[hi+width]], f.oldRank(nr^mask), tag)
			hi += width
		}
	}
	if top := f.oldRank(0); top != root {
		if p.rank == top {
			p.send(w, root, tag+1)
		} else if p.rank == root {
			p.recv(recv, top, tag+1)
		}
	}
	p.putScratch(sb)
}
