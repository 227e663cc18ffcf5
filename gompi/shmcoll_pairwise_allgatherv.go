package gompi

import "github.com/gompi/gompi/coll"

// Allgatherv by the pairwise single copy ("cma_pairwise"): as Allgather's
// form, with the counts and displacements of the receive buffers published
// as Alltoallv's are (this rank's block for every peer: its own count at
// displacement 0 of its source; the peer's block here: RecvCounts and
// RecvDispls), so that a reader and a writer check each other's count. The
// "cma" form (shmcoll_cmav.go) meets twice and its closing step waits for
// the slowest reader of all; at 4 ranks, 256 KiB, Allgather's pairwise form
// took 137-141 µs where Allgatherv's "cma" took 333-353 and Open MPI 348-355
// (docs/PERFORMANCE.md, "Alltoall(v, w) on 3-4 ranks through the scratch
// half, Allgatherv pairwise").

var pwAllgatherv = &pwAlg{op: coll.OpAllgatherv, v: true, noSlots: true,
	summary: "as Allgather's cma_pairwise, every rank also publishing the count and displacement of each block in its receive buffer",
	cost:    "p−1 pairwise hand-offs + Σm − m copied once per rank, all ranks at once",
	source:  func(_, me int, a *coll.Args) []byte { return ownBlockV(me, a) },
	to:      func(_, me, _ int, a *coll.Args) []byte { return ownBlockV(me, a) },
	local: func(_, me int, a *coll.Args) error {
		if a.Send == nil {
			return nil // in place: the block is where it belongs
		}
		if c := a.RecvCounts[me]; len(a.Send) != c {
			return countMismatch(me, len(a.Send), me, c)
		}
		copy(a.Recv[a.RecvDispls[me]:][:len(a.Send)], a.Send)
		return nil
	},
	pairs: func(me, j int, a *coll.Args) (int, int, int, int) {
		return len(ownBlockV(me, a)), 0, a.RecvCounts[j], a.RecvDispls[j]
	},
}
