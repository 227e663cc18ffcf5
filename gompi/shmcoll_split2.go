package gompi

import (
	"runtime"

	"github.com/gompi/gompi/coll"
)

// The split single copy ("cma_split"): the rooted collectives on two ranks
// (Bcast, Scatter, Scatterv, Gather, Gatherv) with the block that crosses
// between the ranks moved by both of them at once. In "cma" only the rank
// that is not the root copies (a read or a write of the whole block) while
// the root waits; on this machine the time of process_vm_readv and
// process_vm_writev goes mostly into pinning the remote pages, a CPU's work
// per 4 KiB page, so two ranks on two CPUs that each move half take about
// half the time. Both ranks publish their side of the block (the root its
// buffer's range, the other rank its own buffer), meet, and copy: the other
// rank the first part (it reads it out of the root's buffer, or, Gather,
// writes it into the root's), the root the rest (the reverse direction:
// Bcast and Scatter write it into the other rank's buffer, Gather reads it
// out of the other rank's send buffer). The root of Scatter and Gather
// also copies its own block. A closing step keeps both buffers alive until both copies are done.
//
// One more step than "cma" (two meets against one rooted step) and two
// system calls instead of one, which a small block does not repay: the
// table has it from splitMin on. The shares are equal: the root of Scatter
// and Gather copies its own block besides, but a smaller root share (4 and 6
// sixteenths) measured no different within the noise.
//
// A copy the kernel refuses: the rank says so in the closing step, and the
// whole block goes again as one message. The two records must agree in
// length (each rank publishes the exact range it moves), else both ranks
// see the difference after the meet and return ErrMismatch without copying.
// Scatterv and Gatherv decide from their own counts (the root from its count
// for the other rank, the other rank from its buffer), as the line forms do
// (shmcoll_vline.go); their signature carries splitSig, so ranks that
// decided differently get ErrMismatch from the signature check.

// splitMin is where "cma_split" takes over from "cma" (Scatter: from
// "linear"; Scatterv's and Gatherv's blocks: from the slotted "cma"), in
// the operation's measure. Measured at 64 KiB-1 MiB (docs/PERFORMANCE.md,
// "Two ranks, both copying"): a clear gain at 1 MiB, a small one at 256 KiB,
// none that the noise did not cover below.
const splitMin = 256 << 10

// splitSig is the size field of the v-forms' signature here (theirs in
// "cma" is 0, in the line form 1).
const splitSig = 2

type splitAlg struct {
	op      coll.Operation
	summary string
	// sig is the size the signature carries.
	sig func(a *coll.Args) int
	// part is this rank's side of the block that crosses: at the root the
	// range of its buffer (the source of Bcast and Scatter, the destination
	// of Gather), at the other rank its own buffer.
	part func(me int, a *coll.Args) []byte
	// local copies the root's own block, nil if none.
	local func(me int, a *coll.Args)
	// share is the root's part of the block in sixteenths.
	share int
}

var splitAlgs = []*splitAlg{
	{op: coll.OpBcast, share: 8,
		summary: "two ranks: both publish the buffer and meet; the other rank reads the first half out of the root's buffer (process_vm_readv) while the root writes the second half into the other's (process_vm_writev); a closing step",
		sig:     func(a *coll.Args) int { return len(a.Recv) },
		part:    func(_ int, a *coll.Args) []byte { return a.Recv }},
	{op: coll.OpScatter, share: 8,
		summary: "two ranks: as Bcast's, with the other rank's block of the root's send buffer; the root copies its own block besides",
		sig:     func(a *coll.Args) int { return scatterBlock(2, a) },
		part: func(me int, a *coll.Args) []byte {
			if me != a.Root {
				return a.Recv
			}
			m := scatterBlock(2, a)
			return a.Send[(1-me)*m:][:m]
		},
		local: func(me int, a *coll.Args) {
			if a.Recv != nil { // nil: in place at the root
				m := len(a.Recv)
				copy(a.Recv, a.Send[me*m:(me+1)*m])
			}
		}},
	{op: coll.OpScatterv, share: 8,
		summary: "two ranks, a block of at least 256 KiB: as Scatter's (smaller blocks: shm from 8 KiB up to a slot, else cma)",
		sig:     func(*coll.Args) int { return splitSig },
		part: func(me int, a *coll.Args) []byte {
			if me != a.Root {
				return a.Recv
			}
			p := 1 - me
			return a.Send[a.SendDispls[p]:][:a.SendCounts[p]]
		},
		local: func(me int, a *coll.Args) {
			if a.Recv != nil {
				copy(a.Recv, a.Send[a.SendDispls[me]:][:a.SendCounts[me]])
			}
		}},
	{op: coll.OpGather, share: 8,
		summary: "two ranks: both publish and meet; the other rank writes the first half of its block into the root's buffer (process_vm_writev) while the root reads the second half (process_vm_readv) and copies its own block; a closing step",
		sig:     func(a *coll.Args) int { return gatherBlock(2, a) },
		part: func(me int, a *coll.Args) []byte {
			if me != a.Root {
				return a.Send
			}
			m := gatherBlock(2, a)
			return a.Recv[(1-me)*m:][:m]
		},
		local: func(me int, a *coll.Args) {
			if a.Send != nil { // nil: in place
				copy(a.Recv[me*len(a.Send):], a.Send)
			}
		}},
	{op: coll.OpGatherv, share: 8,
		summary: "two ranks, a block of at least 256 KiB: as Gather's (smaller blocks: shm from 8 KiB up to a slot, else cma)",
		sig:     func(*coll.Args) int { return splitSig },
		part: func(me int, a *coll.Args) []byte {
			if me != a.Root {
				return a.Send
			}
			p := 1 - me
			return a.Recv[a.RecvDispls[p]:][:a.RecvCounts[p]]
		},
		local: func(me int, a *coll.Args) {
			if a.Send != nil {
				copy(a.Recv[a.RecvDispls[me]:][:a.RecvCounts[me]], a.Send)
			}
		}},
}

