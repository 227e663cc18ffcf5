package gompi

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/internal/shm"
)

// Scan and Exscan where each rank waits only for the ranks below it
// ("chain"). The "shm" form is one full step: every rank writes its vector
// and waits for every other rank before it folds, so rank 0, which needs
// nothing, waits for the last rank, and on 4 ranks sharing 2 CPUs each call
// is a round of wake-ups for everyone. Open MPI's Scan is a chain in which
// rank r waits only for rank r−1.
//
// Here every rank that someone reads from (all but the last) writes its
// vector into the step's scratch half and then sets a word of its own, its
// signature's middle word, to a value that names the step (chainTag);
// rank r waits for the words of ranks 0..r−1 only (Exscan: 0..r−2 and
// r−1) and folds their vectors and its own in rank order. Every rank
// arrives at the step without waiting for it (ShmArrive) right after its
// write, before it waits and reads (see "Arriving first" below).
//
// Arriving first (issue 18, branch scan8). The half is written again two
// steps later, and a rank writing it then has seen the step in between
// released (ShmBegin), that is, every rank arrive at that step, which each
// does only after its reads of this one: so the reads of this step are
// safe whether a rank arrived at it before or after them (the rule of
// internal/core's steps is that reads of step k end before the arrival at
// step k+1). The chain arrived after its reads until this round: the
// release of the step, which the next call (the OSU loop's barrier) waits
// for, then needed rank n−1 to run after ranks 0..n−2 had written; on 4
// ranks sharing 2 CPUs that was a round of scheduling more per call than
// the one full step of "shm" (whole loop of Scan 8 B and Barrier 42-45 µs
// against 28-29, Open MPI 25-31). Arriving first, the release needs each
// rank to have run once.
//
// The word is 32 bits (a futex word: readers sleep on it) and lies in the
// signature area, which holds nothing but signatures: what an earlier step
// left there is a signature whose middle word is a root, a hash of counts,
// or an older chain tag, and a chain tag differs from the roots and from
// every other tag of the last 2^30 steps. The rest of the signature (the
// operation and the size) is checked once the word is seen: ranks that
// disagree get ErrMismatch. Ranks that call different operations, one of
// them with this algorithm, may wait for each other until the job's wait
// limit or a lost peer ends the wait.

