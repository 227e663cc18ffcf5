package gompi

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/coll"
)

// The chain by single copy: Scan and Exscan of vectors larger than the
// scratch area. Rank r publishes the buffer that will hold prefix r (Scan:
// its receive buffer; Exscan: a buffer of its own, since its result is
// prefix r−1), and a progress counter: how many chunks of it are ready.
// Rank r reads chunk c of rank r−1's buffer (process_vm_readv) as soon as
// rank r−1's counter passes c, folds its own vector's chunk into it, and
// counts the chunk as ready in turn: a pipeline, in which every rank reads
// and folds the vector once, where the single-copy transpose ("cma") reads
// it twice and takes three steps.
//
// Rank r's buffer must stay its caller's until rank r+1 has read all of it:
// rank r waits, before it returns, for rank r+1's counter to reach the end
// (rank r+1 counts a chunk after reading it). Then every rank arrives at
// the step without waiting for it (ShmArrive), which, as in the chain
// through the scratch area, keeps the half from being reused while anyone
// still looks at a counter or a record in it.
//
// Each rank has a line of the data area: its counter, and its buffer's
// record. It writes both before its signature's chain tag (shmcoll_scan.go),
// so that a rank that sees the tag finds them valid; the counter is only
// then read. A failure (a read the kernel refuses, ranks that disagree)
// sets the counter to chainFailed beyond the end: the ranks after it stop
// and fail too, the ranks before it, whose results are complete, go on.

// chainLine is the data area each rank's counter and record take: a cache
// line.
const chainLine = 64

// chainChunk is the bytes of a chunk of the pipeline.
const chainChunk = 64 << 10

// chainBatch is the most chunks read at once, when the rank before has
// more than one ready (as rank 0 always has): fewer system calls, and the
// folds still mostly in cache.
const chainBatch = 4

// chainFailed is added to the chunk count to mark a failed rank.
const chainFailed = 1 << 24

// chainLines gives the chain's per-rank lines in its scratch half (after
// the n signatures) and each line's first word, the rank's progress counter.
func chainLines(scratch []byte, n int) (line func(r int) []byte, counter func(r int) unsafe.Pointer) {
	data := scratch[n*sigSize:]
	line = func(r int) []byte { return data[r*chainLine : (r+1)*chainLine] }
	counter = func(r int) unsafe.Pointer { return unsafe.Pointer(&line(r)[0]) }
	return line, counter
}

