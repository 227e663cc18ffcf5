package gompi

import (
	"encoding/binary"
	"os"
	"sync/atomic"
	"unsafe"
)

// The chain by single copy, pushed: where rank r+1's result goes straight
// into its receive buffer (Exscan with a send buffer; a commutative Scan
// with one), rank r+1 publishes that buffer too, and rank r, once its
// whole prefix is ready, writes it there itself (process_vm_writev) instead
// of waiting for rank r+1 to be scheduled, read it and count it. Rank r
// then leaves without waiting for rank r+1: its buffer is no longer
// needed. Either rank moves the prefix, never both: a word in rank r+1's
// line, which rank r+1 clears before its tag, is taken by the first of
// them (rank r to write, rank r+1 to read, as in cma_pairwise). Rank r
// sets its counter only after the write, so rank r+1, which looks at the
// word once the counter has moved, finds it written (or, if it looked at an
// earlier chunk's count, still being written: it waits for the end).
//
// On 4 and 8 ranks sharing 2 CPUs, each hand-off of the pulled chain wakes
// rank r+1 to read and then rank r to leave; pushed, rank r copies while
// it runs and leaves.

// chainPushOn turns the push on (GOMPI_CHAIN_PUSH=0 turns it off; tests
// set it).
var chainPushOn = os.Getenv("GOMPI_CHAIN_PUSH") != "0"

// The transfer word's states, in rank r+1's line (chainXWord).
const (
	chainXFree    = 0 // nobody has taken the transfer yet
	chainXWriting = 1 // rank r is writing
	chainXFailed  = 2 // rank r's write failed: rank r+1 reads
	chainXWritten = 3 // the prefix is in rank r+1's receive buffer
	chainXReading = 4 // rank r+1 reads, as in the pulled chain
	chainXNone    = 5 // rank r+1 takes no push
)

// Where a rank's receive buffer record and transfer word lie in its line
// (after the counter and the published buffer's record at 8).
const (
	chainRecvRec = 32
	chainXWord   = 56
)

// chainPushable reports whether a rank after the first takes the push: its
// result is built in its receive buffer from the prefix read into it, and
// the receive buffer is not its own vector.
func chainPushable(inclusive, commutative, hasSend bool) bool {
	return chainPushOn && hasSend && (!inclusive || commutative)
}

// chainPublishRecv writes, before the rank's tag, whether it takes the
// push and where (n: the communicator's ranks, for publishBufMany).
func chainPublishRecv(line []byte, recv []byte, pushable bool, n int) {
	w := (*uint32)(unsafe.Pointer(&line[chainXWord]))
	if !pushable {
		atomic.StoreUint32(w, chainXNone)
		return
	}
	publishBufMany(line[chainRecvRec:chainRecvRec+cmaRecSize], recv, n)
	atomic.StoreUint32(w, chainXFree)
}

// chainPush is rank me's attempt to write its whole prefix out into rank
// me+1's receive buffer, after rank me+1's tag was seen. It reports whether
// it did; if not, rank me+1 reads (the caller keeps out and waits for it).
func chainPush(x *collComm, scratch []byte, line func(int) []byte, out []byte, opc uint32) bool {
	me := x.Rank()
	next := scratch[(me+1)*sigSize : (me+2)*sigSize]
	if opc != binary.LittleEndian.Uint32(next[0:]) || uint64(len(out)) != binary.LittleEndian.Uint64(next[8:]) {
		return false // a mismatch: rank me+1 finds it and fails
	}
	nl := line(me + 1)
	w := unsafe.Pointer(&nl[chainXWord])
	if !atomic.CompareAndSwapUint32((*uint32)(w), chainXFree, chainXWriting) {
		return false
	}
	if err := peerBuf(nl[chainRecvRec:chainRecvRec+cmaRecSize]).write(out, 0); err != nil {
		x.c.c.ShmSetWord(w, chainXFailed)
		return false
	}
	x.c.c.ShmSetWord(w, chainXWritten)
	return true
}

// chainPushed is rank me's look at its transfer word once rank me−1's
// counter has moved: true if the prefix is already in its receive buffer,
// false if it is to read it (the word is then its own).
func chainPushed(x *collComm, line func(int) []byte) (bool, error) {
	w := unsafe.Pointer(&line(x.Rank())[chainXWord])
	if atomic.CompareAndSwapUint32((*uint32)(w), chainXFree, chainXReading) {
		return false, nil
	}
	if err := x.c.c.ShmAwaitCount(w, chainXFailed); err != nil { // chainXWriting: wait for its end
		return false, err
	}
	return atomic.LoadUint32((*uint32)(w)) == chainXWritten, nil
}
