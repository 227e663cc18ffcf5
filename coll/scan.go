package coll

// Scan (inclusive prefix reduction) and Exscan (exclusive: rank r gets
// x₀∘…∘x_{r−1}, rank 0 gets nothing and its recv is left as it was). m is the
// vector.

// scanRecursiveDoubling: in round k rank r swaps with r XOR 2^k the reduction
// of its aligned run of 2^k ranks ("partial"); a rank that hears from a lower
// run adds it on the left of both its partial and its result, one that hears
// from a higher run only to its partial. ⌈log₂p⌉ rounds, any p, any op.
// In the last round partials are not needed after it, so only the lower
// rank of a pair sends and only the higher one folds: on two ranks the scan
// is one message and one fold, not an exchange and three folds.
//
// Rounds: ⌈log₂p⌉. Cost: ⌈log₂p⌉(α + mβ + 2mγ) − mγ at most.
func scanRecursiveDoubling(p *proc, send, recv []byte, op Op, inclusive bool, tag int) {
	r := p.rank
	partialS, tmpS := getScratch(len(send)), getScratch(len(send))
	defer func() { p.putScratch(partialS); p.putScratch(tmpS) }()
	partial, tmp := partialS.b, tmpS.b
	copy(partial, send)
	have := inclusive // whether recv holds a value yet
	if inclusive {
		copy(recv, send)
	}
	for mask := 1; mask < p.size; mask *= 2 {
		partner := r ^ mask
		if partner >= p.size {
			continue
		}
		if mask*2 >= p.size { // the last round: partials are not needed after it
			if partner > r {
				p.send(partial, partner, tag) // the lower run's prefix, for the higher
				continue
			}
			p.recv(tmp, partner, tag)
		} else {
			p.sendrecv(partial, partner, tmp, partner, tag)
		}
		if partner > r {
			op.combineLow(partial, tmp)
			continue
		}
		if have {
			op.Apply(tmp, recv)
		} else {
			copy(recv, tmp)
			have = true
		}
		if mask*2 < p.size {
			op.Apply(tmp, partial)
		}
	}
}

// scanLinear: rank r waits for the prefix x₀∘…∘x_{r−1} from r−1, appends its
// own value and passes the new prefix to r+1: a chain.
//
// Rounds: p−1. Cost: (p−1)(α + mβ + mγ).
func scanLinear(p *proc, send, recv []byte, op Op, inclusive bool, tag int) {
	r, n := p.rank, p.size
	accS := getScratch(len(send))
	defer p.putScratch(accS)
	acc := accS.b
	copy(acc, send) // send may be recv (in place)
	if r > 0 {
		prefixS := getScratch(len(send))
		defer p.putScratch(prefixS)
		prefix := prefixS.b
		p.recv(prefix, r-1, tag)
		op.Apply(prefix, acc)
		if !inclusive {
			copy(recv, prefix)
		}
	}
	if r < n-1 {
		p.send(acc, r+1, tag)
	}
	if inclusive {
		copy(recv, acc)
	}
}
