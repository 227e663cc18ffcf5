package gompi

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/coll"
)

// The pairwise single copy ("cma_pairwise"): Alltoall, Alltoallv,
// Alltoallw and Allgather without a barrier. The "cma" forms meet twice:
// once to publish the buffers, once to close (no rank may hand its buffer
// back before every reader is done), and with more ranks than CPUs the
// closing step makes every rank wait for the slowest reader of all
// (docs/PERFORMANCE.md, "The closing step"). Here the ranks synchronize in
// pairs, as Open MPI's pairwise exchange does:
//
//   - every rank writes its record (the buffer its peers read; Alltoallv/w
//     also the count and displacement of each peer's block), zeroes its row
//     of done words, sets its ready word and arrives at the step at once
//     (ShmArrive): the step only keeps the scratch half from being reused
//     while anyone still looks at it;
//   - in round k = 1..p−1 rank r reads its block from rank (r−k) mod p as
//     soon as that rank's ready word is set (process_vm_readv), and sets
//     its done word in that rank's row: in each round every rank is read by
//     one reader, rank (s+k) mod p;
//   - before it returns, rank s waits for the done words of its own readers
//     (in the order they come, s+1, s+2, ...), and nobody else's.
//
// So a rank that loses its CPU delays the ranks it reads from and the
// ranks that read it, not all of them. The next call's start waits only
// until every rank has arrived at this step, which every rank did before
// it read anything.
//
// A read the kernel refuses sets the done word to pwFailed and the block
// goes as a message (the reader receives it from the owner, which sends it
// when it sees the word). Ranks that disagree (the signature, or a count of
// Alltoallv/w) get ErrMismatch where they see it; a rank that ran another
// algorithm arrives at the step without setting its ready word, so its
// readers stop waiting for it once the step is released and report the
// mismatch.

// The values of a done word (0: not yet).
const (
	pwRead   = 1 // read
	pwFailed = 2 // the read failed: send the block as a message
	pwSkip   = 3 // nothing read (the ranks disagree)
)

// pwSigWord is the word of this algorithm's signatures: a rank that runs
// "cma" or "cma_slots" for the same call (ranks that disagree on the size,
// so that the table picks differently) signs with the root instead, and
// sees the mismatch at its meet.
const pwSigWord = 0x70770000

// pwLine holds a rank's ready word (at 0) and its record (at 8).
const pwLine = 64

// pwRegion is the bytes of one rank's region in the data area: its line,
// its row of done words (one per reader), and (Alltoallv/w) its count and
// displacement for every peer. The same layout for every form, so that
// ranks that disagree on the operation still find each other's words.
func pwRegion(n int) int { return pwLine + (4*n+63)&^63 + (16*n+63)&^63 }

type pwAlg struct {
	op      coll.Operation
	v       bool // counts and displacements per peer, published
	summary string
	cost    string
	ok      func(a *coll.Args) bool // nil: always
	// source is the buffer this rank's peers read from.
	source func(n, me int, a *coll.Args) []byte
	// from is this rank's block from peer with the offset where it lies in
	// peer's source (fixed-size forms only).
	from func(n, me, peer int, a *coll.Args) ([]byte, int)
	// to is the part of this rank's source that rank r reads.
	to func(n, me, r int, a *coll.Args) []byte
	// local copies this rank's own block; an error: its counts disagree.
	local func(n, me int, a *coll.Args) error
}

var pwAlgs = []*pwAlg{
	{op: coll.OpAlltoall, ok: hasSend,
		summary: "every rank publishes its send buffer and goes on; in round k each rank copies its block straight out of rank me−k's buffer as soon as that rank is there, and waits at the end only for the readers of its own buffer",
		cost:    "p−1 pairwise hand-offs + (p−1)·m copied once per rank, all ranks at once",
		source:  sendBuf, from: alltoallFrom, to: alltoallTo, local: cannotFail(alltoallLocal)},
	{op: coll.OpAlltoallv, v: true, ok: hasSend,
		summary: "as Alltoall: every rank also publishes the count and displacement of each peer's block",
		cost:    "p−1 pairwise hand-offs + the blocks copied once, all ranks at once",
		source:  sendBuf, to: pwToV, local: pwLocalV},
	{op: coll.OpAlltoallw, v: true, ok: hasSend,
		summary: "as Alltoallv (the counts are bytes)",
		cost:    "p−1 pairwise hand-offs + the blocks copied once, all ranks at once",
		source:  sendBuf, to: pwToV, local: pwLocalV},
	{op: coll.OpAllgather,
		summary: "every rank publishes its block and goes on; in round k each rank copies the block of rank me−k as soon as that rank is there, and waits at the end only for the readers of its own block",
		cost:    "p−1 pairwise hand-offs + (p−1)·m copied once per rank, all ranks at once",
		source:  ownBlock, from: allgatherFrom, to: allgatherTo, local: cannotFail(allgatherLocal)},
}

