package gompi

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi/internal/backend"
)

// The pipelined two-rank step ("shm_pipe"): Bcast, Scatter and Gather on
// two ranks with the one block that crosses between them copied through the
// scratch half in pieces. In "shm" the writer (the root of Bcast and
// Scatter, the other rank of Gather) copies the whole block in, posts, and
// only then does the reader copy it out: two copies one after the other.
// Here the writer publishes its progress after every piece (the word of its
// signature, set to pipeTag(step, pieces done)) and the reader copies each
// piece out as soon as it is published, so that on two CPUs the two copies
// overlap and the reader is done about one piece after the writer.
//
// The reader arrives at the step before it reads (as the pairwise forms do,
// shmcoll_pairwise.go): the half is written again only two steps later,
// after the reader has arrived at the next one, so reading after arriving is
// safe, and a writer that ran another algorithm (ranks that disagree) never
// sets the word, arrives, and the step's release ends the reader's wait with
// ErrMismatch. The reader checks the writer's operation and size once the
// first piece is published; a reader of another algorithm sees the writer's
// pipe tag where it expects the root and gets ErrMismatch too.

// pipeOff is where the block lies in the scratch half: after the two
// signatures, on a cache line of its own.
const pipeOff = 64

// pipeMaxPieces bounds the pieces of a call (their count is the low bits
// of the tag).
const pipeMaxPieces = 63

// pipeSigWord is the reader's signature word (never a root, never a tag).
const pipeSigWord = 0x70690000

// pipePiece is the piece in bytes; GOMPI_SHM_PIPE_PIECE overrides it (for
// tuning).
var pipePiece = func() int {
	if v, err := strconv.Atoi(os.Getenv("GOMPI_SHM_PIPE_PIECE")); err == nil && v >= 512 {
		return v
	}
	return 8 << 10
}()

// pipePieceOf is the piece for a block of m bytes: pipePiece, larger where
// m would need more than pipeMaxPieces pieces, a multiple of 64.
func pipePieceOf(m int) int {
	q := max(pipePiece, (m+pipeMaxPieces-1)/pipeMaxPieces)
	return (q + 63) &^ 63
}

// pipeTag is the writer's word once j pieces of step k are in the half:
// bit 30 set and bit 31 clear (never a root, small or −1), the step in bits
// 6..29, j in bits 0..5.
func pipeTag(k uint64, j int) uint32 {
	return 1<<30 | (uint32(k)&(1<<24-1))<<6 | uint32(j)
}

// pipeSpin is how many times the reader polls the writer's word before it
// waits for a change (ShmAwaitChange): a few microseconds.
const pipeSpin = 2048

// pipePeers lists rank r alone, for ShmAwaitChange without an allocation.
var pipePeers = [2][]int{{0}, {1}}

type pipeAlg struct {
	op      coll.Operation
	summary string
	// block is the size of the block that crosses, as this rank knows it.
	block func(a *coll.Args) int
	// writer is the rank that copies the block into the half.
	writer func(a *coll.Args) int
	// src is the block at the writer, dst its place at the reader.
	src, dst func(me int, a *coll.Args) []byte
	// local copies the root's own block (nil if none), at the writer
	// after its pieces, at the reader before them.
	local func(me int, a *coll.Args)
}

var pipeAlgs = []*pipeAlg{
	{op: coll.OpBcast,
		summary: "two ranks: the root copies the message into the scratch half in pieces, publishing each; the other rank copies each piece out as soon as it is published",
		block:   func(a *coll.Args) int { return len(a.Recv) },
		writer:  func(a *coll.Args) int { return a.Root },
		src:     func(_ int, a *coll.Args) []byte { return a.Recv },
		dst:     func(_ int, a *coll.Args) []byte { return a.Recv }},
	{op: coll.OpScatter,
		summary: "two ranks: as Bcast's, with the other rank's block; the root copies its own block after its pieces",
		block:   func(a *coll.Args) int { return scatterBlock(2, a) },
		writer:  func(a *coll.Args) int { return a.Root },
		src: func(me int, a *coll.Args) []byte {
			m := scatterBlock(2, a)
			return a.Send[(1-me)*m:][:m]
		},
		dst: func(_ int, a *coll.Args) []byte { return a.Recv },
		local: func(me int, a *coll.Args) {
			if a.Recv != nil { // nil: in place at the root
				m := len(a.Recv)
				copy(a.Recv, a.Send[me*m:(me+1)*m])
			}
		}},
	{op: coll.OpGather,
		summary: "two ranks: the other rank copies its block into the scratch half in pieces, publishing each; the root copies its own block, then each piece out as soon as it is published",
		block:   func(a *coll.Args) int { return gatherBlock(2, a) },
		writer:  func(a *coll.Args) int { return 1 - a.Root },
		src: func(me int, a *coll.Args) []byte {
			if a.Send != nil {
				return a.Send
			}
			m := len(a.Recv) / 2
			return a.Recv[me*m:][:m]
		},
		dst: func(me int, a *coll.Args) []byte {
			m := gatherBlock(2, a)
			return a.Recv[(1-me)*m:][:m]
		},
		local: func(me int, a *coll.Args) {
			if a.Send != nil { // nil: in place
				copy(a.Recv[me*len(a.Send):], a.Send)
			}
		}},
}

