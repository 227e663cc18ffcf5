package coll

import "sync"

// This file holds the adapters from Args to the parameters of the built-in
// algorithms, used by the catalog (catalog.go).

// run makes an Algorithm.Run from an algorithm body.
func run(body func(p *proc, a *Args)) func(Comm, *Args) error {
	return func(c Comm, a *Args) error {
		p := procPool.Get().(*proc)
		*p = proc{c: c, rank: c.Rank(), size: c.Size()}
		body(p, a)
		err := p.err
		*p = proc{}
		procPool.Put(p)
		return err
	}
}

// procPool keeps the per-call state of the algorithms: a small collective
// should not allocate.
var procPool = sync.Pool{New: func() any { return new(proc) }}

// contribution is the rank's input vector of a reduction: send, or recv in
// place.
func contribution(a *Args) []byte {
	if a.Send == nil {
		return a.Recv
	}
	return a.Send
}

// reduceSend is the contribution to Reduce: in place only at the root.
func reduceSend(p *proc, a *Args) []byte {
	if p.rank == a.Root {
		return contribution(a)
	}
	return a.Send
}

// work is a reduction's working vector, in recv: the contribution copied in.
func work(a *Args) []byte {
	copy(a.Recv, contribution(a))
	return a.Recv
}

// gatherBlock is the block size of Gather and Scatter on this rank.
func gatherBlock(p *proc, a *Args, full, own []byte) int {
	if p.rank == a.Root && own == nil {
		return len(full) / p.size
	}
	return len(own)
}

// allgatherLayout is the receive layout of Allgather(v), with the rank's own
// block copied in unless in place.
func allgatherLayout(p *proc, a *Args) layout {
	var l layout
	if a.RecvCounts != nil {
		l = varying(a.Recv, a.RecvCounts, a.RecvDispls)
	} else {
		l = uniform(a.Recv, p.size, len(a.Recv)/p.size)
	}
	if a.Send != nil {
		copy(l.block(p.rank), a.Send)
	}
	return l
}

// alltoallLayouts are the send and receive layouts of Alltoall(v/w); in place
// the send side is a copy of recv in a pooled buffer, tmp, which the caller
// gives back with p.putScratch (nil otherwise).
func alltoallLayouts(p *proc, a *Args) (send, recv layout, tmp *scratch) {
	sbuf, scounts, sdispls := a.Send, a.SendCounts, a.SendDispls
	if sbuf == nil {
		tmp = getScratch(len(a.Recv))
		copy(tmp.b, a.Recv)
		sbuf, scounts, sdispls = tmp.b, a.RecvCounts, a.RecvDispls
	}
	if a.RecvCounts == nil {
		m := len(a.Recv) / p.size
		return uniform(sbuf, p.size, m), uniform(a.Recv, p.size, m), tmp
	}
	return varying(sbuf, scounts, sdispls), varying(a.Recv, a.RecvCounts, a.RecvDispls), tmp
}

// reduceScatterCounts are the per-rank result sizes of ReduceScatter(Block).
func reduceScatterCounts(p *proc, a *Args) []int {
	if a.RecvCounts != nil {
		return a.RecvCounts
	}
	block := len(a.Recv)
	if a.Send == nil {
		block /= p.size
	}
	counts := make([]int, p.size)
	for i := range counts {
		counts[i] = block
	}
	return counts
}

// reduceScatterWith runs an algorithm that reduces the whole vector w in
// place and leaves the rank's block of it reduced, then moves that block to
// the start of recv.
func reduceScatterWith(alg func(p *proc, w []byte, counts []int, op Op)) func(p *proc, a *Args) {
	return func(p *proc, a *Args) {
		counts := reduceScatterCounts(p, a)
		w := a.Recv // in place: recv holds the whole vector
		if a.Send != nil {
			// A pooled copy: fresh memory per call cost more than the
			// messages (page faults; see scratch.go).
			ws := getScratch(len(a.Send))
			defer p.putScratch(ws)
			w = ws.b
			copy(w, a.Send)
		}
		alg(p, w, counts, a.Op)
		l := chunks(w, counts)
		copy(a.Recv[:counts[p.rank]], l.block(p.rank))
	}
}

func segmentSize(a *Args) int {
	if a.SegmentSize > 0 {
		return a.SegmentSize
	}
	return DefaultSegmentSize
}
