package gompi

import (
	"fmt"
	"math/bits"
	"runtime"
	"sync"

	"github.com/gompi/gompi/coll"
)

// Single-copy shared-memory reductions ("cma"): the large reductions with
// their data read straight out of the peers' buffers (shmcma.go has the
// protocol: publish, meet, read, close). The point-to-point algorithms move
// a large vector log p times through the rendezvous, each time with its own
// handshake, and fold it as often; here every byte crosses once per phase
// and each rank folds only its share.
//
// The vector is cut into p blocks on element boundaries (Reduce_scatter:
// the counts). Phase 1, a reduce-scatter by reads: rank i reads block i of
// every peer's input and folds them, in rank order, so that
// non-commutative operators get their operands as they should. Then, by
// operation:
//   - Reduce_scatter(_block): nothing more; block i is rank i's result.
//   - Allreduce: rank i writes its reduced block into every peer's receive
//     buffer (an allgather by writes, no step between; see
//     shmcoll_cmared_push.go).
//   - Reduce: the same, into the root's receive buffer only; on two ranks
//     the root reads part of the other's vector and folds it while the
//     other writes the rest into the root's buffer (cmaReduce2).
//   - Scan, Exscan: rank i keeps every prefix of block i (v₀∘…∘v_k for each
//     k); after a step rank k reads its prefix of every block from the rank
//     that owns it (a transpose): about 2m read and (p−1)/p·m folded per
//     rank, where a chain or recursive doubling folds up to log p times m;
//     on two ranks rank 1 reads rank 0's vector (cmaScan2).
//
// A read that fails at run time (after the communicator agreed that every
// rank may read every other, cmaAgree) is reported in the closing step, and
// every rank returns an error rather than a result that is wrong.

// redPiece bounds the bytes read and folded at a time in phase 1, so that
// the block just read is still in cache when it is folded. Not smaller:
// each process_vm_readv costs about 2.5 µs besides the copy on the
// development VM (1 MiB read in 16 KiB pieces 230 µs, in 128 KiB pieces 90,
// at once 68), more than the cache saves (docs/PERFORMANCE.md, "Large
// reductions: vector folds, pushed results").
const redPiece = 512 << 10

// redScratch holds buffers of this file's algorithms, as coll's scratch
// pool does for the point-to-point ones: fresh memory on every call costs
// page faults, which are dear on this VM. One pool per power of two, since
// a call takes buffers of different sizes (a block and a fold piece): with
// one pool a call would often get back a buffer too small for its block and
// allocate afresh. A buffer goes back only after a call that succeeded (a
// failed call may leave a peer reading it).
var redScratch [64]sync.Pool // of *[]byte, class k holding cap 2^k

func getRedScratch(n int) *[]byte {
	k := bits.Len(uint(max(n, 1) - 1))
	b, _ := redScratch[k].Get().(*[]byte)
	if b == nil {
		b = new([]byte)
		*b = make([]byte, 1<<k)
	}
	*b = (*b)[:n]
	return b
}

func putRedScratch(held ...*[]byte) {
	for _, b := range held {
		redScratch[bits.Len(uint(cap(*b)-1))].Put(b)
	}
}

// redAlg is one single-copy reduction: the shmAlg (for runShm) and where
// selection prefers it.
type redAlg struct {
	shmAlg
	// minBytes: selection tries "cma" first for calls of at least this many
	// bytes (coll.Operation.SizeMeaning); on two ranks, where the
	// rendezvous is one handshake per message and not a wake-up per step,
	// from minBytes2. Measured: docs/PERFORMANCE.md, "Large reductions by
	// single copy"; the reduce-scatters' 32 KiB on two ranks in "Large
	// reductions: vector folds, pushed results" (cma 7 µs against 11–15
	// for recursive halving at 32 KiB).
	minBytes, minBytes2 int
}

// redRecords is the scratch the records take: two per rank (its input and
// the buffer the others read in phase 2), and a flag per rank (cmaAgree,
// cmaClose).
func redRecords(n int, _ *coll.Args) int { return max(2*n*cmaRecSize, n) }

