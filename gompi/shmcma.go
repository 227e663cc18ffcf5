package gompi

import (
	"encoding/binary"
	"errors"
	"os"
	"runtime"
	"strconv"
	"sync"
	"unsafe"

	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/shm"
)

// Single-copy shared-memory collectives: cross-memory attach (CMA). Instead
// of copying the data into the communicator's scratch area and out again,
// every rank publishes where its own buffer lies (pid, address, length) in
// the scratch area, all meet at one step, and each rank copies what it needs
// straight out of the peers' buffers with process_vm_readv: one copy, all
// ranks copying in parallel, one system call per range. A closing step then
// makes sure no buffer is handed back to its caller before every reader is
// done with it.
//
// The protocol for an algorithm (shmcoll_cma.go has the collectives that use
// it), inside a shared-memory call (runShm has waited for the last open step
// and written the signature):
//
//  1. on, data, err := cmaAgree(x, data): on the communicator's first such
//     call, two steps agree whether every rank may read every other's memory
//     (see below); if not on, run another algorithm.
//  2. publishBuf(cmaRec(data, me), buf); then meet (or a rooted step).
//  3. peerBuf(cmaRec(cmaData(x), r)).read(dst, off) for each range wanted;
//     cmaData is the data area of the step just taken.
//  4. flags, err := cmaClose(x, failed, stay): the closing step. Every rank
//     whose buffer others read must stay (wait for everyone); flags tells
//     which ranks failed to read, so that their data can be sent to them
//     by point-to-point messages instead (a read refused at run time must
//     still give the right result).
//  5. runtime.KeepAlive(buf) after the closing step.
//
// Publishing &buf[0] is safe: the caller holds buf for the whole call, and
// buffers handed to a collective escape to the heap (they pass through
// interfaces and the communicator), where Go never moves an object.

// cmaRecSize is the size of one published buffer record in the scratch
// area: pid, address and length, 8 bytes each.
const cmaRecSize = 24

// cmaRec is rank r's record in the data area of a step.
func cmaRec(data []byte, r int) []byte { return data[r*cmaRecSize : (r+1)*cmaRecSize] }

// cmaData is the data area of the step just taken (after meet or a wait for
// the root): where the peers' records are.
func cmaData(x *collComm) []byte { return x.c.c.ShmScratchPrev()[x.Size()*sigSize:] }

var selfPID = os.Getpid()

// publishBuf writes the record of buf (this process, its address, its
// length) into rec. Keep buf alive (runtime.KeepAlive) until the closing
// step.
func publishBuf(rec, buf []byte) {
	binary.LittleEndian.PutUint64(rec[0:], uint64(selfPID))
	binary.LittleEndian.PutUint64(rec[8:], uint64(uintptr(unsafe.Pointer(unsafe.SliceData(buf)))))
	binary.LittleEndian.PutUint64(rec[16:], uint64(len(buf)))
	if len(buf) >= collHugeMin {
		shm.NoteSourceWeighted(buf, collHugeWeight) // huge pages under a buffer published again and again
	}
}

// collHugeMin is the smallest buffer a single-copy collective offers for a
// huge page (shm.NoteSource), where point-to-point offers any from 16 KiB.
// In a collective both ranks copy at once, and a collapse (the page copied
// into a huge one, in the background) competes for the CPU and the page
// with the peer's copy: with the smaller bound, Allgather on 2 ranks of
// 256 KiB blocks took 38-103 µs against 27-37 without huge pages and 25-43
// before (golaunch -n 2 benches osu --op allgather --sizes 262144,
// alternated, 4 rounds), while 1 MiB blocks gained (66-129 against
// 112-192 µs).
const collHugeMin = 1 << 20

// collHugeWeight is how many times its bytes a published buffer credits its
// pages with (shm.NoteSourceWeighted): a page is collapsed after two
// whole-page publishes instead of sixteen. Alltoall and Alltoallv on 4 and
// 8 ranks, the sweep's 110 calls per size after 32 KiB, 256 KiB then
// 1 MiB (golaunch benches osu, three interleaved rounds each): 1 MiB
// 1501-2045 against 497-1180 µs at 4 ranks and 4728-5953 against
// 2366-3262 at 8, 256 KiB 1112-1336 against 658-878 at 8 (Open MPI
// 648-2213 and 1116-3506): with sixteen, the first 50-100 calls of each
// new buffer ran on 4 KiB pages and through the collapses' stalls
// (docs/PERFORMANCE.md, "Collapses of collective buffers sooner").
const collHugeWeight = 8

// remoteBuf is a buffer a peer published.
type remoteBuf struct {
	pid  int
	addr uint64
	len  int
}

// peerBuf reads a record that publishBuf wrote.
func peerBuf(rec []byte) remoteBuf {
	return remoteBuf{
		pid:  int(binary.LittleEndian.Uint64(rec[0:])),
		addr: binary.LittleEndian.Uint64(rec[8:]),
		len:  int(binary.LittleEndian.Uint64(rec[16:])),
	}
}

// errCMARange: a read outside the peer's published buffer, which means the
// ranks' arguments disagree; nothing is read.
var errCMARange = errors.New("gompi: single-copy read outside the peer's buffer")

// holds reports whether bytes [off, off+n) lie within the published buffer
// of a known peer.
func (b remoteBuf) holds(off, n int) bool {
	return off >= 0 && off+n <= b.len && b.pid > 0
}

