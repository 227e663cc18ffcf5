// Package shm is the shared-memory segment of one host of a job: its layout,
// the per-rank message queues, the futex doorbells and the cell pools.
//
// The segment is plain memory mapped by every rank of the host (a memfd that
// golaunch creates and the ranks inherit, or an anonymous mapping for the
// in-process mode). Everything in it is addressed by offsets, since each
// process maps it at its own address. It holds
//
//   - a header: geometry and the job's abort word;
//
//   - one block per rank: the head and tail of its inbound queue, its doorbell
//     (a futex word and a sleeper count), its pid and its state;
//
//   - one pool of fixed-size cells per rank. A rank sends by filling one of
//     its own cells and pushing it onto the receiver's queue; the receiver
//     hands the cell back by pushing it onto the owner's queue, often turned
//     into a reply (acknowledgement, end of rendezvous) on the way.
//
//   - per rank, a few fast boxes (fastbox.go): rings to the peers it talks to
//     most, cheaper per message than the queue;
//
//   - a few collective slots (collslot.go), where the ranks of a communicator
//     run collectives in shared memory.
//
// The size is linear in the number of ranks: header + n × (block + boxes +
// pool) + slots of 2 × max(16 KiB, n KiB).
package shm

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"
)

// Geometry. A cell is 4 KiB: a 64-byte header and up to MaxPayload bytes,
// so a message of up to MaxPayload bytes travels eagerly in one cell.
const (
	Magic          = 0x6d68735f69706d67 // "gmpi_shm" little-endian
	Version        = 3                  // bumped with every change of the layout (2: two-rank slots carry data on their arrival lines; 3: push lines, collpush.go)
	CellSize       = 4096
	CellHeaderSize = 64
	MaxPayload     = CellSize - CellHeaderSize
	headerSize     = 4096
	rankBlockSize  = 512
	// CollSlotSize is the per-rank slot of the area reserved for collectives
	// that work on the segment directly (a barrier counter, flags).
	CollSlotSize = 256
)

// DefaultCellsPerRank bounds the eager messages a rank can have in flight.
const DefaultCellsPerRank = 64

// Rank states, in the rank block.
const (
	StateNone      = 0 // not yet initialized
	StateRunning   = 1 // between Init and Finalize
	StateFinalized = 2 // called Finalize: sends nothing more, receives nothing more
	StateDead      = 3 // exited or died without Finalize (set by the launcher)
)

// header is the first page of the segment.
type header struct {
	magic        uint64
	version      uint32
	nranks       uint32
	cellsPerRank uint32
	cellSize     uint32
	rankOff      int64
	cellOff      int64
	size         int64
	collOff      int64
	_            [8]byte
	// second cache line: written once, on abort
	abortRank  int32
	abortCode  int32
	aborted    uint32 // set last: rank and code are final once it reads 1
	abortClaim uint32 // the first Abort takes it
}

// rankBlock is the per-rank control block; each group of fields that different
// processes write sits on its own 128-byte line (two 64-byte lines, so the
// adjacent-line prefetcher does not couple them).
type rankBlock struct {
	head     int64 // consumer-owned: oldest cell of the queue, 0 if none
	_        [120]byte
	tail     int64 // producers swap themselves in here
	_        [120]byte
	bell     uint32 // futex word: bumped by every wake-up
	sleepers int32  // threads of this rank asleep (or about to sleep) on bell
	starved  uint32 // 1 while the owner waits for its cells to come back
	boxFull  uint32 // 1 while the owner waits for room in one of its boxes
	_        [112]byte
	pid      int32
	state    uint32
	boxesIn  int32 // fast boxes this rank polls
	_        [116]byte
}

// Cell is the header of a cell; the payload follows it.
type Cell struct {
	Next  int64 // queue link (offset), 0 at the end
	Kind  uint8
	Flags uint8
	_     uint16
	Src   int32  // world rank of the message's sender
	Ctx   uint32 // communicator context
	Tag   int32
	Size  int64  // whole message length in bytes
	SReq  uint64 // sender's request id (synchronous and rendezvous sends)
	Addr  uint64 // rendezvous: sender's buffer address; fragment: offset
	PLen  uint32 // payload bytes in this cell
	touch uint32 // nobody reads it: a receiver's first write to the cell's page (firsttouch.go)
	RReq  uint64 // receiver's request id (pipelined rendezvous)
}

