package coll

// Bcast algorithms. m is the message size, p the number of ranks.

// bcastBinomial: the root sends the whole message to the rank half the
// communicator away, then to a quarter away, and so on; every rank that has
// the message does the same within its half. Ranks are taken relative to the
// root. The number of ranks holding the message doubles every round.
//
// Rounds: ⌈log₂p⌉. Cost: ⌈log₂p⌉(α + mβ).
func bcastBinomial(p *proc, buf []byte, root, tag int) {
	n, vr := p.size, rel(p.rank, root, p.size)
	mask := 1
	for ; mask < n; mask *= 2 { // receive from the parent: vr without its lowest set bit
		if vr&mask != 0 {
			p.recv(buf, abs(vr-mask, root, n), tag)
			break
		}
	}
	for mask /= 2; mask > 0; mask /= 2 { // send to the children, farthest first
		if vr+mask < n {
			p.send(buf, abs(vr+mask, root, n), tag)
		}
	}
}

// bcastLinear: the root sends the message to every other rank in turn.
//
// Rounds: p−1 (the root's sends leave one after the other). Cost: (p−1)(α + mβ).
func bcastLinear(p *proc, buf []byte, root, tag int) {
	if p.rank != root {
		p.recv(buf, root, tag)
		return
	}
	reqs := make([]pending, 0, p.size-1)
	for i := 1; i < p.size; i++ {
		reqs = append(reqs, p.isend(buf, abs(i, root, p.size), tag))
	}
	p.wait(reqs...)
}

// DefaultSegmentSize is the pipelining unit of the pipelined algorithms when
// the call gives none.
const DefaultSegmentSize = 8 << 10

// bcastChain: the ranks form a chain root → root+1 → … and the message flows
// down it in segments of s bytes, so that while rank i forwards segment j,
// rank i−1 already forwards segment j+1: a pipeline. The message is cut into
// k = ⌊m/s⌋+1 segments, the last one shorter than s (empty if s divides m);
// that short segment ends the stream, so a rank whose count differs from the
// root's notices it instead of waiting for segments that never come, and
// forwards exactly what it received.
//
// Rounds: p−2+k. Cost: (p−2+k)(α + min(s, m)β), k = ⌊m/s⌋+1.
func bcastChain(p *proc, buf []byte, root, seg, tag int) {
	n, vr := p.size, rel(p.rank, root, p.size)
	if n == 1 {
		return
	}
	next := -1
	if vr+1 < n {
		next = abs(vr+1, root, n)
	}
	var reqs []pending
	forward := func(b []byte) {
		if next >= 0 {
			reqs = append(reqs, p.isend(b, next, tag))
		}
	}
	if vr == 0 {
		for off := 0; ; off += seg {
			end := min(off+seg, len(buf))
			forward(buf[off:end])
			if end-off < seg {
				break
			}
		}
		p.wait(reqs...)
		return
	}
	prev := abs(vr-1, root, n)
	var spare []byte // receives segments that do not fit the rest of buf
	var spareS *scratch
	off := 0
	for {
		in := spare
		if len(buf)-off >= seg {
			in = buf[off : off+seg]
		} else if in == nil {
			spareS = getScratch(seg)
			spare = spareS.b
			in = spare
		} else {
			p.wait(reqs...) // spare is about to be reused: its last send must be done
			reqs = reqs[:0]
		}
		got, err := p.c.Recv(in, prev, tag)
		if err != nil { // e.g. a longer segment: end the stream here and downstream
			p.fail(prev, tag, err)
			forward(nil)
			break
		}
		if off < len(buf) && &in[0] != &buf[off] {
			copy(buf[off:], in[:got])
		}
		forward(in[:got])
		off += got
		if got < seg {
			break
		}
	}
	p.wait(reqs...)
	if spareS != nil {
		p.putScratch(spareS)
	}
	if off != len(buf) {
		p.checkRecv(off, nil, len(buf), prev, tag)
	}
}

// bcastScatterAllgather (van de Geijn): cut the message into p chunks, scatter
// them down a binomial tree so that (relative) rank i holds chunk i, then
// circulate the chunks around a ring until every rank has all. Each byte
// crosses about two links instead of log₂p, at the price of more messages:
// the algorithm for long messages.
//
// Rounds: ⌈log₂p⌉ + p − 1. Cost: (⌈log₂p⌉ + p − 1)α + 2((p−1)/p)mβ.
func bcastScatterAllgather(p *proc, buf []byte, root, tag int) {
	n := p.size
	l := chunks(buf, split(len(buf), 1, n)) // chunk i belongs to relative rank i
	scatterTree(p, l, root, tag)
	allgatherRing(p, l, root, tag+1)
}
