package gompi

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
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
//   - every rank writes the records of its send and receive buffers
//     (Alltoallv/w also the count and displacement of each peer's block,
//     both ways), zeroes its row of transfer words (one per sender), sets
//     its ready word, bumps every peer's event word and arrives at the step
//     at once (ShmArrive): the step only keeps the scratch half from being
//     reused while anyone still looks at it;
//   - each of the p(p−1) transfers is made by whichever of its two ranks
//     takes its word first (compare-and-swap): the receiver reads the block
//     (process_vm_readv) or the sender writes it (process_vm_writev); the
//     rank sets the word to the outcome and bumps the other's event word;
//   - a rank goes over its peers (r−1, r−2, ... first), takes every
//     transfer with a ready peer that nobody has taken, and when none is
//     left to take sleeps on its own event word (ShmAwaitChange) until a
//     peer becomes ready or finishes a transfer with it; it returns once
//     its 2(p−1) transfers are made.
//
// So a rank that loses its CPU delays nobody in a fixed order: the ranks
// that run move its blocks, in and out, and when it comes back it finds
// them moved. The next call's start waits only until every rank has
// arrived at this step, which every rank did before it moved anything.
//
// A block that fits its pair's slot is copied through the scratch half
// instead (its sender writes it before it arrives and does not wait for
// it). An Alltoallv/w rank all of whose blocks, both ways, fit their slots
// (by its own counts: allSlots) has no transfer to take: it waits for the
// step's release, as a one-step exchange does, and copies its column out
// of the peers' slots; the ranks with a larger block run the loop above
// beside it in the same call.
//
// A copy the kernel refuses sets the word to pwFailed and the block goes
// as a message (both ranks see the word: the receiver posts the receive,
// the sender the send). Ranks that disagree (the signature, or a count of
// Alltoallv/w) get ErrMismatch where they see it; a rank that ran another
// algorithm arrives at the step without setting its ready word, so the
// others stop waiting for it once the step is released, drop the transfers
// with it nobody has taken and report the mismatch.

// The outcomes of a transfer, in its word (0: nobody has taken it yet;
// pwClaimed: taken, being made).
const (
	pwRead   = 1 // copied
	pwFailed = 2 // the copy failed: send the block as a message
	pwSkip   = 3 // nothing copied (the ranks disagree)
)

// pwSigWord is the word of this algorithm's signatures: a rank that runs
// "cma" or "cma_slots" for the same call (ranks that disagree on the size,
// so that the table picks differently) signs with the root instead, and
// sees the mismatch at its meet.
const pwSigWord = 0x70770000

// pwLine holds a rank's ready word (at 0), its event word (at 4), the
// record of its send buffer (at 8) and that of its receive buffer (at 32).
const pwLine = 64

// pwRegion is the bytes of one rank's region in the data area: its line,
// its row of transfer words (one per sender), and (Alltoallv/w) its send
// count and displacement for every peer, then its receive count and
// displacement for every peer. The same layout for every form, so that
// ranks that disagree on the operation still find each other's words.
func pwRegion(n int) int { return pwLine + (4*n+63)&^63 + (32*n+63)&^63 }

type pwAlg struct {
	op coll.Operation
	v  bool // counts and displacements per peer, published
	// rooted: the only transfers are from the root to each other rank
	// (Scatter, shmcoll_pairwise_scatter.go); the other pairs have none.
	rooted  bool
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
	// pairs (v forms; nil: a.SendCounts and a.RecvCounts) is the count and
	// displacement of this rank's block for rank j in its source, and of
	// j's block in its receive buffer.
	pairs func(me, j int, a *coll.Args) (sc, sd, rc, rd int)
	// noSlots: one block for all (Allgather, Allgatherv), never through
	// slots.
	noSlots bool
}

