package gompi

import (
	"encoding/binary"
	"runtime"

	"github.com/gompi/gompi/coll"
)

// Single-copy forms ("cma") of the collectives with per-rank counts:
// Gatherv, Scatterv, Alltoallv, Alltoallw and Allgatherv.
//
// Gatherv, Scatterv and Alltoallv/w are the slotted forms of shmcoll_v.go
// with the point-to-point part replaced: a block that fits its slot still
// goes through the scratch area (two short copies in one step), and a block
// too large for its slot is copied once, straight between the two ranks'
// buffers, instead of being sent as a message after the step. The ranks
// publish what the others need to find their ranges: Alltoallv every rank
// its send buffer and, per receiver, the count and displacement of the
// block; Gatherv and Scatterv the root its buffer and, per rank, the count
// and displacement there (the counts are known only at the root). Each
// count goes through the scratch area as in the slotted forms, so a count
// that disagrees with the receiver's gives ErrMismatch where the slotted
// form gives it, and nothing outside the published ranges is ever read.
//
// Small calls cost what the slotted forms cost (a record and a table
// written, no second step): a closing step is taken only when some block
// went by single copy, and every rank knows that from the counts it sees.
// These operations have size 0 in the selection table (no rank knows all
// counts), so "cma" runs first at every size; it is unavailable for
// nonblocking calls, in place Alltoallv/w, and where the ranks agreed that
// single copy is off, and then the slotted "shm" form runs.
//
// Allgatherv, whose counts every rank knows, is Allgather's single-copy
// form: every rank publishes its block, all meet, each copies the others'
// blocks to their displacements, a closing step.

// cmavHdr is the header of a slot here: the count and a state word.
const cmavHdr = 16

// The states of a Gatherv or Scatterv slot whose block is too large for it.
const (
	cmavInSlot = iota // the block is in the slot (or nothing is to move)
	cmavCopied        // the block went by single copy
	cmavFailed        // the single copy failed: the block goes as a message
)

// cmavRecArea is the room of the n records at the head of the data area.
func cmavRecArea(n int) int { return (n*cmaRecSize + 63) &^ 63 }

// cmavTable is the room of the root's per-rank table (count and
// displacement) of Gatherv and Scatterv, after the records.
func cmavTable(n int) int { return (n*16 + 63) &^ 63 }

// cmavRootedSlots is the layout of Gatherv's and Scatterv's data area:
// the records, the root's table, then one slot of q bytes per rank.
func cmavRootedSlots(data []byte, n int) (table []byte, slots []byte, q int) {
	head := cmavRecArea(n)
	table = data[head : head+n*16]
	slots = data[head+cmavTable(n):]
	return table, slots, len(slots) / n &^ 63
}

// cmavAlltoallSlots is the layout of Alltoallv's data area: the records,
// then rank i's region of r bytes (n count-and-displacement pairs, the one
// for rank j at i*r + 16j, then n−1 slots of s bytes, one per other rank:
// cmavSlot). No slot for the rank itself: with n−1 slots a 4 KiB block
// fits on 4 ranks (64 KiB scratch halves), with n it would not.
func cmavAlltoallSlots(data []byte, n int) (regions []byte, r, s int) {
	regions = data[cmavRecArea(n):]
	r = len(regions) / n &^ 63
	return regions, r, (r - 16*n) / max(n-1, 1) &^ 7
}

// cmavSlot is where, in rank i's region, its slot for rank j (j ≠ i) starts.
func cmavSlot(n, s, i, j int) int {
	if j > i {
		j--
	}
	return 16*n + j*s
}

// cmavNeed is what each form needs of the scratch area beyond the
// signatures: the records, and a header and a cache line per slot.
func cmavNeed(op coll.Operation, n int) int {
	switch op {
	case coll.OpGatherv, coll.OpScatterv:
		return cmavRecArea(n) + cmavTable(n) + n*(cmavHdr+64+63)
	case coll.OpAlltoallv, coll.OpAlltoallw:
		return cmavRecArea(n) + n*(16*n+8*n+63)
	}
	return n * (cmaRecSize + 1) // Allgatherv: the records, the flags of the closing step
}