var redAlgs = []*redAlg{
	{shmAlg: shmAlg{op: coll.OpAllreduce,
		summary: "single copy: rank i reads block i of every peer's vector and folds them in rank order, then writes its reduced block into every peer's receive buffer",
		cost:    "2 shared barriers + ((p−1)/p)m read + ((p−1)/p)m written + ((p−1)/p)m reduced per rank",
		need:    redRecords, run: cmaAllreduce}, minBytes: 16 << 10, minBytes2: 64 << 10},
	{shmAlg: shmAlg{op: coll.OpReduce,
		summary: "single copy: rank i reads block i of every peer's vector and folds them in rank order, then writes its reduced block into the root's receive buffer (two ranks: the root reads and folds part of the other's vector while the other writes the rest into the root's buffer)",
		cost:    "2 shared barriers + ((p−1)/p)m read + m/p written + ((p−1)/p)m reduced per rank",
		need:    redRecords, run: cmaReduce}, minBytes: 16 << 10, minBytes2: 64 << 10},
	{shmAlg: shmAlg{op: coll.OpReduceScatter,
		summary: "single copy: rank i reads its block of every peer's vector and folds them in rank order",
		cost:    "2 shared barriers + ((p−1)/p)m read + ((p−1)/p)m reduced per rank (equal counts)",
		need:    redRecords, run: cmaReduceScatter}, minBytes: 16 << 10, minBytes2: 32 << 10},
	{shmAlg: shmAlg{op: coll.OpReduceScatterBlock,
		summary: "single copy: rank i reads block i of every peer's vector and folds them in rank order",
		cost:    "2 shared barriers + ((p−1)/p)m read + ((p−1)/p)m reduced per rank",
		need:    redRecords, run: cmaReduceScatter}, minBytes: 16 << 10, minBytes2: 32 << 10},
	{shmAlg: shmAlg{op: coll.OpScan,
		summary: "single copy: rank i reads block i of every peer's vector and keeps each prefix of it; rank k then reads its prefix of every block from the block's owner (two ranks: rank 1 reads rank 0's vector)",
		cost:    "3 shared barriers + 2((p−1)/p)m read + ((p−1)/p)m reduced per rank",
		need:    redRecords, run: cmaScan(true)}, minBytes: 16 << 10, minBytes2: 64 << 10},
	{shmAlg: shmAlg{op: coll.OpExscan,
		summary: "single copy: as Scan, with the prefixes of ranks 0..k−1",
		cost:    "3 shared barriers + 2((p−1)/p)m read + ((p−1)/p)m reduced per rank",
		need:    redRecords, run: cmaScan(false)}, minBytes: 16 << 10, minBytes2: 64 << 10},
}

// registerCMARed adds the single-copy reductions to coll's registry under
// the name "cma". Like "shm" they run only on the runtime's own
// communicators, for blocking calls, with at least two ranks on one host;
// and not once the communicator's ranks have agreed that single copy does
// not work there (cmaAgree).
func registerCMARed() error {
	for _, s := range redAlgs {
		err := registerSingleCopy(s.op, "cma", s.summary, s.cost,
			"all ranks on one host, at least 2; blocking calls; the kernel lets the ranks read each other's memory (process_vm_readv); large vectors",
			func(x *collComm, n int, a *coll.Args) bool {
				return n >= 2 && n*sigSize+s.need(n, a) <= x.c.c.ShmCapacity()
			},
			func(x *collComm, a *coll.Args) error { return runShm(x, &s.shmAlg, a) })
		if err != nil {
			return err
		}
	}
	return nil
}

// preferCMARedWhereFaster puts "cma" first in the selection table for the
// calls redAlgs says it wins; every other call keeps the rule it matched.
func preferCMARedWhereFaster() error {
	for _, s := range redAlgs {
		if err := preferAbove(s.op, "cma", s.minBytes, s.minBytes2); err != nil {
			return err
		}
	}
	return nil
}

// redStart is the opening of every algorithm here: agree on single copy
// (or run another algorithm), publish this rank's input and out (the buffer
// the others read in phase 2, nil if none), meet, and return every rank's
// two records. ran: the call ran (err is its outcome) with another
// algorithm.
func redStart(x *collComm, op coll.Operation, a *coll.Args, data, in, out []byte) (recs []remoteBuf, ran bool, err error) {
	on, data, err := cmaAgree(x, data)
	if err != nil {
		return nil, true, err
	}
	if !on {
		return nil, true, coll.Call(x, op, a) // agreed off: selection no longer offers "cma"
	}
	n, me := x.Size(), x.Rank()
	publishBufMany(cmaRec(data, 2*me), in, n)
	publishBufMany(cmaRec(data, 2*me+1), out, n)
	if err := meet(x); err != nil {
		return nil, true, err
	}
	// The records go stale at this rank's next step: keep copies.
	d := cmaData(x)
	recs = make([]remoteBuf, 2*n)
	for i := range recs {
		recs[i] = peerBuf(cmaRec(d, i))
	}
	return recs, false, nil
}

