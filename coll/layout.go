package coll

// This file holds the small pieces of structure the algorithms share: where
// blocks lie in a buffer, how to send a set of blocks as one message, and how
// recursive doubling folds a communicator whose size is not a power of two.

// A layout says where the blocks of a collective lie in one buffer: block i
// is buf[off[i] : off[i]+size[i]]. Blocks are indexed by rank, or by rank
// relative to a root. Messages carry sets of blocks; how a rank lays them out
// in memory is its own business, so a set that is not contiguous locally is
// packed into (or unpacked from) a temporary buffer, and the messages are the
// same whatever the layouts.
type layout struct {
	buf       []byte
	off, size []int
}

// blocks makes a layout of n blocks, block i at place(i).
func blocks(buf []byte, n int, place func(i int) (off, size int)) layout {
	l := layout{buf: buf, off: make([]int, n), size: make([]int, n)}
	for i := range n {
		l.off[i], l.size[i] = place(i)
	}
	return l
}

// uniform lays n blocks of m bytes out one after the other.
func uniform(buf []byte, n, m int) layout {
	return blocks(buf, n, func(i int) (int, int) { return i * m, m })
}

// varying lays blocks out by counts and displacements.
func varying(buf []byte, counts, displs []int) layout {
	return blocks(buf, len(counts), func(i int) (int, int) { return displs[i], counts[i] })
}

// chunks lays out consecutive blocks of the given sizes.
func chunks(buf []byte, sizes []int) layout {
	off := 0
	return blocks(buf, len(sizes), func(i int) (int, int) { off += sizes[i]; return off - sizes[i], sizes[i] })
}

// split divides m bytes of esize-byte elements into k sizes on element
// boundaries, the larger ones first.
func split(m, esize, k int) []int {
	elems := m / esize
	sizes := make([]int, k)
	for i := range sizes {
		sizes[i] = elems / k * esize
		if i < elems%k {
			sizes[i] += esize
		}
	}
	return sizes
}

func (l layout) block(i int) []byte { return l.buf[l.off[i] : l.off[i]+l.size[i]] }

// bytes is the length of the message that carries blocks idx.
func (l layout) bytes(idx []int) int {
	n := 0
	for _, i := range idx {
		n += l.size[i]
	}
	return n
}

// view returns blocks idx as one slice of buf if they lie there one after the
// other, in that order (empty blocks may lie anywhere).
func (l layout) view(idx []int) ([]byte, bool) {
	start, end := -1, -1
	for _, i := range idx {
		if l.size[i] == 0 {
			continue
		}
		if start < 0 {
			start, end = l.off[i], l.off[i]
		}
		if l.off[i] != end {
			return nil, false
		}
		end += l.size[i]
	}
	if start < 0 {
		return nil, true
	}
	return l.buf[start:end], true
}

// pack returns blocks idx as one message: a view of buf where possible, else
// a packed copy.
func (l layout) pack(idx []int) []byte {
	if v, ok := l.view(idx); ok {
		return v
	}
	return l.packCopy(idx)
}

// packCopy always copies, for a message whose blocks will be overwritten while
// it is in flight.
func (l layout) packCopy(idx []int) []byte {
	return l.packInto(make([]byte, 0, l.bytes(idx)), idx)
}

// packInto appends blocks idx to dst.
func (l layout) packInto(dst []byte, idx []int) []byte {
	for _, i := range idx {
		dst = append(dst, l.block(i)...)
	}
	return dst
}

// unpack copies a packed message into blocks idx.
func (l layout) unpack(idx []int, msg []byte) {
	for _, i := range idx {
		msg = msg[copy(l.block(i), msg):]
	}
}

// sendBlocks sends blocks idx of l as one message.
func (p *proc) sendBlocks(l layout, idx []int, dest, tag int) {
	p.send(l.pack(idx), dest, tag)
}

// recvBlocks receives one message into blocks idx of l.
func (p *proc) recvBlocks(l layout, idx []int, src, tag int) {
	if v, ok := l.view(idx); ok {
		p.recv(v, src, tag)
		return
	}
	tmp := getScratch(l.bytes(idx))
	p.recv(tmp.b, src, tag)
	l.unpack(idx, tmp.b)
	p.putScratch(tmp)
}

// exchangeBlocks sends blocks sidx of sl to dest while receiving blocks ridx
// of rl from src. The two sets must not overlap in memory.
func (p *proc) exchangeBlocks(sl layout, sidx []int, dest int, rl layout, ridx []int, src, tag int) {
	in, direct := rl.view(ridx)
	var tmp *scratch
	if !direct {
		tmp = getScratch(rl.bytes(ridx))
		in = tmp.b
	}
	p.sendrecv(sl.pack(sidx), dest, in, src, tag)
	if !direct {
		rl.unpack(ridx, in)
		p.putScratch(tmp)
	}
}

// span is the indices lo, lo+1, ..., hi-1.
func span(lo, hi int) []int {
	idx := make([]int, 0, max(hi-lo, 0))
	for i := lo; i < hi; i++ {
		idx = append(idx, i)
	}
	return idx
}

// cyclic is the count indices start, start+1, ... modulo n.
func cyclic(start, count, n int) []int {
	idx := make([]int, count)
	for j := range idx {
		idx[j] = (start + j) % n
	}
	return idx
}

// rel is rank r's position relative to root; abs is the inverse.
func rel(r, root, n int) int { return (r - root + n) % n }
func abs(v, root, n int) int { return (v + root) % n }

// A fold maps n ranks onto pof2, the largest power of two not above n, for the
// recursive-doubling family. The first 2·rem ranks (rem = n − pof2) pair up:
// the even rank of a pair hands its data to its odd neighbour before the main
// phase and gets the result back after it; the others take part directly.
// New ranks keep the order of old ones, and new rank k stands for a
// contiguous run of old ranks, so order-sensitive reductions stay in order.
type fold struct{ n, pof2, rem int }

func newFold(n int) fold {
	pof2 := 1
	for pof2*2 <= n {
		pof2 *= 2
	}
	return fold{n, pof2, n - pof2}
}

// newRank is r's rank among the pof2, or -1 if r sits the main phase out.
func (f fold) newRank(r int) int {
	switch {
	case r >= 2*f.rem:
		return r - f.rem
	case r%2 == 1:
		return r / 2
	}
	return -1
}

// oldRank is the rank that takes part as new rank k.
func (f fold) oldRank(k int) int {
	if k < f.rem {
		return 2*k + 1
	}
	return k + f.rem
}

// firstOld is the lowest old rank that new rank k stands for; firstOld(pof2) = n.
func (f fold) firstOld(k int) int {
	if k < f.rem {
		return 2 * k
	}
	return k + f.rem
}

// log2ceil is ⌈log₂ n⌉ for n ≥ 1; log2floor is ⌊log₂ n⌋.
func log2ceil(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

func log2floor(n int) int { return log2ceil(n+1) - 1 }