type cmavAlg struct {
	op      coll.Operation
	name    string // "" is "cma"
	summary string
	cost    string
	ok      func(a *coll.Args) bool // nil: always
	run     func(x *collComm, a *coll.Args, data []byte) error
}

var cmavAlgs = []*cmavAlg{
	{op: coll.OpGatherv, run: cmaGatherv,
		summary: "every rank writes its count and, if it fits its slot, its block, and goes on; a larger block its rank writes straight into the root's buffer (process_vm_writev) at the displacement the root published",
		cost:    "1 shared barrier + 2 copies of the blocks within the slots, 1 copy of the others, all ranks at once"},
	{op: coll.OpScatterv, run: cmaScatterv,
		summary: "the root writes every count and displacement and the blocks that fit their slots; each rank copies its block from its slot or straight out of the root's buffer (process_vm_readv)",
		cost:    "1 shared barrier + 2 copies of the blocks within the slots, 1 copy of the others, all ranks at once"},
	{op: coll.OpAlltoallv, run: cmaAlltoallv, ok: hasSend,
		summary: "every rank publishes its send buffer and writes its counts, displacements and the blocks that fit their slots; all meet; each copies its column, the larger blocks straight out of their owners' buffers",
		cost:    "1 shared barrier (2 when a block is larger than its slot) + the blocks copied once, or twice within the slots"},
	{op: coll.OpAlltoallw, run: cmaAlltoallv, ok: hasSend,
		summary: "as Alltoallv (the counts are bytes)",
		cost:    "1 shared barrier (2 when a block is larger than its slot) + the blocks copied once, or twice within the slots"},
	{op: coll.OpAlltoall, name: "cma_slots", run: cmaAlltoallSlots, ok: hasSend,
		summary: "Alltoall as the cma Alltoallv: the blocks that fit their slots through the scratch area in one step, the larger ones straight out of their owners' buffers",
		cost:    "1 shared barrier (2 when the blocks are larger than a slot) + (p−1)·m copied twice within the slots, once beyond"},
	{op: coll.OpAllgatherv, run: cmaAllgatherv,
		summary: "every rank publishes its block; each copies every other block straight out of its owner's memory to its displacement",
		cost:    "2 shared barriers + Σm − m copied once per rank, all ranks at once"},
}

// hasSend: in place, a rank's blocks would be overwritten while its peers
// may still read them.
func hasSend(a *coll.Args) bool { return a.Send != nil }

// Where the selection table tries "cma" first for Allgatherv, in its
// measure (the mean block): above "shm"'s bound (8 KiB, where a call that
// fits the scratch area is faster through it) on 3 or more ranks, from
// 32 KiB on two. Measured with `sidebyside --tune --ops allgatherv` (min of
// 3, load 10-12; docs/PERFORMANCE.md "Single copy for the forms with
// per-rank counts"): at 8 KiB on 8 ranks, where the call does not fit,
// "cma" 295 µs, recursive doubling 501; at 16 and 32 KiB on 4 and 8 ranks
// "cma" 0.5-0.7x recursive doubling and 0.3-0.6x ring; on two ranks ring
// was as fast or faster up to 32 KiB.
const cmavAllgathervMin, cmavAllgathervMin2 = 8<<10 + 1, 32 << 10