func init() {
	// The layout is part of the wire contract between processes.
	if unsafe.Sizeof(Cell{}) != CellHeaderSize || unsafe.Sizeof(rankBlock{}) != rankBlockSize ||
		unsafe.Sizeof(header{}) > 128 {
		panic("shm: layout sizes changed")
	}
}

// Layout is the geometry of a segment for n ranks.
type Layout struct {
	NRanks       int
	CellsPerRank int
	rankOff      int64
	collOff      int64
	boxOff       int64
	slotOff      int64
	pushOff      int64
	cellOff      int64
	Size         int64
}

// NewLayout computes the geometry for n ranks with cellsPerRank cells each.
func NewLayout(n, cellsPerRank int) (Layout, error) {
	if n <= 0 || n > 1<<20 {
		return Layout{}, fmt.Errorf("shm: %d ranks on one host is out of range", n)
	}
	if cellsPerRank < 2 || cellsPerRank > 1<<16 {
		return Layout{}, fmt.Errorf("shm: %d cells per rank is out of range", cellsPerRank)
	}
	l := Layout{NRanks: n, CellsPerRank: cellsPerRank}
	l.rankOff = headerSize
	l.collOff = l.rankOff + int64(n)*rankBlockSize
	l.boxOff = align(l.collOff+headerSize+int64(n)*CollSlotSize, 128)
	l.slotOff = align(l.boxOff+int64(n)*BoxesPerRank*BoxSize, 128)
	l.pushOff = align(l.slotOff+CollSlots*(collCtlSize+2*collScratch(n)), 4096)
	l.cellOff = align(l.pushOff+CollSlots*collPush(n), CellSize)
	l.Size = l.cellOff + int64(n)*int64(cellsPerRank)*CellSize
	return l, nil
}

func align(x, a int64) int64 { return (x + a - 1) / a * a }

// Segment is one mapping of a host's segment.
type Segment struct {
	mem   []byte
	l     Layout
	hdr   *header
	ranks []*rankBlock
	unmap func([]byte) error
	// touched has a bit per cell of the segment, set once this process has
	// mapped the cell's page with a write (firsttouch.go).
	touched []atomic.Uint64
}

// ErrBadSegment means the memory is not a segment of this version.
var ErrBadSegment = errors.New("shm: not a gompi segment of this version")

// format writes a fresh header into mem.
func format(mem []byte, l Layout) {
	h := (*header)(unsafe.Pointer(&mem[0]))
	h.version = Version
	h.nranks = uint32(l.NRanks)
	h.cellsPerRank = uint32(l.CellsPerRank)
	h.cellSize = CellSize
	h.rankOff = l.rankOff
	h.cellOff = l.cellOff
	h.collOff = l.collOff
	h.size = l.Size
	h.abortRank = -1
	atomic.StoreUint64(&h.magic, Magic)
}

// open checks the header of mem and builds the accessors.
func open(mem []byte, unmap func([]byte) error) (*Segment, error) {
	if len(mem) < headerSize {
		return nil, ErrBadSegment
	}
	h := (*header)(unsafe.Pointer(&mem[0]))
	if atomic.LoadUint64(&h.magic) != Magic || h.version != Version || h.cellSize != CellSize {
		return nil, ErrBadSegment
	}
	l, err := NewLayout(int(h.nranks), int(h.cellsPerRank))
	if err != nil || l.Size != h.size || l.Size > int64(len(mem)) || l.cellOff != h.cellOff {
		return nil, ErrBadSegment
	}
	setupArrivals()
	s := &Segment{mem: mem, l: l, hdr: h, unmap: unmap}
	s.touched = make([]atomic.Uint64, (l.NRanks*l.CellsPerRank+63)/64)
	s.ranks = make([]*rankBlock, l.NRanks)
	for i := range s.ranks {
		s.ranks[i] = (*rankBlock)(unsafe.Pointer(&mem[l.rankOff+int64(i)*rankBlockSize]))
	}
	return s, nil
}

// Layout returns the segment's geometry.
func (s *Segment) Layout() Layout { return s.l }

// Close unmaps the segment from this process.
func (s *Segment) Close() error {
	if s.unmap == nil || s.mem == nil {
		return nil
	}
	err := s.unmap(s.mem)
	s.mem = nil
	return err
}