// pipeMin and pipeMax bound where the table has "shm_pipe" first, in the
// operation's measure.
const (
	pipeMin = 16 << 10
	pipeMax = 64 << 10
)

// installPipe registers the forms here as "shm_pipe" (two ranks, the block
// within a scratch half) and puts them first on two ranks between pipeMin
// and pipeMax.
func installPipe() error {
	for _, s := range pipeAlgs {
		err := coll.Register(coll.Algorithm{
			Op: s.op, Name: "shm_pipe", Summary: s.summary,
			Cost:        coll.Cost{Formula: "1 rooted step + 2 copies of m, overlapped piece by piece"},
			Constraints: "all ranks on one host; blocking calls; two ranks; the block within a scratch half",
			Available: func(c coll.Comm, a *coll.Args) bool {
				x, ok := c.(*collComm)
				return ok && !x.nonblocking && x.Size() == 2 && (a.Root == 0 || a.Root == 1) &&
					pipeOff+s.block(a) <= x.c.c.ShmCapacity()
			},
			Run: func(c coll.Comm, a *coll.Args) error { return runPipe(c.(*collComm), s, a) },
		})
		if err != nil {
			return err
		}
		r := coll.Rule{MinRanks: 2, MaxRanks: 2, MinBytes: pipeMin, MaxBytes: pipeMax, Use: []string{"shm_pipe"}}
		if err := prefer(s.op, tierFirst, r); err != nil {
			return err
		}
	}
	return nil
}

// runPipe runs one call of s.
func runPipe(x *collComm, s *pipeAlg, a *coll.Args) error {
	eng := x.c.c
	if err := eng.ShmBegin(); err != nil {
		return err
	}
	x.line.on = false
	me := x.Rank()
	k := eng.ShmSeq()
	scratch := eng.ShmScratch()
	data := scratch[pipeOff:]
	m := s.block(a)
	q := pipePieceOf(m)
	code := opCode(s.op)
	sig := scratch[me*sigSize : (me+1)*sigSize]
	var err error
	if w := s.writer(a); me == w {
		if binary.LittleEndian.Uint32(sig[0:]) != code || binary.LittleEndian.Uint64(sig[8:]) != uint64(m) {
			binary.LittleEndian.PutUint32(sig[0:], code)
			binary.LittleEndian.PutUint64(sig[8:], uint64(m))
		}
		src := s.src(me, a)
		word := unsafe.Pointer(&sig[4])
		for off, j := 0, 1; ; j++ {
			end := min(off+q, m)
			copy(data[off:end], src[off:end])
			eng.ShmSetWord(word, pipeTag(k, j))
			if off = end; off >= m {
				break
			}
		}
		if me == a.Root {
			if s.local != nil {
				s.local(me, a)
			}
			err = eng.ShmPost()
		} else {
			err = eng.ShmArrive()
		}
	} else {
		writeSigCode(sig, code, pipeSigWord, m)
		if me == a.Root && s.local != nil {
			s.local(me, a)
		}
		if err = eng.ShmArrive(); err == nil {
			err = pipeRead(eng, scratch[w*sigSize:(w+1)*sigSize], sig, w, me, k, data, s.dst(me, a), q, code)
		}
	}
	leadNext(x, s.op, a.Root)
	return err
}

// pipeRead copies the writer's block out of the half piece by piece as the
// writer publishes them.
func pipeRead(eng *backend.Comm, theirs, mine []byte, w, me int, k uint64, data, dst []byte, q int, code uint32) error {
	m := len(dst)
	word := (*uint32)(unsafe.Pointer(&theirs[4]))
	hi := pipeTag(k, 0)
	for off, j := 0, 1; ; j++ {
		// Wait until the writer's word says at least j pieces of this step:
		// polls first (a piece is well under a microsecond's copy, and
		// ShmAwaitChange counts the thread as waiting, which may wake the
		// progress goroutine), then the wait with its sleep and checks.
		for spin := pipeSpin; ; spin = 0 {
			v := atomic.LoadUint32(word)
			if v&^63 == hi && int(v&63) >= j {
				break
			}
			if spin > 0 {
				for ; spin > 0; spin-- {
					if v = atomic.LoadUint32(word); v&^63 == hi && int(v&63) >= j {
						break
					}
				}
				continue
			}
			released, err := eng.ShmAwaitChange(unsafe.Pointer(word), v, pipePeers[w], true)
			if err != nil {
				return err
			}
			if v = atomic.LoadUint32(word); released && !(v&^63 == hi && int(v&63) >= j) {
				// The writer arrived without publishing: another algorithm.
				return fmt.Errorf("%w: rank %d called with %s, rank %d with %s (another algorithm)", coll.ErrMismatch,
					w, describeSig(theirs), me, describeSig(mine))
			}
		}
		if j == 1 {
			if binary.LittleEndian.Uint32(theirs[0:]) != code || binary.LittleEndian.Uint64(theirs[8:]) != uint64(m) {
				return fmt.Errorf("%w: rank %d called with %s, rank %d with (%d bytes)", coll.ErrMismatch,
					w, describeSig(theirs), me, m)
			}
		}
		end := min(off+q, m)
		copy(dst[off:end], data[off:end])
		if off = end; off >= m {
			return nil
		}
	}
}