func runChainCMA(x *collComm, a *coll.Args, op coll.Operation, inclusive bool) error {
	n, me := x.Size(), x.Rank()
	eng := x.c.c
	m := len(a.Recv)
	scratch, tag, done, err := chainStart(x, a, op)
	if done {
		return err
	}
	line, counter := chainLines(scratch, n)
	own := contribution(a)
	chunk, total := chainChunks(a)

	// Publish: the buffer rank me+1 reads, and how much of it is ready.
	var out []byte
	var held []*[]byte
	switch {
	case me == 0:
		out = own // prefix 0 is rank 0's vector
	case inclusive:
		out = a.Recv
	case me < n-1:
		p := getRedScratch(m)
		out, held = *p, append(held, p)
	}
	ready := uint32(0)
	push0 := me == 0 && n > 1 && chainPushOn // rank 0 counts its vector after its push
	if me == 0 && !push0 {
		ready = total
	}
	atomic.StoreUint32((*uint32)(counter(me)), ready)
	publishBufMany(line(me)[8:8+cmaRecSize], out, n)
	pushable := me > 0 && chainPushable(inclusive, a.Op.Commutative, a.Send != nil)
	if me > 0 {
		chainPublishRecv(line(me), a.Recv, pushable, n)
	}
	sig := scratch[me*sigSize : (me+1)*sigSize]
	binary.LittleEndian.PutUint32(sig[0:], opCode(op))
	binary.LittleEndian.PutUint64(sig[8:], uint64(m))
	eng.ShmSetWord(unsafe.Pointer(&sig[4]), tag)

	fail := func() { eng.ShmSetWord(counter(me), total+chainFailed) }
	var runErr error
	pushed := false
	if me == 0 {
		if push0 {
			next := scratch[sigSize : 2*sigSize]
			if err := eng.ShmAwaitWord(unsafe.Pointer(&next[4]), tag); err != nil {
				return err
			}
			pushed = chainPush(x, scratch, line, out, opCode(op))
			eng.ShmSetWord(counter(me), total)
		}
		if inclusive && a.Send != nil {
			copy(a.Recv, own)
		}
	} else {
		pushed, runErr = chainFollow(x, a, op, inclusive, pushable, scratch, line, counter, tag, total, chunk, own, out)
		if runErr != nil {
			fail() // the ranks after this one stop, the one before need not wait
			if e, ok := runErr.(stepErr); ok {
				return e.error
			}
		}
	}
	// Keep the buffer until the next rank has read all of it (unless
	// this rank wrote it there).
	if me < n-1 && !pushed {
		next := scratch[(me+1)*sigSize : (me+2)*sigSize]
		if err := eng.ShmAwaitWord(unsafe.Pointer(&next[4]), tag); err != nil {
			return err
		}
		if err := eng.ShmAwaitCount(counter(me+1), total); err != nil {
			return err
		}
	}
	runtime.KeepAlive(own)
	runtime.KeepAlive(out)
	if err := eng.ShmArrive(); err != nil {
		return err
	}
	if runErr == nil {
		putRedScratch(held...)
	}
	return runErr
}

// stepErr marks an error of the wait itself (a peer lost, the job
// aborting): the rank leaves at once, without the closing wait.
type stepErr struct{ error }

func (e stepErr) Unwrap() error { return e.error }