// redClose is the closing step of a phase: it reports this rank's read
// error (nil: none) and returns an error if any rank's reads failed, the
// same on every rank that stays. Without stay (a rank nobody reads from)
// it leaves at once unless its own reads failed.
func redClose(x *collComm, readErr error, stay bool) error {
	flags, err := cmaClose(x, readErr != nil, stay || readErr != nil)
	if err != nil {
		return err
	}
	if readErr != nil {
		return fmt.Errorf("single-copy read on rank %d: %w", x.Rank(), readErr)
	}
	for r, f := range flags {
		if f != 0 {
			return fmt.Errorf("single-copy read failed on rank %d (see its error); this rank's result is incomplete", r)
		}
	}
	return nil
}

// elemOffsets cuts m bytes of esize-byte elements into n blocks, the larger
// first: block i is [off[i], off[i+1]).
func elemOffsets(m, esize, n int) []int {
	elems := m / esize
	off := make([]int, n+1)
	for i := range n {
		size := elems / n * esize
		if i < elems%n {
			size += esize
		}
		off[i+1] = off[i] + size
	}
	return off
}

// foldBlock sets dst = v₀[lo:lo+len(dst)] ∘ … ∘ v_{n−1}[…], where v_me is
// mine (this rank's block, which must not overlap dst) and the others are
// read from the peers' records ins; it folds from the right in pieces of
// redPiece bytes through tmp (at least a piece, or the block), so that the
// operator always gets its left operand from the lower rank.
func foldBlock(x *collComm, op coll.Op, ins []remoteBuf, stride int, mine []byte, lo int, dst, tmp []byte) error {
	n, me := x.Size(), x.Rank()
	piece := max(redPiece/op.ElemSize*op.ElemSize, op.ElemSize)
	load := func(r int, to []byte, off int) error {
		if r == me {
			copy(to, mine[off:])
			return nil
		}
		return ins[r*stride].read(to, lo+off)
	}
	for off := 0; off < len(dst); off += piece {
		end := min(off+piece, len(dst))
		acc, t := dst[off:end], tmp[:end-off]
		top := n - 2            // the next rank to fold in
		if me == n-1 && n > 1 { // acc = v_{n−2} ∘ mine in one pass, not copy and fold
			if err := load(n-2, t, off); err != nil {
				return err
			}
			op.ApplyTo(acc, t, mine[off:end])
			top = n - 3
		} else if err := load(n-1, acc, off); err != nil {
			return err
		}
		for r := top; r >= 0; r-- {
			if r == me { // the left operand as it is: no copy
				op.Apply(mine[off:end], acc)
				continue
			}
			if err := load(r, t, off); err != nil {
				return err
			}
			op.Apply(t, acc)
		}
	}
	return nil
}

// cmaReduceScatter serves Reduce_scatter and Reduce_scatter_block: phase 1
// only. In place the result goes to the start of recv, which the peers may
// still be reading (it is the input's first block): it is folded into
// scratch and copied there after the closing step.
func cmaReduceScatter(x *collComm, a *coll.Args, data []byte) error {
	n, me := x.Size(), x.Rank()
	in := contribution(a)
	var off []int
	op := coll.OpReduceScatterBlock
	if a.RecvCounts != nil {
		op = coll.OpReduceScatter
		off = make([]int, n+1)
		for i, c := range a.RecvCounts {
			off[i+1] = off[i] + c
		}
	} else {
		b := rsBlock(n, a)
		off = make([]int, n+1)
		for i := range n {
			off[i+1] = off[i] + b
		}
	}
	recs, ran, err := redStart(x, op, a, data, in, nil)
	if ran {
		return err
	}
	lo, hi := off[me], off[me+1]
	var held []*[]byte
	out := a.Recv[:hi-lo]
	if a.Send == nil {
		s := getRedScratch(hi - lo)
		out, held = *s, append(held, s)
	}
	tmp := getRedScratch(min(hi-lo, redPiece))
	held = append(held, tmp)
	err = foldBlock(x, a.Op, recs, 2, in[lo:hi], lo, out, *tmp)
	if err = redClose(x, err, true); err != nil {
		return err
	}
	if a.Send == nil {
		copy(a.Recv[:hi-lo], out)
	}
	runtime.KeepAlive(in)
	putRedScratch(held...)
	return nil
}