// CellAt returns the header of the cell at offset off.
func (s *Segment) CellAt(off int64) *Cell { return (*Cell)(unsafe.Pointer(&s.mem[off])) }

// Payload returns the payload area of the cell at off, n bytes long.
func (s *Segment) Payload(off int64, n int) []byte {
	start := off + CellHeaderSize
	return s.mem[start : start+int64(n) : start+MaxPayload]
}

// CellOwner returns the local rank whose pool holds the cell at off.
func (s *Segment) CellOwner(off int64) int {
	return int((off - s.l.cellOff) / (int64(s.l.CellsPerRank) * CellSize))
}

// ValidCell reports whether off is the start of a cell.
func (s *Segment) ValidCell(off int64) bool {
	return off >= s.l.cellOff && off < s.l.Size && (off-s.l.cellOff)%CellSize == 0
}

// Cells returns the offsets of local rank r's pool.
func (s *Segment) Cells(r int) []int64 {
	out := make([]int64, s.l.CellsPerRank)
	base := s.l.cellOff + int64(r)*int64(s.l.CellsPerRank)*CellSize
	for i := range out {
		out[i] = base + int64(i)*CellSize
	}
	return out
}

// CollSlot returns local rank r's slot of the collectives area; slot -1 is the
// shared area of the host (headerSize bytes).
func (s *Segment) CollSlot(r int) []byte {
	if r < 0 {
		return s.mem[s.l.collOff : s.l.collOff+headerSize]
	}
	off := s.l.collOff + headerSize + int64(r)*CollSlotSize
	return s.mem[off : off+CollSlotSize]
}

// SetPID records the process id of local rank r (for cross-memory attach).
func (s *Segment) SetPID(r, pid int) { atomic.StoreInt32(&s.ranks[r].pid, int32(pid)) }

// PID returns the process id recorded for local rank r, 0 if none yet.
func (s *Segment) PID(r int) int { return int(atomic.LoadInt32(&s.ranks[r].pid)) }

// State returns local rank r's state.
func (s *Segment) State(r int) uint32 { return atomic.LoadUint32(&s.ranks[r].state) }

// SetState records local rank r's state and wakes every rank of the host, so
// that ranks waiting on r notice.
func (s *Segment) SetState(r int, st uint32) {
	atomic.StoreUint32(&s.ranks[r].state, st)
	s.WakeAll()
}

// Abort records that the job is aborting, with the rank that asked and its
// exit code, and wakes everyone. Only the first call counts. The rank and
// code are published before the flag, so whoever sees the flag (a peer, the
// launcher) reads who aborted and with what, never a half-written record.
func (s *Segment) Abort(rank, code int) {
	if atomic.CompareAndSwapUint32(&s.hdr.abortClaim, 0, 1) {
		atomic.StoreInt32(&s.hdr.abortRank, int32(rank))
		atomic.StoreInt32(&s.hdr.abortCode, int32(code))
		atomic.StoreUint32(&s.hdr.aborted, 1)
	}
	s.WakeAll()
	futexWake(&s.hdr.aborted) // WaitAbort
}

// Aborted reports whether Abort was called, and by whom with which code.
func (s *Segment) Aborted() (rank, code int, ok bool) {
	if atomic.LoadUint32(&s.hdr.aborted) == 0 {
		return -1, 0, false
	}
	return int(atomic.LoadInt32(&s.hdr.abortRank)), int(atomic.LoadInt32(&s.hdr.abortCode)), true
}

// WaitAbort sleeps until Abort is called (in any process of the segment),
// WakeAbortWaiters is, or d passes, and reports as Aborted.
func (s *Segment) WaitAbort(d time.Duration) (rank, code int, ok bool) {
	if atomic.LoadUint32(&s.hdr.aborted) == 0 {
		futexWait(&s.hdr.aborted, 0, d)
	}
	return s.Aborted()
}

// WakeAbortWaiters wakes every WaitAbort on the segment, in every process.
func (s *Segment) WakeAbortWaiters() { futexWake(&s.hdr.aborted) }

// WakeAll rings every rank's doorbell.
func (s *Segment) WakeAll() {
	for r := range s.ranks {
		s.wake(s.ranks[r])
	}
}