var pwAlgs = []*pwAlg{
	{op: coll.OpAlltoall, ok: hasSend,
		summary: "every rank publishes its send buffer and goes on; each block is copied once, straight from the sender's buffer into the receiver's, by whichever of the two ranks gets to it first (read or write), and a rank waits only for the transfers of its own blocks",
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
		summary: "every rank publishes its block and goes on; each block is copied once into each peer's buffer by whichever of the two ranks gets to it first (read or write), and a rank waits only for the transfers of its own blocks",
		cost:    "p−1 pairwise hand-offs + (p−1)·m copied once per rank, all ranks at once",
		source:  ownBlock, from: allgatherFrom, to: allgatherTo, local: cannotFail(allgatherLocal), noSlots: true},
	pwScatter,    // shmcoll_pairwise_scatter.go
	pwAllgatherv, // shmcoll_pairwise_allgatherv.go
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
	size, word := 0, uint32(pwSigWord)
	if !s.v {
		size = len(a.Recv)
	}
	if s.rooted {
		size, word = scatterBlock(n, a), pwSigWord+uint32(a.Root)
	}
	scratch, err := beginStep(x, s.op, word, size)
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

// pwClaimed is the word of a transfer a rank has taken and is making.
const pwClaimed = 4

func pairwise(x *collComm, s *pwAlg, a *coll.Args) error {
	n, me := x.Size(), x.Rank()
	eng := x.c.c
	tag := chainTag(eng.ShmSeq())
	// The whole half: on 3 and 4 ranks its capacity holds a 32 KiB slot
	// per pair (internal/shm/collslot_pairs.go), beyond the length every
	// other algorithm uses; every form here lays its regions out alike.
	scratch := eng.ShmScratch()
	scratch = scratch[:cap(scratch)]
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
	if n > 1 && !s.noSlots { // Allgather(v): one block for all, no slots
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
	event := func(r int) unsafe.Pointer { return unsafe.Pointer(&region(r)[4]) }
	// state is the word of the transfer from rank from to rank to, in to's row.
	state := func(to, from int) unsafe.Pointer { return unsafe.Pointer(&region(to)[pwLine+4*from]) }
	sendPairs := func(r int) []byte { return region(r)[pwLine+(4*n+63)&^63:] }
	recvPairs := func(r int) []byte { return sendPairs(r)[16*n:] }
	load := func(w unsafe.Pointer) uint32 { return atomic.LoadUint32((*uint32)(w)) }
	claim := func(w unsafe.Pointer) bool { return atomic.CompareAndSwapUint32((*uint32)(w), 0, pwClaimed) }

	// Publish and arrive.
	src := s.source(n, me, a)
	mine := region(me)
	publishBufN(mine[8:8+cmaRecSize], src, n)
	publishBufN(mine[32:32+cmaRecSize], a.Recv, n)
	for r := range n {
		// Stored only where a peer left a word of the call two steps
		// ago: nobody else writes this row before this rank's ready
		// word is set, and with every block in a slot (allSlots) nobody
		// writes it at all, so the row stays in this rank's cache with
		// no fenced store per word (the unconditional stores took 36 %
		// of pairwise's own samples in perf annotate, 4 ranks, 64 B).
		if w := (*uint32)(state(me, r)); atomic.LoadUint32(w) != 0 {
			atomic.StoreUint32(w, 0)
		}
	}
	if s.v {
		sp, rp := sendPairs(me), recvPairs(me)
		for j := range n {
			if s.pairs != nil {
				sc, sd, rc, rd := s.pairs(me, j, a)
				putPair(sp[j*16:], sc, sd)
				putPair(rp[j*16:], rc, rd)
				continue
			}
			putPair(sp[j*16:], a.SendCounts[j], a.SendDispls[j])
			putPair(rp[j*16:], a.RecvCounts[j], a.RecvDispls[j])
		}
	}
	// inDone[p]: the block from p is in place; outDone[p]: p has its block
	// (or it is in a slot, which p copies without this rank).
	inDone, outDone, seen := make([]bool, n), make([]bool, n), make([]bool, n)
	inDone[me], outDone[me], seen[me] = true, true, true
	if s.rooted { // this rank's transfers: from the root, or to every other rank at the root
		for r := range n {
			inDone[r] = inDone[r] || me == a.Root || r != a.Root
			outDone[r] = outDone[r] || me != a.Root
		}
	}
	for r := range n {
		if b := s.to(n, me, r, a); r != me && len(b) <= sl {
			scratchCopy(n, slot(me, r), b)
			outDone[r] = true
		}
	}
	eng.ShmSetWord(ready(me), tag)
	for r := range n {
		if r != me && (!s.rooted || me == a.Root || r == a.Root) { // rooted: only the root waits for the others
			eng.ShmAddWord(event(r), 1)
		}
	}
	arrive := eng.ShmArrive
	if s.rooted && me == a.Root {
		// Posted, as the root of a rooted step: a rank that ran a rooted
		// algorithm of another kind ("cma", "shm") for the same call waits
		// for the root's post, and finds the signatures disagree.
		arrive = eng.ShmPost
	}
	if err := arrive(); err != nil {
		return err
	}
	var bigs bigBlocks
	bigs.fail(s.local(n, me, a))
	if allSlots(s, n, me, sl, a) {
		// Every block of this rank goes through a slot (allSlots): it
		// has written its own and set its ready word, and every rank of
		// this algorithm sets its ready word before it arrives, so once
		// the step is released every peer's slots are written. It waits
		// for that release as the one-step exchange ("shm") does, and
		// copies its column out of the peers' slots. The pairwise loop
		// below would wake on every peer's ready word and claim, set and
		// signal a transfer word per block (for nobody: the sender of a
		// slot block does not wait for it); at 4 ranks on 2 CPUs that
		// cost about twice the one-step Alltoall's time
		// (docs/PERFORMANCE.md, "Alltoallv and Alltoallw at 3–4 ranks,
		// small blocks"). A peer that ran another algorithm has not set
		// its ready word: ErrMismatch, nothing of it read. A peer whose
		// count disagrees: ErrMismatch; if it sends a block too large
		// for a slot it waits for that transfer, and finds its word set
		// to pwSkip here (or sets it itself: it checks the counts this
		// rank published before it moves anything).
		if err := eng.ShmBegin(); err != nil { // the release of the step just arrived at
			return err
		}
		sig := scratch[me*sigSize : (me+1)*sigSize]
		for k := 1; k < n; k++ {
			p := (me - k + n) % n
			if load(ready(p)) != tag {
				bigs.fail(fmt.Errorf("%w: a rank ran another collective or algorithm than rank %d", coll.ErrMismatch, me))
				continue
			}
			if theirs := scratch[p*sigSize : (p+1)*sigSize]; string(theirs) != string(sig) {
				bigs.fail(fmt.Errorf("%w: rank %d called with %s, rank %d with %s", coll.ErrMismatch,
					p, describeSig(theirs), me, describeSig(sig)))
				continue
			}
			c, _ := getPair(sendPairs(p)[me*16:])
			if c != a.RecvCounts[p] {
				bigs.fail(countMismatch(p, c, me, a.RecvCounts[p]))
				if c > sl && claim(state(me, p)) { // p waits for this transfer: nothing moves
					eng.ShmSetWord(state(me, p), pwSkip)
					eng.ShmAddWord(event(p), 1)
				}
				continue
			}
			copy(a.Recv[a.RecvDispls[p]:][:c], slot(p, me))
		}
		runtime.KeepAlive(src)
		return bigs.err
	}

	// Every transfer between two ranks is made by whichever of the two
	// takes its state word first: the receiver reads the block
	// (process_vm_readv), or the sender writes it (process_vm_writev). A
	// rank that comes late finds its blocks moved.
	sig := scratch[me*sigSize : (me+1)*sigSize]
	bad := make([]bool, n)           // p's arguments disagree with this rank's
	var failedIn, failedOut []int    // transfers whose copy failed: sent as messages
	skipped, foreign := false, false // a transfer was dropped; a rank ran another algorithm
	var waitFor []int
	// finish records the state st of a transfer with p.
	finish := func(st uint32, p int, in bool) bool {
		switch st {
		case 0, pwClaimed:
			return false
		case pwFailed:
			if in {
				failedIn = append(failedIn, p)
			} else {
				failedOut = append(failedOut, p)
			}
		case pwRead:
		default: // pwSkip, or what another algorithm wrote over the word
			skipped = true
		}
		return true
	}
	// pull moves p's block into this rank's buffer.
	pull := func(p int) uint32 {
		if bad[p] {
			return pwSkip
		}
		var dst []byte
		off := 0
		if s.v {
			c, d := getPair(sendPairs(p)[me*16:])
			if c != a.RecvCounts[p] {
				bigs.fail(countMismatch(p, c, me, a.RecvCounts[p]))
				return pwSkip
			}
			dst, off = a.Recv[a.RecvDispls[p]:][:c], d
		} else {
			dst, off = s.from(n, me, p, a)
		}
		if len(dst) <= sl {
			copy(dst, slot(p, me))
		} else if peerBuf(region(p)[8:8+cmaRecSize]).read(dst, off) != nil {
			return pwFailed
		}
		return pwRead
	}
	// push moves this rank's block for p into p's buffer.
	push := func(p int) uint32 {
		if bad[p] {
			return pwSkip
		}
		b := s.to(n, me, p, a)
		off := me * (len(a.Recv) / max(n, 1))
		if s.rooted {
			off = 0 // the whole of p's receive buffer
		}
		if s.v {
			c, d := getPair(recvPairs(p)[me*16:])
			if c != len(b) {
				bigs.fail(countMismatch(me, len(b), p, c))
				return pwSkip
			}
			off = d
		}
		if peerBuf(region(p)[32:32+cmaRecSize]).write(b, off) != nil {
			return pwFailed
		}
		return pwRead
	}
	moved := false
	// take makes the transfer with p behind state word w by move if no rank
	// has taken it, tells p, and returns the transfer's state.
	take := func(w unsafe.Pointer, p int, move func(int) uint32) uint32 {
		st := load(w)
		if st == 0 && claim(w) {
			st = move(p)
			eng.ShmSetWord(w, st)
			eng.ShmAddWord(event(p), 1)
			moved = true
		}
		return st
	}
	for {
		e := load(event(me))
		released := false
		moved = false
		waitFor = waitFor[:0]
		notReady := false
		for k := 1; k < n; k++ {
			p := (me - k + n) % n
			if inDone[p] && outDone[p] {
				continue
			}
			waitFor = append(waitFor, p)
			if load(ready(p)) != tag {
				notReady = true
				continue
			}
			if !seen[p] {
				seen[p] = true
				if theirs := scratch[p*sigSize : (p+1)*sigSize]; string(theirs) != string(sig) {
					bad[p] = true
					bigs.fail(fmt.Errorf("%w: rank %d called with %s, rank %d with %s", coll.ErrMismatch,
						p, describeSig(theirs), me, describeSig(sig)))
				}
			}
			if !inDone[p] {
				inDone[p] = finish(take(state(me, p), p, pull), p, true)
			}
			if !outDone[p] {
				outDone[p] = finish(take(state(p, me), p, push), p, false)
			}
			if inDone[p] && outDone[p] {
				waitFor = waitFor[:len(waitFor)-1]
			}
		}
		if len(waitFor) == 0 {
			break
		}
		if moved {
			continue
		}
		var err error
		released, err = eng.ShmAwaitChange(event(me), e, waitFor, notReady)
		if err != nil {
			return err
		}
		if released && notReady {
			// Every rank has arrived, and one of them has not set its
			// ready word: it ran another algorithm (the ranks disagree).
			for _, p := range waitFor {
				if load(ready(p)) != tag {
					foreign = true
				}
			}
			if foreign {
				break
			}
		}
	}
	if foreign {
		// Some rank ran another algorithm: its writes may have overwritten
		// any word here, and every rank of this algorithm sees it as this
		// one does. No transfer of this rank's that nobody has taken is
		// made any more (nothing is written into its buffer once it has
		// returned); the ones taken are being made and end at once.
		for _, p := range waitFor {
			atomic.CompareAndSwapUint32((*uint32)(state(me, p)), 0, pwSkip)
			atomic.CompareAndSwapUint32((*uint32)(state(p, me)), 0, pwSkip)
		}
		until := time.Now().Add(time.Second) // a word another algorithm overwrote may read as taken
		for _, p := range waitFor {
			for (load(state(me, p)) == pwClaimed || load(state(p, me)) == pwClaimed) && time.Now().Before(until) {
				runtime.Gosched()
			}
		}
		if bigs.err == nil {
			bigs.fail(fmt.Errorf("%w: a rank ran another collective or algorithm than rank %d", coll.ErrMismatch, me))
		}
		return bigs.err
	}
	if skipped && bigs.err == nil {
		bigs.fail(fmt.Errorf("%w: a peer of rank %d found their arguments disagree", coll.ErrMismatch, me))
	}
	for _, p := range failedIn {
		var dst []byte
		if s.v {
			dst = a.Recv[a.RecvDispls[p]:][:a.RecvCounts[p]]
		} else {
			dst, _ = s.from(n, me, p, a)
		}
		bigs.add(x.Irecv(dst, p, cmaRepairTag))
	}
	for _, p := range failedOut {
		bigs.add(x.Isend(s.to(n, me, p, a), p, cmaRepairTag))
	}
	runtime.KeepAlive(src)
	return bigs.wait()
}

// allSlots reports whether every block this rank sends and receives in an
// Alltoallv/w call fits its pair's slot (sl bytes), by this rank's own
// counts: it then makes no transfer by single copy and takes no word
// (the slot-only path in pairwise). Where the counts agree its peers see the same of their
// blocks with it, so none of them waits for it to take a transfer.
func allSlots(s *pwAlg, n, me, sl int, a *coll.Args) bool {
	if !s.v || s.rooted || s.pairs != nil || sl < 0 {
		return false
	}
	for j := range n {
		if j != me && (a.SendCounts[j] > sl || a.RecvCounts[j] > sl) {
			return false
		}
	}
	return true
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
// to "cma" below 256 KiB on 3 and 4 ranks. Branch mid4 measured 4 ranks
// again, before/after against main (sidebyside --sides base,go,c --ops
// alltoall --n 4 --sizes 32768,131072, medians of 9 then 7, load 3.3-7.3):
// 32 KiB 84 -> 77 and 286 -> 148 µs, 128 KiB 185 -> 141 and 340 -> 228,
// and the tune (median of 9) 53 against cma's 64; so 4 ranks run it from
// 32 KiB too. 3 ranks at 32 KiB did not gain (114 -> 120): left to "cma"
// there. Alltoallv/w have size 0 in the
// table (no rank knows every count), so the rule holds at every size: the
// blocks that fit a slot go through the scratch area, as in "cma".
var pwPreferred = []struct {
	op       coll.Operation
	tier     int
	minRanks int
	minBytes int
	maxBytes int // 0: no bound
	maxRanks int // 0: no bound
}{
	// 3-8 ranks, 4-32 KiB: every block fits its pair's 32 KiB slot
	// (internal/shm/collslot_pairs.go), two short copies instead of a
	// system call per block; in front of cma_slots and cma. Forced against
	// the default beside Open MPI (sidebyside --sides go,c --loop --ops
	// alltoall --n 3,4,5,8 --sizes 4096,8192,16384 --reps 3,
	// GOMPI_COLL_ALLTOALL=cma_pairwise, 18:22 UTC), call µs: 3 ranks
	// 10-13 against 12-35, 4 ranks 17-19 against 24-53, 5 ranks 25-33
	// against 30-112, 8 ranks 54-71 against 58-260 (Open MPI 28-180).
	{coll.OpAlltoall, tierFirst, 3, 4 << 10, 32 << 10, 8},
	{coll.OpAlltoall, tierCopy, 4, 32 << 10, 0, 0},
	{coll.OpAlltoall, tierCopy, 3, 256 << 10, 0, 0},
	{coll.OpAllgather, tierCopy, 0, 256 << 10, 0, 0},
	// Allgatherv (shmcoll_pairwise_allgatherv.go), tune of cma against
	// cma_pairwise, median of 5, load 5-9: 4 ranks 256 KiB 380 against
	// 187 µs, 1 MiB 582 against 426; 8 ranks 256 KiB 1437 against 630, 1 MiB
	// 3738 against 2276; 32 KiB stays with "shm" and "cma". Up to 1 MiB
	// only: before/after at 1 MiB (sidebyside --loop, load 6-9) had the call
	// at 501 -> 438 and 443 -> 430 µs on 4 ranks but the whole loop at 638
	// -> 712 and 463 -> 582 (the barrier after the call waits for what
	// "cma"'s closing step waited for, and more), 8 ranks 3240 -> 4648 and
	// 3081 -> 2933: 1 MiB stays "cma".
	{coll.OpAllgatherv, tierCopy, 3, 256 << 10, 1<<20 - 1, 0},
	{coll.OpAlltoallv, tierFirst, 3, 0, 0, 0},
	{coll.OpAlltoallw, tierFirst, 3, 0, 0, 0},
}

// preferPairwise puts "cma_pairwise" where pwPreferred says. Call it before the rules of "cma" go in (preferCMAWhereFaster,
// installCMAv): within a tier, rules apply in the order they were added.
func preferPairwise() error {
	for _, p := range pwPreferred {
		r := coll.Rule{MinRanks: p.minRanks, MaxRanks: p.maxRanks, MinBytes: p.minBytes, MaxBytes: p.maxBytes, Use: []string{"cma_pairwise"}}
		if err := prefer(p.op, p.tier, r); err != nil {
			return err
		}
	}
	return preferPairwiseScatter() // shmcoll_pairwise_scatter.go
}
