package gompi

import (
	"encoding/binary"
	"fmt"

	"github.com/gompi/gompi/coll"
)

// The shared-memory algorithms ("shm"): for a communicator whose ranks all
// run on this host, each rank writes its part into the communicator's
// scratch area in the segment, all meet at one barrier (a counter and a futex
// word), and each reads what it needs. One synchronization per collective
// instead of log p or p message steps: what matters when ranks outnumber
// cores, where every message step costs a scheduler wake-up.
//
// Every rank also writes a signature (operation, size, root); after the
// barrier each checks them all, so ranks that disagree get ErrMismatch.
// Nonblocking collectives do not use these algorithms (their order of
// execution is not the call order).

const sigSize = 16

type shmAlg struct {
	op      coll.Operation
	summary string
	cost    string
	need    func(n int, a *coll.Args) int // data bytes needed, -1 if not applicable
	// pieces: the algorithm sends data of any size through the scratch
	// halves in pieces (need is not used), and its signature carries the
	// size of the whole receive buffer.
	pieces bool
	// sigWord, if set, fills the signature's root word (operations without
	// a root): a hash of what else the ranks must agree on (the counts).
	sigWord func(a *coll.Args) uint32
	run     func(x *collComm, a *coll.Args, data []byte) error
	// What the call path would otherwise work out per call, set once at
	// start-up for the algorithms it knows (shmcoll_call.go); zero: work it
	// out.
	pre shmPre
}

// sigBytes is the size a rank's signature carries; dataBytes what the data
// take of one scratch half (-1: the call does not fit).
func (s *shmAlg) sigBytes(n int, a *coll.Args) int {
	if s.pieces {
		return len(a.Recv)
	}
	return s.need(n, a)
}

func (s *shmAlg) dataBytes(n int, a *coll.Args) int {
	if s.pieces {
		return 0
	}
	return s.need(n, a)
}

// shmPreferred says where the selection table tries the shared-memory
// algorithm first: calls of at most maxBytes (in the operation's own measure,
// see coll.Operation.SizeMeaning) on at least minRanks ranks; an operation
// may have several entries, applied in order. Elsewhere the point-to-point
// algorithms win (large data are better copied once than through the scratch
// area), and where the data do not fit the scratch area the next rule that
// matches runs (selection.go). Measured on 2 cores with 2..64 ranks, in
// steady state (10^4..10^5 calls): docs/PERFORMANCE.md, "Collectives".
var shmPreferred = []struct {
	op                 coll.Operation
	minRanks, maxBytes int
}{
	{coll.OpBarrier, 1, 1},
	{coll.OpBcast, 1, 32 << 10}, // two ranks: one message beats two copies above
	{coll.OpBcast, 3, 1 << 20},
	// The reductions, Gather and Scatter: wherever the call fits the
	// scratch area (the bound only says "any size"; a call that does not
	// fit takes the next rule that matches). Measured at 2-16 KiB on 2, 4
	// and 8 ranks after the full sweep: 1.4-38x faster than the
	// point-to-point algorithms and "cma" where it fits
	// (docs/PERFORMANCE.md, "Tuning after the full sweep"); at 32 KiB,
	// which fits on up to 8 ranks since the scratch halves grew, 0.1-0.9x
	// Open MPI on 4 and 8 ranks ("Scratch halves that hold 32 KiB blocks").
	{coll.OpAllreduce, 1, 64 << 10},
	{coll.OpReduce, 1, 64 << 10},
	{coll.OpScan, 1, 64 << 10},
	{coll.OpExscan, 1, 64 << 10},
	{coll.OpAllgather, 1, 1 << 20}, // in pieces, as Bcast
	{coll.OpGather, 1, 64 << 10},
	{coll.OpScatter, 1, 64 << 10},
	{coll.OpAlltoall, 1, 1 << 10},
	// Reduce_scatter(_block) where it fits (every rank's whole vector):
	// two ranks 4 KiB 1.9 µs against recursive halving's 2.5, 16 KiB 3.1
	// against 7.4 (PERFORMANCE.md, "Large reductions: vector folds, pushed
	// results"); since the halves grew, 32 KiB fits on 2-8 ranks: shm 4.8-5.2
	// µs against cma 6.2-6.6 on two, 18-21 against cma 70-73 on four, 51-75
	// against 251-279 on eight (tune, min of 5, after merging).
	{coll.OpReduceScatterBlock, 1, 64 << 10},
	// The forms with per-rank counts (shmcoll_v.go). Gatherv, Scatterv and
	// Alltoallv/w have size 0 (no rank knows all counts) and take any call:
	// the blocks too large for their slots go point-to-point after the step.
	{coll.OpGatherv, 1, 1},
	{coll.OpScatterv, 1, 1},
	{coll.OpAlltoallv, 1, 1},
	{coll.OpAlltoallw, 1, 1},
	// Allgatherv where it fits: at 32 KiB on 4 and 8 ranks shm took 54 and
	// 128 µs against recursive doubling's 290 and 1299 (Open MPI 237, 677).
	{coll.OpAllgatherv, 1, 64 << 10},
	{coll.OpReduceScatter, 1, 64 << 10}, // as Reduce_scatter_block
}

