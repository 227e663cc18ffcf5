package gompi

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/coll"
)

// Exscan on two ranks, large vectors, both copying: a form of the chain by
// single copy (shmcoll_scan_cma.go). Rank 1's result is rank 0's vector and
// rank 0's is undefined, so the call is one copy, whatever the operator. In
// the chain rank 1 reads the whole vector (one process_vm_readv) while rank 0
// waits for it; here, as in the split single copy of Bcast
// (shmcoll_split2.go), rank 1 reads the first half out of rank 0's input
// while rank 0 writes the second half into rank 1's receive buffer
// (process_vm_writev): on this VM the time of both calls goes mostly into
// pinning the pages, a CPU's work, and the two CPUs pin at once.
//
// It keeps the chain's protocol, so that ranks that called with different
// sizes (one of them below exscanSplitMin, running the chain) still see
// each other's signature and fail with ErrMismatch instead of waiting for
// each other: each rank publishes its line (counter and buffer record; rank
// 0 its input, rank 1 its receive buffer) before its chain tag; rank 1's
// counter reaching the chain's chunk count means "done reading", beyond it
// (chainFailed) "failed". Rank 0 also resets, before its tag, a word of its
// line (exscanWritten) that it sets after its write: 1 written, 2 refused;
// rank 1 then reads the second half itself. Rank 0 leaves after rank 1's
// counter says it is done; rank 1 after rank 0's word, so that neither
// buffer goes back to its caller while the other copies.

// exscanSplitMin is the smallest vector (bytes) that takes this form: the
// bound of the other split forms (splitMin: a clear gain at 1 MiB, a small
// one at 256 KiB).
const exscanSplitMin = splitMin

// exscanWritten is the offset of rank 0's "second half written" word in its
// chain line (after the counter and the buffer record).
const exscanWritten = 8 + cmaRecSize + 4

// exscanSplit2 reports whether runChain's single-copy Exscan takes the
// two-rank split form.
func exscanSplit2(x *collComm, a *coll.Args, inclusive bool) bool {
	return !inclusive && x.Size() == 2 && len(a.Recv) >= exscanSplitMin
}

// runExscanSplit2 runs Exscan on two ranks with both copying.
func runExscanSplit2(x *collComm, a *coll.Args) error {
	const n, op = 2, coll.OpExscan
	me := x.Rank()
	eng := x.c.c
	m := len(a.Recv)
	scratch, tag, done, err := chainStart(x, a, op)
	if done {
		return err
	}
	line, counter := chainLines(scratch, n)
	written := unsafe.Pointer(&line(0)[exscanWritten])
	_, total := chainChunks(a) // total: rank 1's counter when done, as in the chain
	cut := splitCut(m, 8)

	// Publish: rank 0 its input (all of it ready, as in the chain), rank 1
	// its receive buffer.
	buf := a.Recv
	if me == 0 {
		buf = contribution(a)[:m]
		atomic.StoreUint32((*uint32)(counter(0)), total)
		atomic.StoreUint32((*uint32)(written), 0)
	} else {
		atomic.StoreUint32((*uint32)(counter(1)), 0)
	}
	publishBufN(line(me)[8:8+cmaRecSize], buf, 2)
	sig := scratch[me*sigSize : (me+1)*sigSize]
	binary.LittleEndian.PutUint32(sig[0:], opCode(op))
	binary.LittleEndian.PutUint64(sig[8:], uint64(m))
	eng.ShmSetWord(unsafe.Pointer(&sig[4]), tag)

	p := 1 - me
	theirs := scratch[p*sigSize : (p+1)*sigSize]
	if err := eng.ShmAwaitWord(unsafe.Pointer(&theirs[4]), tag); err != nil {
		return err
	}
	var runErr error
	if opCode(op) != binary.LittleEndian.Uint32(theirs[0:]) || uint64(m) != binary.LittleEndian.Uint64(theirs[8:]) {
		runErr = fmt.Errorf("%w: rank %d called %s with %d bytes; rank %d called %s with %d bytes", coll.ErrMismatch,
			p, describeOp(theirs), binary.LittleEndian.Uint64(theirs[8:]), me, op, m)
	}
	if me == 0 {
		if runErr == nil { // rank 1 runs this form too: its record is there
			w := uint32(1)
			if peerBuf(line(1)[8:8+cmaRecSize]).write(buf[cut:], cut) != nil {
				w = 2 // rank 1 reads it instead
			}
			eng.ShmSetWord(written, w)
		}
		// Keep the input until rank 1 has read it (or failed).
		if err := eng.ShmAwaitCount(counter(1), total); err != nil {
			return err
		}
	} else {
		if runErr == nil {
			runErr = exscanSplitRead(x, line, written, a.Recv, cut)
		}
		end := total
		if runErr != nil {
			end += chainFailed
		}
		eng.ShmSetWord(counter(1), end)
	}
	runtime.KeepAlive(buf)
	if err := eng.ShmArrive(); err != nil {
		return err
	}
	return runErr
}

// exscanSplitRead is rank 1's copy: the first part out of rank 0's input,
// then, once rank 0 says how its write of the rest went, the rest too if
// the kernel refused that write. A read that fails fails the call (as in
// the chain).
func exscanSplitRead(x *collComm, line func(int) []byte, written unsafe.Pointer, recv []byte, cut int) error {
	src := peerBuf(line(0)[8 : 8+cmaRecSize])
	err := src.read(recv[:cut], 0)
	// Wait for rank 0's write in any case: it writes into recv.
	if werr := x.c.c.ShmAwaitCount(written, 1); werr != nil {
		return werr
	}
	if err == nil && atomic.LoadUint32((*uint32)(written)) == 2 {
		err = src.read(recv[cut:], cut)
	}
	if err != nil {
		return fmt.Errorf("single-copy read on rank 1: %w", err)
	}
	return nil
}