// chainFollow is the part of a rank after the first: wait for rank me−1's
// tag, check its signature, then read, fold and count chunk by chunk. It
// reports whether it pushed its prefix into rank me+1's receive buffer.
func chainFollow(x *collComm, a *coll.Args, op coll.Operation, inclusive, pushable bool, scratch []byte,
	line func(int) []byte, counter func(int) unsafe.Pointer, tag, total uint32, chunk int, own, out []byte) (pushed bool, err error) {
	n, me := x.Size(), x.Rank()
	eng := x.c.c
	m := len(a.Recv)
	prev := scratch[(me-1)*sigSize : me*sigSize]
	if err := eng.ShmAwaitWord(unsafe.Pointer(&prev[4]), tag); err != nil {
		return false, stepErr{err}
	}
	if opCode(op) != binary.LittleEndian.Uint32(prev[0:]) || uint64(m) != binary.LittleEndian.Uint64(prev[8:]) {
		return false, fmt.Errorf("%w: rank %d called %s with %d bytes; rank %d called %s with %d bytes", coll.ErrMismatch,
			me-1, describeOp(prev), binary.LittleEndian.Uint64(prev[8:]), me, op, m)
	}
	src := peerBuf(line(me - 1)[8 : 8+cmaRecSize])
	// Where the read goes: straight into recv where that costs no copy
	// (Exscan, whose result is the prefix read; Scan with a commutative
	// operator and its own send buffer, which folds its vector into what
	// it read), else into a buffer folded into recv.
	direct := !inclusive || a.Op.Commutative && a.Send != nil
	var tmp *[]byte
	if !direct {
		tmp = getRedScratch(min(chainBatch*chunk, m))
	}
	for c := uint32(0); c < total; {
		if err := eng.ShmAwaitCount(counter(me-1), c+1); err != nil {
			return false, stepErr{err}
		}
		ready := atomic.LoadUint32((*uint32)(counter(me - 1)))
		if int32(ready-total) > 0 {
			return false, fmt.Errorf("single-copy chain: rank %d failed (see its error); this rank's result is incomplete", me-1)
		}
		// Every chunk ready, up to a batch (no limit for Exscan's last rank,
		// which only reads): one read for all of them.
		end := ready
		if inclusive || me < n-1 {
			end = min(ready, c+chainBatch)
		}
		// Pushed: the whole prefix is in recv already; the cases below
		// that take a push (Exscan with a send buffer, the direct Scan)
		// fold it without reading.
		in := false
		if c == 0 && pushable {
			if in, err = chainPushed(x, line); err != nil {
				return false, stepErr{err}
			}
			if in {
				end = total
			}
		}
		lo, hi := int(c)*chunk, min(int(end)*chunk, m)
		recv := a.Recv[lo:hi]
		read := func(dst []byte, off int) error {
			if in {
				return nil
			}
			return src.read(dst, off)
		}
		switch {
		case !inclusive && (me == n-1 || a.Send != nil):
			// prefix me = prefix me−1 ∘ own into the published buffer in
			// one pass (ApplyTo), after reading prefix me−1 into recv
			if err = read(recv, lo); err == nil && me < n-1 {
				a.Op.ApplyTo(out[lo:hi], recv, own[lo:hi])
			}
		case !inclusive: // in place: own is recv, which the read overwrites
			copy(out[lo:hi], own[lo:hi])
			if err = src.read(recv, lo); err == nil {
				a.Op.Apply(recv, out[lo:hi])
			}
		case direct: // prefix ∘ own = own ∘ prefix
			if err = read(recv, lo); err == nil {
				a.Op.Apply(own[lo:hi], recv)
			}
		default:
			t := (*tmp)[:hi-lo]
			if err = src.read(t, lo); err == nil {
				if a.Send != nil {
					a.Op.ApplyTo(recv, t, own[lo:hi])
				} else {
					a.Op.Apply(t, recv)
				}
			}
		}
		if err != nil {
			return false, fmt.Errorf("single-copy read on rank %d: %w", me, err)
		}
		if end == total && me < n-1 && chainPushOn {
			next := scratch[(me+1)*sigSize : (me+2)*sigSize]
			if err := eng.ShmAwaitWord(unsafe.Pointer(&next[4]), tag); err != nil {
				return false, stepErr{err}
			}
			pushed = chainPush(x, scratch, line, out, opCode(op))
		}
		eng.ShmSetWord(counter(me), end)
		c = end
	}
	if tmp != nil {
		putRedScratch(tmp)
	}
	return pushed, nil
}

// chainStart opens a chain's step for op: the step (its signature is
// checked by the agreement), the lead of the next step, and the ranks'
// agreement on single copy. It returns the step's scratch area (the
// signatures, then the chain's lines) and the chain's tag; done reports that the call is over, with err: a failed step,
// or the ranks agreed single copy off and another algorithm ran it ("chain"
// is no longer available for this call).
func chainStart(x *collComm, a *coll.Args, op coll.Operation) (scratch []byte, tag uint32, done bool, err error) {
	n, eng := x.Size(), x.c.c
	scratch, err = beginStep(x, op, 0, len(a.Recv))
	if err != nil {
		return nil, 0, true, err
	}
	eng.ShmLeadNext(chainLead)
	on, _, err := cmaAgree(x, scratch[n*sigSize:])
	if err != nil {
		return nil, 0, true, err
	}
	if !on {
		return nil, 0, true, coll.Call(x, op, a)
	}
	return eng.ShmScratch(), chainTag(eng.ShmSeq()), false, nil
}

// chainChunks is the chain's chunk for a's vector (chainChunk rounded down
// to whole elements, at least one) and how many chunks the vector has.
func chainChunks(a *coll.Args) (chunk int, total uint32) {
	esize := max(a.Op.ElemSize, 1)
	chunk = max(chainChunk/esize*esize, esize)
	return chunk, uint32((len(a.Recv) + chunk - 1) / chunk)
}