// cannotFail is the local step of a form whose own block cannot disagree.
func cannotFail(local func(n, me int, a *coll.Args)) func(n, me int, a *coll.Args) error {
	return func(n, me int, a *coll.Args) error { local(n, me, a); return nil }
}

func pwToV(_, _, r int, a *coll.Args) []byte { return a.Send[a.SendDispls[r]:][:a.SendCounts[r]] }

func pwLocalV(_, me int, a *coll.Args) error {
	c := a.SendCounts[me]
	if c != a.RecvCounts[me] {
		return countMismatch(me, c, me, a.RecvCounts[me])
	}
	copy(a.Recv[a.RecvDispls[me]:][:c], a.Send[a.SendDispls[me]:][:c])
	return nil
}

// installPairwise registers the forms here as "cma_pairwise" and puts them
// into the selection table (preferPairwise).
func installPairwise() error {
	for _, s := range pwAlgs {
		err := registerSingleCopy(s.op, "cma_pairwise", s.summary, s.cost, cmaConstraints+"; large data",
			func(x *collComm, n int, a *coll.Args) bool {
				need := n*sigSize + max(n*pwRegion(n), n*(cmaRecSize+1))
				return (s.ok == nil || s.ok(a)) && need <= x.c.c.ShmCapacity()
			},
			func(x *collComm, a *coll.Args) error { return runPairwise(x, s, a) })
		if err != nil {
			return err
		}
	}
	return preferPairwise()
}

// runPairwise runs one of the forms here.
func runPairwise(x *collComm, s *pwAlg, a *coll.Args) error {
	n := x.Size()
	size := 0
	if !s.v {
		size = len(a.Recv)
	}
	scratch, err := beginStep(x, s.op, pwSigWord, size)
	if err != nil {
		return err
	}
	on, _, err := cmaAgree(x, scratch[n*sigSize:])
	if err != nil {
		return err
	}
	if !on {
		return coll.Call(x, s.op, a) // agreed off: this algorithm is no longer available
	}
	err = pairwise(x, s, a)
	leadNext(x, s.op, a.Root)
	runtime.KeepAlive(a.Send)
	runtime.KeepAlive(a.Recv)
	return err
}

func pairwise(x *collComm, s *pwAlg, a *coll.Args) error {
	n, me := x.Size(), x.Rank()
	eng := x.c.c
	tag := chainTag(eng.ShmSeq())
	scratch := eng.ShmScratch()
	data := scratch[n*sigSize:]
	// Each rank's region takes an n-th of the data area; after its head
	// (pwRegion), one slot of sl bytes per other rank: a block that fits
	// goes through it (two short copies), as in "cma_slots", instead of a
	// system call, and its owner need not wait for its reader (the half is
	// not rewritten before every rank has finished this call).
	reg := (len(data) / n) &^ 63
	head := pwRegion(n)
	region := func(r int) []byte { return data[r*reg : (r+1)*reg] }
	sl := 0
	if n > 1 && s.op != coll.OpAllgather { // Allgather: one block for all, no slots
		sl = (reg - head) / (n - 1) &^ 7
	} else {
		sl = -1
	}
	slot := func(owner, reader int) []byte {
		if reader > owner {
			reader--
		}
		return region(owner)[head+reader*sl:][:sl]
	}
	ready := func(r int) unsafe.Pointer { return unsafe.Pointer(&region(r)[0]) }
	done := func(owner, reader int) unsafe.Pointer { return unsafe.Pointer(&region(owner)[pwLine+4*reader]) }
	pairs := func(r int) []byte { return region(r)[pwLine+(4*n+63)&^63:] }

	// Publish and arrive.
	src := s.source(n, me, a)
	mine := region(me)
	publishBuf(mine[8:8+cmaRecSize], src)
	for r := range n {
		atomic.StoreUint32((*uint32)(done(me, r)), 0)
	}
	if s.v {
		p := pairs(me)
		for j := range n {
			putPair(p[j*16:], a.SendCounts[j], a.SendDispls[j])
		}
	}
	for r := range n {
		if b := s.to(n, me, r, a); r != me && len(b) <= sl {
			copy(slot(me, r), b)
		}
	}
	eng.ShmSetWord(ready(me), tag)
	if err := eng.ShmArrive(); err != nil {
		return err
	}

	// The rounds: read from me−k, say so in its row.
	var bigs bigBlocks
	var failed []int // the ranks whose reads failed: their blocks come as messages
	foreign := false // a rank arrived without setting its ready word
	sig := scratch[me*sigSize : (me+1)*sigSize]
	for k := 1; k < n; k++ {
		r := (me - k + n) % n
		ok, err := eng.ShmAwaitWordOrRelease(ready(r), tag)
		if err != nil {
			return err
		}
		theirs := scratch[r*sigSize : (r+1)*sigSize]
		if string(theirs) != string(sig) {
			bigs.fail(fmt.Errorf("%w: rank %d called with %s, rank %d with %s", coll.ErrMismatch,
				r, describeSig(theirs), me, describeSig(sig)))
		}
		if !ok {
			foreign = true
			continue
		}
		state := uint32(pwSkip)
		if string(theirs) == string(sig) {
			var dst []byte
			off := 0
			if s.v {
				c, d := getPair(pairs(r)[me*16:])
				if c != a.RecvCounts[r] {
					bigs.fail(countMismatch(r, c, me, a.RecvCounts[r]))
				} else {
					dst, off, state = a.Recv[a.RecvDispls[r]:][:c], d, pwRead
				}
			} else {
				dst, off = s.from(n, me, r, a)
				state = pwRead
			}
			if state == pwRead && len(dst) <= sl {
				copy(dst, slot(r, me))
			} else if state == pwRead && peerBuf(region(r)[8:8+cmaRecSize]).read(dst, off) != nil {
				state = pwFailed
				failed = append(failed, r)
			}
		}
		eng.ShmSetWord(done(r, me), state)
	}
	if foreign {
		// Some rank ran another algorithm (the ranks disagree): its writes
		// may have overwritten any word here, and every rank of this
		// algorithm sees it as this one does. Nobody waits or repairs.
		if bigs.err == nil {
			bigs.fail(fmt.Errorf("%w: a rank ran another collective or algorithm than rank %d", coll.ErrMismatch, me))
		}
		return bigs.err
	}
	for _, r := range failed {
		var dst []byte
		if s.v {
			dst = a.Recv[a.RecvDispls[r]:][:a.RecvCounts[r]]
		} else {
			dst, _ = s.from(n, me, r, a)
		}
		bigs.add(x.Irecv(dst, r, cmaRepairTag))
	}
	bigs.fail(s.local(n, me, a))

	// Keep the buffer until its readers are done with it: me+1 first.
	for k := 1; k < n; k++ {
		r := (me + k) % n
		if len(s.to(n, me, r, a)) <= sl {
			continue // in its slot: nothing of this rank's buffer is read
		}
		w := done(me, r)
		if err := eng.ShmAwaitCountFrom(w, pwRead, r); err != nil {
			return err
		}
		if atomic.LoadUint32((*uint32)(w)) == pwFailed {
			bigs.add(x.Isend(s.to(n, me, r, a), r, cmaRepairTag))
		}
	}
	runtime.KeepAlive(src)
	return bigs.wait()
}