// cmaScan: phase 1 keeps the prefixes of this rank's block, slot k holding
// v₀∘…∘v_k (inclusive) for k < p, or k < p−1 (exclusive, where rank k
// wants slot k−1); phase 2 reads this rank's slot of every block.
func cmaScan(inclusive bool) func(x *collComm, a *coll.Args, data []byte) error {
	op := coll.OpExscan
	if inclusive {
		op = coll.OpScan
	}
	return func(x *collComm, a *coll.Args, data []byte) error {
		n, me := x.Size(), x.Rank()
		if n == 2 {
			return cmaScan2(x, a, data, op, inclusive)
		}
		in := contribution(a)
		off := elemOffsets(len(a.Recv), a.Op.ElemSize, n)
		lo, hi := off[me], off[me+1]
		b := hi - lo
		slots := n
		if !inclusive {
			slots = n - 1
		}
		s := getRedScratch(slots * b)
		prefix := *s
		recs, ran, err := redStart(x, op, a, data, in, prefix)
		if ran {
			return err
		}
		for k := 0; k < slots && err == nil; k++ {
			slot := prefix[k*b : (k+1)*b]
			if k == me {
				copy(slot, in[lo:hi])
			} else {
				err = recs[2*k].read(slot, lo)
			}
			if err == nil && k > 0 {
				a.Op.Apply(prefix[(k-1)*b:k*b], slot)
			}
		}
		if err = redClose(x, err, true); err != nil {
			return err
		}
		want := me // the slot this rank reads of every block
		if !inclusive {
			want = me - 1
		}
		if want >= 0 {
			for i := range n {
				r := (me + i) % n
				blk := a.Recv[off[r]:off[r+1]]
				if r == me {
					copy(blk, prefix[want*b:(want+1)*b])
				} else if err == nil {
					err = recs[2*r+1].read(blk, want*len(blk))
				}
			}
		}
		if err = redClose(x, err, true); err != nil {
			return err
		}
		runtime.KeepAlive(in)
		putRedScratch(s)
		return nil
	}
}

// cmaScan2 is Scan and Exscan on two ranks: rank 1 reads rank 0's vector
// and folds it into its own (Exscan: reads it into recv), rank 0 keeps its
// own (Exscan: nothing); one read, one fold and two steps instead of the
// transpose's three. Nobody reads rank 1's buffers, so it leaves without
// waiting for rank 0.
func cmaScan2(x *collComm, a *coll.Args, data []byte, op coll.Operation, inclusive bool) error {
	in := contribution(a)
	recs, ran, err := redStart(x, op, a, data, in, nil)
	if ran {
		return err
	}
	if x.Rank() == 0 {
		if inclusive && a.Send != nil {
			copy(a.Recv, in)
		}
		if err := redClose(x, nil, true); err != nil {
			return err
		}
		runtime.KeepAlive(in)
		return nil
	}
	v0 := recs[0]
	if !inclusive {
		err = v0.read(a.Recv, 0)
		return redClose(x, err, false)
	}
	piece := max(redPiece/a.Op.ElemSize*a.Op.ElemSize, a.Op.ElemSize)
	tmp := getRedScratch(min(len(a.Recv), piece))
	for off := 0; off < len(a.Recv) && err == nil; off += piece {
		end := min(off+piece, len(a.Recv))
		acc := a.Recv[off:end]
		t := (*tmp)[:len(acc)]
		if err = v0.read(t, off); err == nil {
			if a.Send != nil { // recv = prefix ∘ own in one pass
				a.Op.ApplyTo(acc, t, in[off:end])
			} else {
				a.Op.Apply(t, acc)
			}
		}
	}
	if err = redClose(x, err, false); err != nil {
		return err
	}
	putRedScratch(tmp)
	return nil
}