// splitV reports whether op is one of the forms with per-rank counts.
func splitV(op coll.Operation) bool { return op == coll.OpScatterv || op == coll.OpGatherv }

// splitBlock is the size of the block that crosses as this rank knows it.
func splitBlock(s *splitAlg, me int, a *coll.Args) int { return len(s.part(me, a)) }

// installSplit registers the forms here as "cma_split" (available on two
// ranks only) and puts them first on two ranks from splitMin on; Scatterv
// and Gatherv, whose table has size 0, take every two-rank call and pass
// the smaller blocks to "cma".
func installSplit() error {
	for _, s := range splitAlgs {
		err := registerSingleCopy(s.op, "cma_split", s.summary,
			"2 shared barriers + half the block copied by each rank, both at once",
			cmaConstraints+"; two ranks; large data",
			func(x *collComm, n int, a *coll.Args) bool {
				return n == 2 && (a.Root == 0 || a.Root == 1) && n*(sigSize+cmaRecSize+1) <= x.c.c.ShmCapacity() &&
					(!splitV(s.op) || splitCMAv(s.op) != nil)
			},
			func(x *collComm, a *coll.Args) error { return runSplit(x, s, a) })
		if err != nil {
			return err
		}
		r := coll.Rule{MaxRanks: 2, MinBytes: splitMin, Use: []string{"cma_split"}}
		if splitV(s.op) {
			r.MinBytes = 0
		}
		if err := prefer(s.op, tierFirst, r); err != nil {
			return err
		}
	}
	return nil
}

// splitCMAv is the "cma" form of Scatterv or Gatherv: what runs the blocks
// below splitMin.
func splitCMAv(op coll.Operation) *cmavAlg {
	for _, s := range cmavAlgs {
		if s.op == op && s.name == "" {
			return s
		}
	}
	return nil
}

// splitCut is where the root's part of a block of m bytes begins: the
// other rank moves [0, cut), the root [cut, m). Cut at a 4 KiB multiple, so
// that no page of an aligned buffer is pinned by both.
func splitCut(m, share int) int {
	cut := m - m*share/16
	if m >= 16<<10 {
		cut &^= 4<<10 - 1
	}
	return cut
}

// runSplit runs one of the forms here.
func runSplit(x *collComm, s *splitAlg, a *coll.Args) error {
	me := x.Rank()
	if splitV(s.op) && splitBlock(s, me, a) < splitMin {
		if v := vShm2(x, s.op, splitBlock(s, me, a)); v != nil { // through the half (shmcoll_vshm2.go)
			return runShm(x, v, a)
		}
		return runCMAv(x, splitCMAv(s.op), a)
	}
	scratch, err := beginStep(x, s.op, uint32(int32(a.Root)), s.sig(a))
	if err != nil {
		return err
	}
	on, data, err := cmaAgree(x, scratch[2*sigSize:])
	if err != nil {
		return err
	}
	if !on {
		return coll.Call(x, s.op, a) // agreed off: this algorithm is no longer available
	}
	part := s.part(me, a)
	err = split(x, s, a, data, part)
	runtime.KeepAlive(part)
	leadNext(x, s.op, a.Root)
	return err
}

// split: publish, meet, copy each its part, close; repair.
func split(x *collComm, s *splitAlg, a *coll.Args, data, part []byte) error {
	me := x.Rank()
	p := 1 - me
	root := me == a.Root
	publishBufN(cmaRec(data, me), part, 2)
	if err := meet(x); err != nil {
		return err
	}
	peer := peerBuf(cmaRec(cmaData(x), p))
	m := len(part)
	if peer.len != m {
		if root == rootSends(s.op) { // this rank sends
			return countMismatch(me, m, p, peer.len)
		}
		return countMismatch(p, peer.len, me, m)
	}
	cut := splitCut(m, s.share)
	lo, hi := 0, cut
	if root {
		lo, hi = cut, m
	}
	// The source writes, the destination reads.
	var cerr error
	if root == rootSends(s.op) {
		cerr = peer.write(part[lo:hi], lo)
	} else {
		cerr = peer.read(part[lo:hi], lo)
	}
	if root && s.local != nil {
		s.local(me, a)
	}
	failed := cerr != nil
	flags, err := cmaClose(x, failed, true)
	if err != nil {
		return err
	}
	if flags[0] == 0 && flags[1] == 0 {
		return nil
	}
	// A copy failed: the whole block again, as a message.
	if root == rootSends(s.op) {
		return x.Send(part, p, cmaRepairTag)
	}
	return cmaRecvRepair(x, part, p)
}