// Where the selection table runs "cma_pairwise" ahead of "cma", measured
// with `sidebyside --tune --algs cma,cma_pairwise` (min of 3-5, the machine
// loaded by other sessions, load average 14-60: docs/PERFORMANCE.md,
// "Pairwise single copy"): Alltoall on 4 and 8 ranks at 32 KiB, 256 KiB
// and 1 MiB 0.76-0.95x "cma"'s time; Alltoallv on 4 and 8 ranks from 1 KiB
// to 1 MiB at 8 of 12 points faster (to 0.48x), the others within the
// noise (up to 1.09x); Allgather at 256 KiB and 1 MiB on 2, 4 and 8 ranks
// faster at 4 of 6 points (to 0.28x at 2 ranks 1 MiB, 0.53x at 8 ranks
// 256 KiB), 1.24x at 4 ranks 1 MiB, 0.99x at 2 ranks 256 KiB. Two ranks were not measured for
// Alltoall and Alltoallv: left to "cma". Alltoall on 4 ranks at 32 KiB
// was faster in the tune (78 against 107 µs, min of 5) but slower in two
// before/after runs (medians of 3: 1.5x and 2.2x the time before): left
// to "cma" below 256 KiB on 3 and 4 ranks. Alltoallv/w have size 0 in the
// table (no rank knows every count), so the rule holds at every size: the
// blocks that fit a slot go through the scratch area, as in "cma".
var pwPreferred = []struct {
	op       coll.Operation
	tier     int
	minRanks int
	minBytes int
}{
	{coll.OpAlltoall, tierCopy, 5, 32 << 10},
	{coll.OpAlltoall, tierCopy, 3, 256 << 10},
	{coll.OpAllgather, tierCopy, 0, 256 << 10},
	{coll.OpAlltoallv, tierFirst, 3, 0},
	{coll.OpAlltoallw, tierFirst, 3, 0},
}

// preferPairwise puts "cma_pairwise" where pwPreferred says. Call it before the rules of "cma" go in (preferCMAWhereFaster,
// installCMAv): within a tier, rules apply in the order they were added.
func preferPairwise() error {
	for _, p := range pwPreferred {
		r := coll.Rule{MinRanks: p.minRanks, MinBytes: p.minBytes, Use: []string{"cma_pairwise"}}
		if err := prefer(p.op, p.tier, r); err != nil {
			return err
		}
	}
	return nil
}