// installCMAv registers the forms here under "cma" and puts them into the
// selection table: first at every size for the operations of size 0 (they
// cost what "shm" costs where every block fits its slot, and one copy
// instead of a message where it does not), from cmavAllgathervMin for
// Allgatherv. Run after preferShmWhereFaster(false), so that it goes in
// front of "shm".
func installCMAv() error {
	for _, s := range cmavAlgs {
		name := s.name
		if name == "" {
			name = "cma"
		}
		err := registerSingleCopy(s.op, name, s.summary, s.cost, cmaConstraints,
			func(x *collComm, n int, a *coll.Args) bool {
				return (s.ok == nil || s.ok(a)) && n*sigSize+max(cmavNeed(s.op, n), n*(cmaRecSize+1)) <= x.c.c.ShmCapacity()
			},
			func(x *collComm, a *coll.Args) error { return runCMAv(x, s, a) })
		if err != nil {
			return err
		}
	}
	// The forms of size 0 (no rank knows every count): in front of every
	// rule, their Available alone decides (tierFirst, selection.go).
	for _, op := range []coll.Operation{coll.OpGatherv, coll.OpScatterv, coll.OpAlltoallv, coll.OpAlltoallw} {
		if err := prefer(op, tierFirst, coll.Rule{Use: []string{"cma"}}); err != nil {
			return err
		}
	}
	if err := preferCMASlots(); err != nil {
		return err
	}
	return preferAbove(coll.OpAllgatherv, "cma", cmavAllgathervMin, cmavAllgathervMin2)
}

// Where "cma_slots" goes in front of Alltoall's rules: from cmaSlotsMin up
// to maxBytes on at most maxRanks ranks, where the blocks fit their slots
// (64 KiB scratch halves: up to 31 KiB on two ranks, 5 KiB on four, 1 KiB
// on eight) and the call takes one step instead of "cma"'s two. Measured
// with `sidebyside --tune --ops alltoall --algs cma,cma_slots,linear` (min
// of 3, load 8-10): two ranks 4 KiB 2.3 µs (cma 5.9, pairwise, the table's
// choice, 14.2, Open MPI 5.8), 16 KiB 4.6 (6.2, 10.3, 6.3); four ranks
// 4 KiB 21 µs (cma 45, Open MPI 37). Beyond the slots it is "cma" with a
// table more to write, as fast within the noise: left to "cma".
const cmaSlotsMin = 4 << 10

// Since the scratch halves grew (68 KiB on two ranks, 260 KiB on eight),
// 32 KiB blocks fit their slots on two ranks and 4 KiB ones on eight: the
// same tune (min of 5, idle machine) had two ranks 32 KiB 3.0 µs (pairwise,
// the table's choice, 7.5; Open MPI 6.0) and eight ranks 4 KiB 48.7 µs (cma
// 188; Open MPI 138); eight ranks 32 KiB, beyond the slots, stays "cma".
var cmaSlotsPreferred = []struct{ maxRanks, maxBytes int }{{2, 32 << 10}, {4, 4 << 10}, {8, 4 << 10}}

// preferCMASlots puts "cma_slots" in front of Alltoall's other rules
// (tierFirst) from cmaSlotsMin bytes up to the bounds of cmaSlotsPreferred.
func preferCMASlots() error {
	for _, p := range cmaSlotsPreferred {
		r := coll.Rule{MaxRanks: p.maxRanks, MinBytes: cmaSlotsMin, MaxBytes: p.maxBytes, Use: []string{"cma_slots"}}
		if err := prefer(coll.OpAlltoall, tierFirst, r); err != nil {
			return err
		}
	}
	return nil
}

// runCMAv runs one of the forms here: the signature, the agreement, the
// form (or, single copy agreed off, what selection picks without it).
func runCMAv(x *collComm, s *cmavAlg, a *coll.Args) error {
	n := x.Size()
	if n == 2 {
		if done, err := runPairV(x, s.op, a); done { // small blocks on the lines (shmcoll_vline.go)
			return err
		}
	}
	word, size := uint32(int32(a.Root)), 0
	switch s.op {
	case coll.OpAllgatherv:
		word, size = countsHash(a), sumInts(a.RecvCounts)
	case coll.OpAlltoall:
		size = len(a.Recv)
	}
	scratch, err := beginStep(x, s.op, word, size)
	if err != nil {
		return err
	}
	on, data, err := cmaAgree(x, scratch[n*sigSize:])
	if err != nil {
		return err
	}
	if !on {
		return coll.Call(x, s.op, a)
	}
	err = s.run(x, a, data)
	leadNext(x, s.op, a.Root)
	runtime.KeepAlive(a.Send)
	runtime.KeepAlive(a.Recv)
	return err
}