// registerChain adds the chain algorithms to coll's registry under the name
// "chain".
func registerChain() error {
	for _, inclusive := range []bool{true, false} {
		op, summary := coll.OpScan, "every rank but the last writes its vector into shared scratch and flags it; rank r waits for the flags of ranks 0..r−1 only, folds their vectors and its own in rank order and goes on"
		if !inclusive {
			op, summary = coll.OpExscan, "as Scan's chain, with the vectors of ranks 0..r−1"
		}
		inc := inclusive
		err := coll.Register(coll.Algorithm{
			Op: op, Name: "chain", Summary: summary,
			Cost:        coll.Cost{Formula: "small: 1 flag wait on r ranks + (p−1)·m copied + r·m reduced on rank r, no barrier; large: a pipelined chain, m read and m reduced per rank"},
			Constraints: "all ranks on one host; blocking calls; larger vectors than the scratch area holds: the kernel lets ranks read each other's memory (process_vm_readv)",
			Available: func(c coll.Comm, a *coll.Args) bool {
				x, ok := c.(*collComm)
				if !ok || x.nonblocking {
					return false
				}
				n := x.Size()
				return chainFits(x, a) || n >= 2 && x.c.cma.Load() != cmaOff && n*(sigSize+chainLine) <= x.c.c.ShmCapacity()
			},
			Run: func(c coll.Comm, a *coll.Args) error { return runChain(c.(*collComm), a, op, inc) },
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// chainPreferred says where selection tries "chain" first: calls on at
// least minRanks ranks, and on two ranks only those of at most max2 bytes or
// at least min2 (between them the rule they matched before; min2 0: every
// size).
// Measured against "shm", "cma", recursive doubling and Open MPI on 2, 4
// and 8 ranks from 8 B to 1 MiB (docs/PERFORMANCE.md, "Scan and Exscan by
// a chain"): where the vectors fit the scratch area it beat "shm" (one full
// step) at 4 and 8 ranks and matched it at 2; beyond, its single-copy
// pipeline beat the single-copy transpose ("cma") at every rank count. On
// two ranks of 32 KiB, where the vectors no longer fit, recursive doubling
// (one exchange) beat it (5.8 µs against 9.5).
//
// On two ranks the vectors that fit beside the arrival words (up to
// shm.PairLineData bytes) run "shm" instead (minLine2): its two-rank form
// (prefixRun) is one post by rank 0 with its vector on its arrival word's
// line, where the chain's flag is a word of the signature line and the
// vector lies in the scratch area (two lines to read, and rank 0's arrival
// besides). Measured alternated with Open MPI (docs/PERFORMANCE.md, "Two
// ranks: less code per call, fourth round"): Exscan 8 B 0.46 against 0.55
// µs, 64 B 0.50 against 0.57, minima 0.41 against 0.47 for Scan and Exscan
// at 8 and 64 B; at 512 B the chain stays faster (0.59 against 0.89).
var chainPreferred = []struct {
	op         coll.Operation
	minRanks   int
	max2, min2 int
}{
	{coll.OpScan, 2, 16 << 10, 64 << 10},
	// Exscan on two ranks is one read by rank 1: it beat recursive
	// doubling at 32 KiB too (5.3 µs against 11.3).
	{coll.OpExscan, 2, 0, 0},
}

// minLine2 is the smallest vector the chain takes on two ranks: smaller ones
// go on the lines ("shm").
const minLine2 = shm.PairLineData + 1

// chainFirst reports whether chainPreferred puts "chain" first for op on n
// ranks and bytes.
func chainFirst(op coll.Operation, n, bytes int) bool {
	for _, p := range chainPreferred {
		if p.op == op {
			if n == 2 && bytes < minLine2 {
				return false
			}
			return n >= p.minRanks && (n != 2 || p.min2 == 0 || bytes <= p.max2 || bytes >= p.min2)
		}
	}
	return false
}

// preferChainWhereFaster puts "chain" in front of every other rule
// (tierFirst, selection.go) where chainPreferred says it wins; a call that
// chain cannot run (its vectors do not fit and single copy is off) passes on
// to the rules below.
func preferChainWhereFaster() error {
	chain := []string{"chain"}
	for _, p := range chainPreferred {
		rules := []coll.Rule{{MinRanks: max(p.minRanks, 3), Use: chain}}
		if p.minRanks <= 2 {
			if p.min2 == 0 {
				rules = append(rules, coll.Rule{MinRanks: 2, MaxRanks: 2, MinBytes: minLine2, Use: chain})
			} else {
				rules = append(rules,
					coll.Rule{MinRanks: 2, MaxRanks: 2, MinBytes: minLine2, MaxBytes: p.max2, Use: chain},
					coll.Rule{MinRanks: 2, MaxRanks: 2, MinBytes: p.min2, Use: chain})
			}
		}
		for _, r := range rules {
			if err := prefer(p.op, tierFirst, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// chainLead is the rank that leaves the next barrier first (ShmLeadNext):
// rank 0, whose vector every other rank waits for, so that in a loop of
// Scan and Barrier it has written before the others look.
// Measured on 4 ranks sharing 2 CPUs (8 and 512 B, two runs each): 3.6-11
// µs against 7.7-29 without.
const chainLead = 0

// chainTag is the word that marks a rank's vector of step k as written:
// bit 30 set and bit 31 clear, so never a root (small, or −1), and the same
// only every 2^30 steps.
func chainTag(k uint64) uint32 { return uint32(k+1)&(1<<30-1) | 1<<30 }

// chainFits reports whether every rank's vector fits the scratch area.
func chainFits(x *collComm, a *coll.Args) bool {
	return x.Size()*sigSize+x.Size()*len(a.Recv) <= x.c.c.ShmCapacity()
}

// runChain runs one Scan (inclusive) or Exscan: through the scratch area
// where the vectors fit, else by single copy (runChainCMA).
func runChain(x *collComm, a *coll.Args, op coll.Operation, inclusive bool) error {
	if !chainFits(x, a) {
		if exscanSplit2(x, a, inclusive) {
			return runExscanSplit2(x, a) // two ranks, both copying (shmcoll_scan_split2.go)
		}
		return runChainCMA(x, a, op, inclusive)
	}
	n, me := x.Size(), x.Rank()
	eng := x.c.c
	if err := eng.ShmBegin(); err != nil {
		return err
	}
	eng.ShmLeadNext(chainLead)
	tag := chainTag(eng.ShmSeq())
	scratch := eng.ShmScratch()
	data := scratch[n*sigSize:]
	m := len(a.Recv)
	own := contribution(a)
	sig := scratch[me*sigSize : (me+1)*sigSize]
	code := chainCode(inclusive) // opCode(op), worked out once
	if me < n-1 {                // the last rank's vector is nobody's to read
		scanScratchCopy(n, data[me*m:(me+1)*m], own[:m])
		binary.LittleEndian.PutUint32(sig[0:], code)
		binary.LittleEndian.PutUint64(sig[8:], uint64(m))
		eng.ShmSetWord(unsafe.Pointer(&sig[4]), tag)
	}
	// Arrive before reading (see "Arriving first" above): the step's
	// release then needs each rank to have run once, not each rank to have
	// run after the ranks below it wrote.
	if err := eng.ShmArrive(); err != nil {
		return err
	}
	hi := me // the ranks whose vectors this rank folds, besides its own
	for j := range hi {
		theirs := scratch[j*sigSize : (j+1)*sigSize]
		if err := eng.ShmAwaitWord(unsafe.Pointer(&theirs[4]), tag); err != nil {
			return err
		}
		if code != binary.LittleEndian.Uint32(theirs[0:]) || uint64(m) != binary.LittleEndian.Uint64(theirs[8:]) {
			return fmt.Errorf("%w: rank %d called %s with %d bytes; rank %d called %s with %d bytes", coll.ErrMismatch,
				j, describeOp(theirs), binary.LittleEndian.Uint64(theirs[8:]), me, op, m)
		}
	}
	// Fold from the right, so that the operator's left operand is always
	// the lower rank's: v₀ ∘ (v₁ ∘ (… ∘ v_last)).
	acc := a.Recv
	last := hi - 1 // the rightmost operand: this rank's own vector for Scan
	if inclusive {
		if a.Send != nil {
			copy(acc, own[:m])
		}
	} else if last >= 0 {
		copy(acc, data[last*m:(last+1)*m])
	}
	if inclusive {
		last = hi
	}
	for j := last - 1; j >= 0; j-- {
		a.Op.Apply(data[j*m:(j+1)*m], acc)
	}
	return nil
}

// scanNTMin is the smallest vector that Scan's and Exscan's writers (the
// chain's, and rank 0 of the two-rank shm form, shmcoll_pair.go) copy
// into the scratch half with non-temporal stores where a plain copy is
// slow, on two ranks only (scanScratchCopy).
const scanNTMin = 16 << 10

// scanScratchCopy is a Scan or Exscan writer's copy of its vector into the
// scratch half. The half's lines were read by the peer two steps before,
// and on this VM's two vCPUs a plain store first takes each line back from
// the peer's cache: in the VM's slow mode (docs/PERFORMANCE.md, "Two ranks,
// 32 KiB: non-temporal stores") rank 0 of a two-rank Exscan of 32 KiB took
// 4.4 µs a call (that copy, mostly) and rank 1 5.9, Open MPI 4.0-4.9; with
// non-temporal stores 0.9 and 2.5-2.8. In the fast mode the plain copy is
// cheap (rank 0 0.9 µs for its whole call) and rank 1 copies out of rank
// 0's cache, 1.46 µs at the median against 2.5 out of memory after
// non-temporal stores. So on two ranks from scanNTMin the writer times a
// plain copy every scanProbeEvery calls and copies plainly until the next
// probe where that copy took at most scanPlainNsPerKiB, else with
// non-temporal stores. Below 16 KiB, and on 4 ranks sharing 2 CPUs (where a
// reader often runs after the writer on the same CPU, its lines still in
// cache), non-temporal stores were no faster in either mode
// (docs/PERFORMANCE.md, "Scan and Exscan on two ranks from 16 KiB",
// branch scan11); scratchCopy's 4 KiB bound is the other writers'.
func scanScratchCopy(n int, dst, src []byte) {
	if n != 2 || len(src) < scanNTMin {
		copy(dst, src)
		return
	}
	if scanCopy.calls.Add(1)%scanProbeEvery == 0 {
		t0 := time.Now()
		copy(dst, src)
		cheap := time.Since(t0) <= time.Duration(len(src)>>10)*scanPlainNsPerKiB
		scanCopy.plain.Store(cheap)
		return
	}
	if scanCopy.plain.Load() {
		copy(dst, src)
		return
	}
	ntCopy(dst, src)
}

// scanCopy is the process's choice of scanScratchCopy (atomic: ranks may
// be goroutines of one process): calls counts the copies, plain says that
// the last probe found a plain copy cheap. Until the first probe the copies
// are non-temporal.
var scanCopy struct {
	calls atomic.Uint32
	plain atomic.Bool
}

// scanProbeEvery is how often scanScratchCopy times a plain copy: in the
// slow mode the probe costs some 4 µs once, 0.06 µs a call.
const scanProbeEvery = 64

// scanPlainNsPerKiB is the most a plain copy may take per KiB to be kept:
// 1.6 µs for 32 KiB, where the fast mode's takes about 0.5 and the slow
// mode's 4.4.
const scanPlainNsPerKiB = 50 * time.Nanosecond

// describeOp names the operation of a signature where it is Scan or Exscan.
func describeOp(sig []byte) string {
	switch binary.LittleEndian.Uint32(sig[0:]) {
	case opCode(coll.OpScan):
		return string(coll.OpScan)
	case opCode(coll.OpExscan):
		return string(coll.OpExscan)
	}
	return "another operation"
}

// installChain registers "chain" and puts it first where it wins; the last
// step of installCollectives, so that it goes in front of "shm".
func installChain() error {
	if err := registerChain(); err != nil {
		return err
	}
	return preferChainWhereFaster()
}