// read copies bytes [off, off+len(dst)) of the peer's buffer into dst. A
// range outside the published buffer is never read (it would be some other
// memory of the peer): that is an error, as is a refused or failed read.
func (b remoteBuf) read(dst []byte, off int) error {
	if len(dst) == 0 {
		return nil
	}
	if !b.holds(off, len(dst)) {
		return errCMARange
	}
	err := readRemote(b.pid, dst, b.addr+uint64(off))
	runtime.KeepAlive(dst)
	return err
}

// write copies src into bytes [off, off+len(src)) of the peer's buffer (a
// buffer the peer published for its peers to fill), with the same checks
// as read.
func (b remoteBuf) write(src []byte, off int) error {
	if len(src) == 0 {
		return nil
	}
	if !b.holds(off, len(src)) {
		return errCMARange
	}
	err := writeRemote(b.pid, src, b.addr+uint64(off))
	runtime.KeepAlive(src)
	return err
}

// readRemote and writeRemote are shm.ReadRemote and shm.WriteRemote; tests
// replace them to refuse.
var (
	readRemote  = shm.ReadRemote
	writeRemote = shm.WriteRemote
)

// The agreement. Whether one process may read another's memory is the
// kernel's decision (ptrace access mode: Yama's ptrace_scope, seccomp,
// containers) and may differ between pairs of ranks; an algorithm that
// some ranks run with reads and others without would hang or be wrong. So
// on a communicator's first single-copy call every rank first allows its
// peers to read it (prctl PR_SET_PTRACER_ANY, as Open MPI's vader does
// under Yama), publishes the address of a known word, meets the others,
// reads that word from every peer, and all meet again with a yes or no;
// single copy is on for the communicator only if every rank said yes. The
// decision is kept in the communicator (cmaOn, cmaOff) and so the same on
// every rank: the algorithms' Available reports false once it is off.

// The states of Comm.cma.
const (
	cmaUnknown int32 = iota
	cmaOn
	cmaOff
)

// cmaProbeWord is what every rank reads from every peer when they agree.
var cmaProbeWord = [8]byte{'g', 'o', 'm', 'p', 'i', 'c', 'm', 'a'}

// cmaAgree returns whether single copy is on for x's communicator, agreeing
// on it first (two steps, on every rank) if this is the first call that asks.
// data is the data area the call writes next; the returned one is where it
// writes after the agreement (the same if nothing was decided now).
func cmaAgree(x *collComm, data []byte) (bool, []byte, error) {
	switch x.c.cma.Load() {
	case cmaOn:
		return true, data, nil
	case cmaOff:
		return false, data, nil
	}
	n, me := x.Size(), x.Rank()
	ok := cmaEnabled()
	if ok {
		allowPeerReads()
	}
	publishBuf(cmaRec(data, me), cmaProbeWord[:])
	if err := meet(x); err != nil {
		return false, nil, err
	}
	if ok {
		recs := cmaData(x)
		var got [8]byte
		for i := 1; i < n && ok; i++ {
			r := (me + i) % n
			ok = peerBuf(cmaRec(recs, r)).read(got[:], 0) == nil && got == cmaProbeWord
		}
	}
	data = nextPiece(x)
	data[me] = 0
	if ok {
		data[me] = 1
	}
	if err := meet(x); err != nil {
		return false, nil, err
	}
	all := true
	for _, f := range cmaData(x)[:n] {
		all = all && f == 1
	}
	state := cmaOff
	if all {
		state = cmaOn
	}
	x.c.cma.Store(state)
	return all, nextPiece(x), nil
}

// cmaEnabled reports whether this process allows single-copy collectives:
// not when GOMPI_SHM_CMA or GOMPI_SHM_CMA_COLL is false (a value that is
// not a boolean counts as false).
func cmaEnabled() bool {
	for _, name := range []string{jobenv.CMA, jobenv.CMAColl} {
		if v := os.Getenv(name); v != "" {
			if on, err := strconv.ParseBool(v); err != nil || !on {
				return false
			}
		}
	}
	return true
}

var allowOnce sync.Once

// allowPeerReads lets any process read this one's memory as far as Yama
// is concerned (ptrace_scope 1 allows only ancestors otherwise); once per
// process.
func allowPeerReads() { allowOnce.Do(shm.AllowPeerReads) }

// cmaClose is the closing step of a single-copy call: this rank reports
// whether its reads failed (failed) and arrives. With stay it waits for
// every rank and returns the n flags (flags[r] != 0: rank r failed to read;
// valid until this rank's next step). Without stay it returns at once,
// leaving the step open (nil flags): only for a rank whose buffer nobody
// reads and whose reads all succeeded.
func cmaClose(x *collComm, failed, stay bool) ([]byte, error) {
	n, me := x.Size(), x.Rank()
	data := nextPiece(x)
	data[me] = 0
	if failed {
		data[me] = 1
	}
	if !stay {
		return nil, x.c.c.ShmArrive()
	}
	if err := meet(x); err != nil {
		return nil, err
	}
	return cmaData(x)[:n], nil
}

// cmaRepairTag is the tag of the point-to-point messages that replace
// refused reads (coll lets an algorithm use any tag up to coll.MaxTag).
const cmaRepairTag = 200