func putPair(b []byte, c, d int) {
	binary.LittleEndian.PutUint64(b, uint64(c))
	binary.LittleEndian.PutUint64(b[8:], uint64(d))
}

func getPair(b []byte) (c, d int) {
	return int(binary.LittleEndian.Uint64(b)), int(binary.LittleEndian.Uint64(b[8:]))
}

// cmaGatherv: a rank whose block fits its slot writes it there and goes
// on; one whose block does not waits for the root's table and writes the
// block into the root's buffer. The root publishes its buffer and table,
// posts, waits for all, copies the slots and receives the blocks whose
// writes failed.
func cmaGatherv(x *collComm, a *coll.Args, data []byte) error {
	n, me := x.Size(), x.Rank()
	table, slots, q := cmavRootedSlots(data, n)
	if me != a.Root {
		slot := slots[me*q : (me+1)*q]
		c := len(a.Send)
		if c <= q-cmavHdr {
			putPair(slot, c, cmavInSlot)
			scratchCopy(x.Size(), slot[cmavHdr:], a.Send)
			return x.c.c.ShmArrive()
		}
		putPair(slot, c, cmavInSlot)
		if err := awaitRoot(x, a.Root); err != nil {
			return err
		}
		state := cmavInSlot // a count the root does not expect: nothing moves, the root reports it
		if rc, rd := getPair(table[me*16:]); rc == c {
			state = cmavCopied
			if peerBuf(cmaRec(data, a.Root)).write(a.Send, rd) != nil {
				state = cmavFailed
			}
		}
		binary.LittleEndian.PutUint64(slot[8:], uint64(state))
		if err := x.c.c.ShmArrive(); err != nil {
			return err
		}
		if state == cmavFailed {
			return x.Send(a.Send, a.Root, cmaRepairTag)
		}
		return nil
	}
	publishBuf(cmaRec(data, me), a.Recv)
	for r := range n {
		putPair(table[r*16:], a.RecvCounts[r], a.RecvDispls[r])
	}
	if a.Send != nil { // nil: in place, the root's block is there already
		copy(a.Recv[a.RecvDispls[me]:][:a.RecvCounts[me]], a.Send)
	}
	// Every rank has arrived after this: its slot and state are written,
	// and the root's buffer is no longer written.
	sigErr := meetAsRoot(x)
	sigs := x.c.c.ShmScratchPrev()
	var bigs bigBlocks
	bigs.fail(sigErr)
	for r := range n {
		if r == me || string(sigs[r*sigSize:(r+1)*sigSize]) != string(sigs[me*sigSize:(me+1)*sigSize]) {
			continue
		}
		slot := slots[r*q : (r+1)*q]
		c, state := getPair(slot)
		if c != a.RecvCounts[r] {
			bigs.fail(countMismatch(r, c, me, a.RecvCounts[r]))
			continue
		}
		dst := a.Recv[a.RecvDispls[r]:][:c]
		switch {
		case c <= q-cmavHdr:
			copy(dst, slot[cmavHdr:cmavHdr+c])
		case state == cmavFailed:
			bigs.add(x.Irecv(dst, r, cmaRepairTag))
		}
	}
	return bigs.wait()
}

