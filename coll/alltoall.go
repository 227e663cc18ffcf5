package coll

// Alltoall, Alltoallv and Alltoallw. Block i of the send layout goes to rank
// i; block i of the receive layout comes from rank i. m is one block.

// alltoallPairwise: in step s rank r sends to r+s and receives from r−s, one
// block each way, so every link carries one block per step and no rank is
// the target of two messages at once.
//
// Rounds: p−1. Cost: (p−1)(α + mβ).
func alltoallPairwise(p *proc, sl, rl layout, tag int) {
	p.copyLocal(rl.block(p.rank), sl.block(p.rank))
	for s := 1; s < p.size; s++ {
		dest, src := p.mod(p.rank+s), p.mod(p.rank-s)
		p.sendrecv(sl.block(dest), dest, rl.block(src), src, tag)
	}
}

// alltoallLinear: post every receive and every send at once and wait for all;
// the network (or the runtime) decides the order. Sends start at r+1 so that
// not everybody hits rank 0 first.
//
// Rounds: p−1 (a rank's sends leave one after the other). Cost: (p−1)(α + mβ).
func alltoallLinear(p *proc, sl, rl layout, tag int) {
	reqs := make([]pending, 0, 2*p.size)
	for s := 1; s < p.size; s++ {
		src := p.mod(p.rank - s)
		reqs = append(reqs, p.irecv(rl.block(src), src, tag))
	}
	for s := 1; s < p.size; s++ {
		dest := p.mod(p.rank + s)
		reqs = append(reqs, p.isend(sl.block(dest), dest, tag))
	}
	p.copyLocal(rl.block(p.rank), sl.block(p.rank))
	p.wait(reqs...)
}

// alltoallBruck: rotate the blocks so that place i holds the block for rank
// r+i; in round k send every block whose place has bit k set to r+2^k and
// receive the same places from r−2^k; then place i holds the block from rank
// r−i, and a last local permutation puts it there. ⌈log₂p⌉ messages instead
// of p−1, each carrying about half the data: for small blocks.
//
// Rounds: ⌈log₂p⌉. Cost: ⌈log₂p⌉α + ⌈log₂p⌉(p/2)mβ.
func alltoallBruck(p *proc, send, recv []byte, m, tag int) {
	n, r := p.size, p.rank
	// Every round moves at most n blocks: the rotated blocks, the packed
	// message out and the one in all fit pooled buffers of n·m bytes.
	tmpS, outS, inS := getScratch(n*m), getScratch(n*m), getScratch(n*m)
	tl := uniform(tmpS.b, n, m)
	for i := range n {
		copy(tl.block(i), send[p.mod(r+i)*m:][:m])
	}
	for dist := 1; dist < n; dist *= 2 {
		var idx []int
		for i := range n {
			if i&dist != 0 {
				idx = append(idx, i)
			}
		}
		out := tl.packInto(outS.b[:0], idx)
		in := inS.b[:len(out)]
		p.sendrecv(out, p.mod(r+dist), in, p.mod(r-dist), tag)
		tl.unpack(idx, in)
	}
	for i := range n {
		copy(recv[p.mod(r-i)*m:][:m], tl.block(i))
	}
	p.putScratch(tmpS)
	p.putScratch(outS)
	p.putScratch(inS)
}