// registerShm adds the shared-memory algorithms to package coll's registry
// under the name "shm". They are available only on the runtime's own
// communicators (not when coll runs over a simulator or another transport),
// for blocking calls, on a communicator with a scratch area in the host's
// segment that holds the call. Where selection tries them first is
// preferShmWhereFaster's business; installCollectives (collectives.go) calls
// both.
func registerShm() error {
	for _, s := range append(shmAlgs[:len(shmAlgs):len(shmAlgs)], shmAlgsV...) {
		err := coll.Register(coll.Algorithm{
			Op: s.op, Name: "shm", Summary: s.summary,
			Cost:        coll.Cost{Formula: s.cost},
			Constraints: "all ranks on one host; blocking calls; data within the communicator's scratch area",
			Available: func(c coll.Comm, a *coll.Args) bool {
				x, ok := c.(*collComm)
				if !ok || x.nonblocking {
					return false
				}
				need := s.dataBytes(x.Size(), a)
				return need >= 0 && x.Size()*sigSize+need <= x.c.c.ShmCapacity()
			},
			Run: func(c coll.Comm, a *coll.Args) error { return runShm(c.(*collComm), s, a) },
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// preferShmWhereFaster puts "shm" first in the selection table where
// shmPreferred says it wins: in front of single copy for the forms that run
// only where the call fits the scratch area (tierFit), behind it for those
// that take any size in pieces (tierPieces: Bcast, Allgather), see
// selection.go.
func preferShmWhereFaster() error {
	for _, p := range shmPreferred {
		tier := tierFit
		if shmInPieces(p.op) {
			tier = tierPieces
		}
		minRanks := p.minRanks
		if minRanks <= 1 {
			minRanks = 0
		}
		r := coll.Rule{MinRanks: minRanks, MaxBytes: p.maxBytes, Use: []string{"shm"}}
		if err := prefer(p.op, tier, r); err != nil {
			return err
		}
	}
	return nil
}

// shmInPieces reports whether op's shm algorithm takes any size in pieces.
func shmInPieces(op coll.Operation) bool {
	for _, s := range shmAlgs {
		if s.op == op {
			return s.pieces
		}
	}
	return false
}

// runShm runs one shared-memory collective: write, meet, check, read.
func runShm(x *collComm, s *shmAlg, a *coll.Args) error {
	pre := s.prepared()
	n := x.Size()
	if n == 2 && pre.pairV {
		if done, err := runPairV(x, s.op, a); done { // small per-count blocks on the lines (shmcoll_vline.go)
			return err
		}
	}
	// The last step may still be open (a rooted collective's root or
	// contributor returns before the others have read): beginStep waits for
	// it before writing into the scratch area.
	word := uint32(int32(a.Root))
	if s.sigWord != nil {
		word = s.sigWord(a)
	}
	if n == 2 && pre.code == codeBarrier {
		if done, err := barrierAhead(x, pre.code, word); done { // shmcoll_barrier2.go
			leadNextPre(x, pre.lead, a.Root)
			return err
		}
	}
	scratch, err := beginStepCode(x, pre.code, word, s.sigBytes(n, a))
	if err != nil {
		return err
	}
	data := scratch[n*sigSize:]
	x.line.on = false // whatever an earlier call (one that panicked) left
	if n == 2 && pre.lines {
		if d, ok := startLine(x, s, a); ok {
			data = d // small data go beside the arrival words (shmcoll_line.go)
		}
	}
	err = s.run(x, a, data)
	x.line.on = false
	leadNextPre(x, pre.lead, a.Root)
	return err
}

// beginStep starts a collective's step on the communicator's scratch area
// (runShm, runCMA, runCMAv): it waits for the last step to close, then
// writes this rank's signature (op, word, size), and returns the area.
func beginStep(x *collComm, op coll.Operation, word uint32, size int) ([]byte, error) {
	return beginStepCode(x, opCode(op), word, size)
}

// beginStepCode is beginStep for an operation whose code (opCode) the
// caller has at hand.
func beginStepCode(x *collComm, code, word uint32, size int) ([]byte, error) {
	if err := x.c.c.ShmBegin(); err != nil {
		return nil, err
	}
	scratch := x.c.c.ShmScratch()
	me := x.Rank()
	writeSigCode(scratch[me*sigSize:(me+1)*sigSize], code, word, size)
	return scratch, nil
}

// leadNext orders who leaves the next barrier: first the root of a
// collective whose data flow from it, so that when the collective comes
// again the readers find its data posted instead of waiting for a context
// switch that gives the root a CPU; last the root of one whose data flow to
// it, so that the root finds the blocks posted (shmlead.go,
// internal/core/shmleave.go); nobody otherwise. The engine follows the
// order only when the leave orders are on (GOMPI_SHM_LEAD=1): measured as a
// whole loop they moved the root's wait into the barrier without making
// the pair faster (docs/PERFORMANCE.md, "The leave orders measured as a
// whole loop").
func leadNext(x *collComm, op coll.Operation, root int) {
	switch {
	case rootSends(op):
		x.c.c.ShmLeadNext(root)
	case rootReceives(op):
		x.c.c.ShmLeadLast(root)
	default:
		x.c.c.ShmLeadNext(-1)
	}
}

// rootSends reports whether op's data flow from its root to the others.
func rootSends(op coll.Operation) bool {
	return op == coll.OpBcast || op == coll.OpScatter || op == coll.OpScatterv
}

// writeSig writes a rank's signature of a call: operation, a word (the
// root, or what the algorithm's sigWord says) and size.
//
// It writes only if the signature there differs: the signatures of all ranks
// share a cache line, and a store takes the line from every other rank's
// cache, so a loop of the same call would otherwise pay two extra cache-line
// hand-offs per step (one to write, one for the others to read); a line that
// nobody writes stays in every cache (see docs/PERFORMANCE.md, "Two ranks:
// the signature line").
func writeSig(sig []byte, op coll.Operation, word uint32, size int) {
	writeSigCode(sig, opCode(op), word, size)
}

// writeSigCode is writeSig with the operation's code (opCode).
func writeSigCode(sig []byte, code, word uint32, size int) {
	lo, hi := uint64(code)|uint64(word)<<32, uint64(size)
	if binary.LittleEndian.Uint64(sig[0:]) != lo || binary.LittleEndian.Uint64(sig[8:sigSize]) != hi {
		binary.LittleEndian.PutUint64(sig[0:], lo)
		binary.LittleEndian.PutUint64(sig[8:], hi)
	}
}

// sameSig reports whether signatures a and b are equal (two loads each
// instead of a call of memequal).
func sameSig(a, b []byte) bool {
	return binary.LittleEndian.Uint64(a[0:]) == binary.LittleEndian.Uint64(b[0:]) &&
		binary.LittleEndian.Uint64(a[8:sigSize]) == binary.LittleEndian.Uint64(b[8:sigSize])
}

// storeIfChanged copies src into dst unless dst already holds it (see
// writeSig).
func storeIfChanged(dst, src []byte) {
	if string(dst) != string(src) {
		copy(dst, src)
	}
}

// shmBcast sends the message through the scratch halves in pieces: the root
// writes piece k into the half of step k, all meet, the others copy it out.
// Writing piece k+2 into the half of piece k is safe for the reason any
// collective k+2 may reuse the half of collective k: every rank arrived at
// step k+1 only after it had copied piece k out.
//
// A message that fits one half goes as a rooted step: the root writes it,
// posts and returns; each reader waits for the post, not for the others,
// copies it out and arrives. Nobody waits for the slowest rank.
func shmBcast(x *collComm, a *coll.Args, data []byte) error {
	me := x.Rank()
	msg := a.Recv
	if len(msg) <= len(data) {
		if me == a.Root {
			scratchCopy(x.Size(), data, msg)
			return post(x)
		}
		if err := awaitRoot(x, a.Root); err != nil {
			return err
		}
		copy(msg, data[:len(msg)])
		return arrive(x)
	}
	for off := 0; ; {
		end := min(off+len(data), len(msg))
		var err error
		if me == a.Root {
			scratchCopy(x.Size(), data, msg[off:end])
			err = meetAsRoot(x)
		} else {
			err = meet(x)
		}
		if err != nil {
			return err
		}
		if me != a.Root {
			copy(msg[off:end], data)
		}
		if off = end; off >= len(msg) {
			return nil
		}
		data = nextPiece(x)
	}
}

// shmAllgather moves the blocks in pieces of q bytes each, q = s/p: in step
// k every rank writes bytes [kq, (k+1)q) of its block into its place in the
// half, all meet, and every rank copies the p pieces out.
func shmAllgather(x *collComm, a *coll.Args, data []byte) error {
	n, me := x.Size(), x.Rank()
	m := len(a.Recv) / n
	own := a.Send
	if own == nil {
		own = a.Recv[me*m : (me+1)*m]
	}
	q := max(len(data)/n, 1)
	for off := 0; ; {
		k := min(q, m-off)
		scratchCopy(n, data[me*q:me*q+k], own[off:off+k])
		if err := meet(x); err != nil {
			return err
		}
		for r := range n {
			switch {
			case r != me:
				copy(a.Recv[r*m+off:r*m+off+k], data[r*q:r*q+k])
			case a.Send != nil: // its own piece from its own buffer, not back out of the half
				copy(a.Recv[r*m+off:r*m+off+k], own[off:off+k])
			}
		}
		if off += k; off >= m {
			return nil
		}
		data = nextPiece(x)
	}
}

// nextPiece returns the data area of the next scratch half, with this rank's
// signature copied into it: the next piece of a collective sent in pieces.
func nextPiece(x *collComm) []byte {
	n, me := x.Size(), x.Rank()
	scratch := x.c.c.ShmScratch()
	storeIfChanged(scratch[me*sigSize:(me+1)*sigSize], x.c.c.ShmScratchPrev()[me*sigSize:(me+1)*sigSize])
	return scratch[n*sigSize:]
}

// vectors is the need of Allreduce, Scan and Exscan: every rank's vector.
func vectors(n int, a *coll.Args) int { return n * len(a.Recv) }

// foldUpTo is the run of Allreduce, Scan and Exscan: every rank writes its
// vector, all meet, and rank r folds the vectors of ranks 0..hi(r, n)−1 into
// its receive buffer (nothing when hi is 0: Exscan's rank 0).
func foldUpTo(hi func(r, n int) int) func(x *collComm, a *coll.Args, data []byte) error {
	return func(x *collComm, a *coll.Args, data []byte) error {
		m := len(a.Recv)
		copy(data[x.Rank()*m:], contribution(a))
		if err := meet(x); err != nil {
			return err
		}
		if h := hi(x.Rank(), x.Size()); h > 0 {
			fold(a.Op, data, m, 0, h, a.Recv)
		}
		return nil
	}
}

// meet writes nothing more: it waits for every rank's part and checks the
// signatures. The run functions call it between their write and read.
func meet(x *collComm) error {
	lineOut(x)
	return lineAfter(x, checkAfter(x, x.c.c.ShmStep()))
}

// meetAsRoot is meet for the root of a rooted collective: it also posts the
// step, so that ranks waiting for the root (awaitRoot) go on.
func meetAsRoot(x *collComm) error {
	lineOut(x)
	return lineAfter(x, checkAfter(x, x.c.c.ShmStepPost()))
}

// lineAfter reads the peer's part of a call on the lines after a step that
// succeeded and whose signatures agreed.
func lineAfter(x *collComm, err error) error {
	if err == nil {
		lineIn(x, true)
	}
	return err
}

// awaitRoot waits until the root has posted the step and checks this rank's
// signature against the root's (the others' are not all written yet: a rank
// that disagrees with the root gets ErrMismatch, the root may not). On a
// mismatch it still arrives, so that nobody waits for this rank.
func awaitRoot(x *collComm, root int) error {
	if err := x.c.c.ShmAwaitPost(); err != nil {
		return err
	}
	scratch := x.c.c.ShmScratch()
	me := x.Rank()
	mine, theirs := scratch[me*sigSize:(me+1)*sigSize], scratch[root*sigSize:(root+1)*sigSize]
	if sameSig(mine, theirs) {
		lineIn(x, false)
		return nil
	}
	err := fmt.Errorf("%w: rank %d called with %s, rank %d with %s", coll.ErrMismatch,
		root, describeSig(theirs), me, describeSig(mine))
	if aerr := x.c.c.ShmArrive(); aerr != nil {
		return aerr
	}
	return err
}

// checkAfter checks the signatures of the step just taken (unless it failed).
func checkAfter(x *collComm, stepErr error) error {
	if stepErr != nil {
		return stepErr
	}
	n, me := x.Size(), x.Rank()
	// ShmStep moved to the other half for the next call; the signatures of
	// this one are in the half we wrote.
	scratch := x.c.c.ShmScratchPrev()
	mine := scratch[me*sigSize : (me+1)*sigSize]
	for r := 0; r < n; r++ {
		if r != me && !sameSig(scratch[r*sigSize:(r+1)*sigSize], mine) {
			return fmt.Errorf("%w: rank %d called with %s, rank %d with %s", coll.ErrMismatch,
				r, describeSig(scratch[r*sigSize:]), me, describeSig(mine))
		}
	}
	return nil
}

// opCode identifies an operation in a signature (FNV-1a of its name).
func opCode(op coll.Operation) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(op); i++ {
		h = (h ^ uint32(op[i])) * 16777619
	}
	return h
}

func describeSig(b []byte) string {
	return fmt.Sprintf("(root %d, %d bytes)", int32(binary.LittleEndian.Uint32(b[4:])), binary.LittleEndian.Uint64(b[8:]))
}

// contribution is this rank's input vector of a reduction (in place: recv).
func contribution(a *coll.Args) []byte {
	if a.Send == nil {
		return a.Recv
	}
	return a.Send
}

// fold sets acc = v_lo ∘ v_lo+1 ∘ … ∘ v_hi-1, where v_r = data[r*m:(r+1)*m],
// folding from the right so that the operator always gets its left operand
// as in: rank order holds for non-commutative operators without copies.
func fold(op coll.Op, data []byte, m, lo, hi int, acc []byte) {
	copy(acc, data[(hi-1)*m:hi*m])
	for r := hi - 2; r >= lo; r-- {
		op.Apply(data[r*m:(r+1)*m], acc)
	}
}

// foldFrom is fold with v_r = vec(r).
func foldFrom(op coll.Op, vec func(r int) []byte, lo, hi int, acc []byte) {
	copy(acc, vec(hi-1))
	for r := hi - 2; r >= lo; r-- {
		op.Apply(vec(r), acc)
	}
}

var shmAlgs = []*shmAlg{
	{op: coll.OpBarrier, summary: "arrive at a shared counter; the last arrival wakes everyone",
		cost: "1 shared barrier", need: func(int, *coll.Args) int { return 0 },
		run: func(x *collComm, _ *coll.Args, _ []byte) error { return checkAfter(x, x.c.c.ShmBarrier()) }},
	{op: coll.OpBcast, summary: "root writes the message into shared scratch and goes on; each rank waits for the root, not the others, and copies it out (larger messages: a half at a time, all meeting per piece)",
		cost: "⌈m/s⌉ shared barriers + 2 copies of m (s: a scratch half)",
		// Any size fits: a message larger than one scratch half goes in
		// pieces, one barrier each, alternating halves as successive
		// collectives do (see shmBcast).
		pieces: true, run: shmBcast},
	{op: coll.OpReduce, summary: "every rank writes its vector and goes on; the root waits for all and folds them in rank order",
		cost: "1 shared barrier + p·m copied + (p−1)·m reduced at the root",
		need: func(n int, a *coll.Args) int { return n * len(contribution(a)) },
		run: func(x *collComm, a *coll.Args, data []byte) error {
			v := contribution(a)
			m, me := len(v), x.Rank()
			// The root folds its own vector from its send buffer (not in
			// place: recv, which the fold overwrites, is another buffer).
			own := me == a.Root && a.Send != nil
			if !own {
				scratchCopy(x.Size(), data[me*m:], v)
			}
			if me != a.Root {
				return arrive(x) // the root reads it; nothing to wait for
			}
			if err := meetAsRoot(x); err != nil {
				return err
			}
			foldFrom(a.Op, func(r int) []byte {
				if own && r == me {
					return v
				}
				return data[r*m : (r+1)*m]
			}, 0, x.Size(), a.Recv[:m])
			return nil
		}},
	{op: coll.OpAllreduce, summary: "every rank writes its vector, then folds all of them in rank order",
		cost: "1 shared barrier + p·m copied + (p−1)·m reduced on every rank",
		need: vectors, run: foldUpTo(func(_, n int) int { return n })},
	{op: coll.OpScan, summary: "every rank writes its vector, then folds those of ranks 0..r",
		cost: "1 shared barrier + p·m copied + r·m reduced on rank r",
		need: vectors, run: prefixRun(func(r, _ int) int { return r + 1 })},
	{op: coll.OpExscan, summary: "every rank writes its vector, then folds those of ranks 0..r−1",
		cost: "1 shared barrier + p·m copied + (r−1)·m reduced on rank r",
		need: vectors, run: prefixRun(func(r, _ int) int { return r })},
	{op: coll.OpGather, summary: "every rank writes its block and goes on; the root waits for all and copies them",
		cost: "1 shared barrier + 2 copies of p·m",
		need: func(n int, a *coll.Args) int { return n * gatherBlock(n, a) },
		run: func(x *collComm, a *coll.Args, data []byte) error {
			n, me := x.Size(), x.Rank()
			m := gatherBlock(n, a)
			if me == a.Root {
				// Its own block goes straight to recv (in place: it is
				// there already), not through the scratch area.
				if a.Send != nil {
					copy(a.Recv[me*m:(me+1)*m], a.Send)
				}
				if err := meetAsRoot(x); err != nil {
					return err
				}
				copy(a.Recv[:me*m], data[:me*m])
				copy(a.Recv[(me+1)*m:n*m], data[(me+1)*m:n*m])
				return nil
			}
			if a.Send != nil {
				scratchCopy(n, data[me*m:], a.Send)
			} else {
				scratchCopy(n, data[me*m:], a.Recv[me*m:(me+1)*m])
			}
			return arrive(x) // the root reads it; nothing to wait for
		}},
	{op: coll.OpScatter, summary: "the root writes every block and goes on; each rank waits for the root and copies its own",
		cost: "1 shared barrier + 2 copies of p·m",
		need: func(n int, a *coll.Args) int { return n * scatterBlock(n, a) },
		run: func(x *collComm, a *coll.Args, data []byte) error {
			n, me := x.Size(), x.Rank()
			m := scatterBlock(n, a)
			if me == a.Root {
				// Every block but its own goes through the scratch area;
				// its own straight to recv (nil: in place).
				scratchCopy(n, data[:me*m], a.Send[:me*m])
				scratchCopy(n, data[(me+1)*m:n*m], a.Send[(me+1)*m:n*m])
				if a.Recv != nil {
					copy(a.Recv, a.Send[me*m:(me+1)*m])
				}
				return post(x) // the readers need nothing else
			}
			if err := awaitRoot(x, a.Root); err != nil {
				return err
			}
			copy(a.Recv, data[me*m:(me+1)*m])
			return arrive(x)
		}},
	{op: coll.OpAllgather, summary: "every rank writes its block, a piece per scratch half; every rank copies them all",
		cost: "⌈p·m/s⌉ shared barriers + p·m written, p²·m read (s: a scratch half)",
		// Any size fits: pieces of every block go through the halves, as
		// in Bcast.
		pieces: true, run: shmAllgather},
	{op: coll.OpAlltoall, summary: "every rank writes its row of blocks; each copies its column",
		cost: "1 shared barrier + p²·m written and read",
		need: func(n int, a *coll.Args) int { return n * len(a.Recv) },
		run: func(x *collComm, a *coll.Args, data []byte) error {
			n, me := x.Size(), x.Rank()
			row := len(a.Recv)
			m := row / n
			src := a.Send
			if src == nil {
				src = a.Recv
			}
			scratchCopy(n, data[me*row:], src[:row])
			if err := meet(x); err != nil {
				return err
			}
			for i := 0; i < n; i++ {
				copy(a.Recv[i*m:(i+1)*m], data[i*row+me*m:])
			}
			return nil
		}},
	{op: coll.OpReduceScatterBlock, summary: "every rank writes its vector; each folds its own block over all ranks",
		cost: "1 shared barrier + p·m·p copied + (p−1)·m reduced per rank",
		need: func(n int, a *coll.Args) int { return n * n * rsBlock(n, a) },
		run: func(x *collComm, a *coll.Args, data []byte) error {
			n, me := x.Size(), x.Rank()
			m := rsBlock(n, a)
			v := a.Send
			if v == nil {
				v = a.Recv // in place: recv holds the whole vector
			}
			copy(data[me*n*m:], v[:n*m])
			if err := meet(x); err != nil {
				return err
			}
			// Rank r's block b sits at r*n*m + b*m: fold block me of every
			// rank into the start of recv.
			out := a.Recv[:m]
			copy(out, data[(n-1)*n*m+me*m:][:m])
			for r := n - 2; r >= 0; r-- {
				a.Op.Apply(data[r*n*m+me*m:][:m], out)
			}
			return nil
		}},
}

// rsBlock is the block of Reduce_scatter_block: len(recv), or in place (send
// nil) the whole vector in recv divided among the ranks.
func rsBlock(n int, a *coll.Args) int {
	if a.Send == nil {
		return len(a.Recv) / n
	}
	return len(a.Recv)
}

func gatherBlock(n int, a *coll.Args) int {
	if a.Send != nil {
		return len(a.Send)
	}
	return len(a.Recv) / n
}

func scatterBlock(n int, a *coll.Args) int {
	if a.Recv != nil {
		return len(a.Recv)
	}
	return len(a.Send) / n
}