// cmaScatterv: the root publishes its send buffer and table and writes the
// blocks that fit their slots; if some block does not fit, it posts and
// waits for every rank (its buffer is read), else it posts and goes on.
// Each rank copies its block out of its slot or the root's buffer.
func cmaScatterv(x *collComm, a *coll.Args, data []byte) error {
	n, me := x.Size(), x.Rank()
	table, slots, q := cmavRootedSlots(data, n)
	if me == a.Root {
		publishBuf(cmaRec(data, me), a.Send)
		big := false
		for r := range n {
			c, d := a.SendCounts[r], a.SendDispls[r]
			putPair(table[r*16:], c, d)
			if r == me {
				continue
			}
			slot := slots[r*q : (r+1)*q]
			putPair(slot, c, cmavInSlot)
			if c <= q-cmavHdr {
				scratchCopy(x.Size(), slot[cmavHdr:], a.Send[d:][:c])
			} else {
				big = true
			}
		}
		if !big {
			if err := x.c.c.ShmPost(); err != nil {
				return err
			}
			if a.Recv != nil {
				copy(a.Recv, a.Send[a.SendDispls[me]:][:a.SendCounts[me]])
			}
			return nil
		}
		if a.Recv != nil { // nil: in place, the root's block stays in send
			copy(a.Recv, a.Send[a.SendDispls[me]:][:a.SendCounts[me]])
		}
		sigErr := checkAfter(x, x.c.c.ShmStepPost())
		sigs := x.c.c.ShmScratchPrev()
		var bigs bigBlocks
		bigs.fail(sigErr)
		for r := range n {
			if r == me || string(sigs[r*sigSize:(r+1)*sigSize]) != string(sigs[me*sigSize:(me+1)*sigSize]) {
				continue
			}
			if _, state := getPair(slots[r*q:]); state == cmavFailed {
				bigs.add(x.Isend(a.Send[a.SendDispls[r]:][:a.SendCounts[r]], r, cmaRepairTag))
			}
		}
		return bigs.wait()
	}
	if err := awaitRoot(x, a.Root); err != nil {
		return err
	}
	slot := slots[me*q : (me+1)*q]
	c, _ := getPair(slot)
	if c != len(a.Recv) {
		if err := x.c.c.ShmArrive(); err != nil {
			return err
		}
		return countMismatch(a.Root, c, me, len(a.Recv))
	}
	state := cmavInSlot
	if c <= q-cmavHdr {
		copy(a.Recv, slot[cmavHdr:cmavHdr+c])
	} else {
		_, d := getPair(table[me*16:])
		state = cmavCopied
		if peerBuf(cmaRec(data, a.Root)).read(a.Recv, d) != nil {
			state = cmavFailed
		}
		binary.LittleEndian.PutUint64(slot[8:], uint64(state))
	}
	if err := x.c.c.ShmArrive(); err != nil {
		return err
	}
	if state == cmavFailed {
		return cmaRecvRepair(x, a.Recv, a.Root)
	}
	return nil
}

// cmaAlltoallv (Alltoallv and Alltoallw, whose counts are bytes): every
// rank publishes its send buffer and writes its counts, displacements and
// the blocks that fit their slots; all meet; each copies its column, the
// blocks larger than a slot straight out of their senders' buffers. If any
// block went by single copy a closing step follows, and the blocks whose
// reads failed are sent as messages.
func cmaAlltoallv(x *collComm, a *coll.Args, data []byte) error {
	n, me := x.Size(), x.Rank()
	regions, reg, s := cmavAlltoallSlots(data, n)
	publishBufN(cmaRec(data, me), a.Send, n)
	mine := regions[me*reg : (me+1)*reg]
	for j := range n {
		c, d := a.SendCounts[j], a.SendDispls[j]
		putPair(mine[j*16:], c, d)
		if c <= s && j != me {
			scratchCopy(n, mine[cmavSlot(n, s, me, j):], a.Send[d:][:c])
		}
	}
	if err := meet(x); err != nil {
		return err
	}
	// Whether any block goes by single copy, and whether this rank's are
	// read: every rank sees every count, so all decide alike.
	anyBig, readMe := false, false
	for i := range n {
		theirs := regions[i*reg:]
		for j := range n {
			if c := int(binary.LittleEndian.Uint64(theirs[j*16:])); c > s && i != j {
				anyBig = true
				readMe = readMe || i == me
			}
		}
	}
	var bigs bigBlocks
	failed := false
	var wantBig []int // with failed: the count from each rank whose big block to this one is to come as a message (-1: none)
	for k := 1; k < n; k++ {
		i := (me + k) % n
		theirs := regions[i*reg : (i+1)*reg]
		c, d := getPair(theirs[me*16:])
		if c != a.RecvCounts[i] {
			bigs.fail(countMismatch(i, c, me, a.RecvCounts[i]))
			continue
		}
		dst := a.Recv[a.RecvDispls[i]:][:c]
		if c <= s {
			copy(dst, theirs[cmavSlot(n, s, i, me):][:c])
		} else if !failed && peerBuf(cmaRec(data, i)).read(dst, d) != nil {
			failed = true
		}
	}
	if c := a.SendCounts[me]; c != a.RecvCounts[me] {
		bigs.fail(countMismatch(me, c, me, a.RecvCounts[me]))
	} else {
		copy(a.Recv[a.RecvDispls[me]:][:c], a.Send[a.SendDispls[me]:][:c])
	}
	if !anyBig {
		return bigs.err
	}
	if failed { // the counts are in this step's half, which the next call may reuse
		wantBig = make([]int, n)
		for i := range n {
			wantBig[i] = -1
			if c, _ := getPair(regions[i*reg+me*16:]); i != me && c > s {
				wantBig[i] = c
			}
		}
	}
	flags, err := cmaClose(x, failed, readMe || failed)
	if err != nil {
		return err
	}
	if flags == nil {
		return bigs.err
	}
	for r := range n {
		if c := a.SendCounts[r]; r != me && flags[r] != 0 && c > s {
			bigs.add(x.Isend(a.Send[a.SendDispls[r]:][:c], r, cmaRepairTag))
		}
	}
	for i, c := range wantBig {
		if c >= 0 {
			dst, merr := recvBlock(a.Recv, a.RecvCounts, a.RecvDispls, i, c, me)
			bigs.fail(merr)
			bigs.add(x.Irecv(dst, i, cmaRepairTag))
		}
	}
	return bigs.wait()
}

// cmaAlltoallSlots is Alltoall as cmaAlltoallv: every block m bytes, at
// j·m.
func cmaAlltoallSlots(x *collComm, a *coll.Args, data []byte) error {
	n := x.Size()
	m := len(a.Recv) / n
	layout := make([]int, 2*n)
	for j := range n {
		layout[j], layout[n+j] = m, j*m
	}
	b := *a
	b.SendCounts, b.RecvCounts = layout[:n], layout[:n]
	b.SendDispls, b.RecvDispls = layout[n:], layout[n:]
	return cmaAlltoallv(x, &b, data)
}

// cmaAllgathervAlg is Allgatherv in the terms of cmaGeneral.
var cmaAllgathervAlg = &cmaAlg{
	op: coll.OpAllgatherv,
	from: func(_, _, peer int, a *coll.Args) ([]byte, int) {
		return a.Recv[a.RecvDispls[peer]:][:a.RecvCounts[peer]], 0
	},
	to: func(_, me, _ int, a *coll.Args) []byte { return ownBlockV(me, a) },
	local: func(_, me int, a *coll.Args) {
		if a.Send != nil {
			copy(a.Recv[a.RecvDispls[me]:][:a.RecvCounts[me]], a.Send)
		}
	},
}

// ownBlockV is this rank's block of Allgatherv: send, or in place its block
// of recv.
func ownBlockV(me int, a *coll.Args) []byte {
	if a.Send != nil {
		return a.Send
	}
	return a.Recv[a.RecvDispls[me]:][:a.RecvCounts[me]]
}

// cmaAllgatherv: publish the own block, meet, copy the others', close.
func cmaAllgatherv(x *collComm, a *coll.Args, data []byte) error {
	return cmaGeneral(x, cmaAllgathervAlg, a, data, ownBlockV(x.Rank(), a))
}
