package shm

import (
	"sync/atomic"
	"unsafe"
)

// A fast box is a single-producer, single-consumer ring in the segment from
// one sender to one receiver, for the pairs that talk often (the idea of Open
// MPI's vader fast boxes). Where a message through the queue costs several
// contended cache lines (swap the tail, link, pop, hand the cell back), a
// message through a box costs the lines it is written in: the sender writes
// a record and stamps it last; the receiver polls the stamp where the next
// record will be. The receiver publishes how far it has read in a line of
// its own, which the sender reads only when the ring looks full.
//
// Records are 64-byte aligned: a 32-byte header, then the payload. A record
// that would run past the end of the ring is preceded by a skip record.
// Stamps count records from 1 (0 never occurs), so a record's first line
// written on an earlier lap never passes for the next record. A line that
// held payload might: the writer remembers such lines and zeroes the stamp
// word of one before the reader can poll it (BoxWriter.dirty).

// Box geometry.
const (
	BoxesPerRank    = 8    // outbound boxes a rank can own
	MaxInboundBoxes = 16   // boxes a rank will poll
	boxCtlSize      = 128  // the consumer's published position
	boxRing         = 8192 // ring bytes; a power of two
	BoxSize         = boxCtlSize + boxRing
	boxHeader       = 32
	// BoxInlineMax is the largest payload always carried inside a record.
	BoxInlineMax = 1024
	// BoxInlineRoomMax is the largest payload carried inside a record when
	// the ring has room for it now; a sender that finds no room sends it in
	// a cell instead (announced in the box), rather than waiting, since
	// records this large would leave room for few messages in flight.
	BoxInlineRoomMax = 2048
)

// Record kinds.
const (
	BoxInline  = 1 // the payload follows the header
	BoxCellRef = 2 // CellOff names a cell to handle as if popped from the queue
	boxSkip    = 3 // nothing; continue at the start of the ring
)

// BoxRecord is a record's header.
type BoxRecord struct {
	stamp   uint32 // written last: the record is complete when it is the expected one
	Kind    uint16
	_       uint16
	PLen    uint32 // inline payload bytes
	Tag     int32
	Ctx     uint32
	_       uint32
	CellOff int64
}

type boxCtl struct {
	read uint64 // bytes the consumer has finished with
}

func init() {
	if unsafe.Sizeof(BoxRecord{}) != boxHeader {
		panic("shm: box record header size changed")
	}
}

// BoxOffset returns the offset of outbound box i of local rank r.
func (s *Segment) BoxOffset(r, i int) int64 {
	return s.l.boxOff + (int64(r)*BoxesPerRank+int64(i))*BoxSize
}

// ClaimInbound reserves a place among local rank r's polled boxes; false if
// it polls too many already.
func (s *Segment) ClaimInbound(r int) bool {
	rb := s.ranks[r]
	if atomic.AddInt32(&rb.boxesIn, 1) > MaxInboundBoxes {
		atomic.AddInt32(&rb.boxesIn, -1)
		return false
	}
	return true
}

// BoxWriter is the sender's end of a box. Not safe for concurrent use.
type BoxWriter struct {
	ctl   *boxCtl
	ring  []byte
	off   int64  // the box's offset in the segment
	write uint64 // bytes written
	read  uint64 // last known consumer position
	stamp uint32
	// dirty marks the ring's lines whose stamp word may pass for a future
	// stamp: a line a record's payload ran over, and, near the stamp
	// counter's wrap, every line. A line where a record started holds an
	// older stamp, which never matches, and a fresh box is zeroed: such a
	// line need not be cleared before the reader polls it. Clearing a line
	// the reader last held costs a cache-line transfer before the record can
	// be published, so the common small message, one line long, clears
	// nothing.
	dirty [boxLines / 64]uint64
}

const boxLines = boxRing / 64

func (w *BoxWriter) isDirty(idx uint64) bool {
	l := idx / 64
	return w.dirty[l/64]&(1<<(l%64)) != 0
}

func (w *BoxWriter) setDirty(l uint64, on bool) {
	if on {
		w.dirty[l/64] |= 1 << (l % 64)
	} else {
		w.dirty[l/64] &^= 1 << (l % 64)
	}
}

// clearIfDirty zeroes the stamp word at ring offset idx if it may pass
// for a stamp.
func (w *BoxWriter) clearIfDirty(idx uint64) {
	if w.isDirty(idx) {
		w.zeroStamp(idx)
		w.setDirty(idx/64, false)
	}
}

// NewBoxWriter opens the box at off for writing; the box must be unused
// (zeroed), as a fresh segment's boxes are.
func (s *Segment) NewBoxWriter(off int64) *BoxWriter {
	return &BoxWriter{
		ctl:  (*boxCtl)(unsafe.Pointer(&s.mem[off])),
		ring: s.mem[off+boxCtlSize : off+BoxSize : off+BoxSize],
		off:  off,
	}
}

// Offset returns the box's offset in the segment.
func (w *BoxWriter) Offset() int64 { return w.off }

func recordLen(plen int) uint64 { return uint64(boxHeader+plen+63) &^ 63 }

// stampWrapGuard: from this stamp on, a write marks every line dirty (a
// write takes at most two stamps, a skip and its record).
const stampWrapGuard = ^uint32(0) - 4

func nextStamp(s uint32) uint32 {
	s++
	if s == 0 {
		s = 1
	}
	return s
}

// space reports whether n more bytes fit, refreshing the consumer position
// only when the cached one says no.
func (w *BoxWriter) space(n uint64) bool {
	if w.write+n-w.read <= boxRing {
		return true
	}
	w.read = atomic.LoadUint64(&w.ctl.read)
	return w.write+n-w.read <= boxRing
}

// Write appends a record with the given header fields and inline payload
// (len(payload) <= BoxInlineRoomMax). It returns false if the ring has no room
// now; the caller lets the receiver catch up and tries again.
//
// The stamp word where the next record will start is zeroed before this one
// is published, so the reader, arriving there, never mistakes stale bytes of
// an earlier lap for a stamp. That word must be free: one line of the ring
// is always kept empty.
func (w *BoxWriter) Write(kind uint16, tag int32, ctx uint32, cellOff int64, payload []byte) bool {
	need := recordLen(len(payload))
	idx := w.write & (boxRing - 1)
	var gap uint64
	if idx+need > boxRing {
		gap = boxRing - idx
	}
	if !w.space(gap + need + 64) {
		return false
	}
	if w.stamp >= stampWrapGuard {
		// Stamps will start again at 1: a line untouched since the last
		// wrap may hold any of them.
		for i := range w.dirty {
			w.dirty[i] = ^uint64(0)
		}
	}
	if gap > 0 {
		w.clearIfDirty(0)
		w.setDirty(idx/64, false)
		w.publish((*BoxRecord)(unsafe.Pointer(&w.ring[idx])), boxSkip)
		w.write += gap
		idx = 0
	}
	// The line where the next record will start is cleared first, with a
	// plain store: its ownership is then fetched while the payload is
	// written, not after it, and the stamp's store, later in program
	// order, cannot become visible before it (amd64 keeps stores in order;
	// elsewhere StoreRelease32 is an atomic store).
	next := (idx + need) & (boxRing - 1)
	if w.isDirty(next) {
		StoreRelease32(&(*BoxRecord)(unsafe.Pointer(&w.ring[next])).stamp, 0)
		w.setDirty(next/64, false)
	}
	h := (*BoxRecord)(unsafe.Pointer(&w.ring[idx]))
	h.PLen, h.Tag, h.Ctx, h.CellOff = uint32(len(payload)), tag, ctx, cellOff
	copy(w.ring[idx+boxHeader:], payload)
	first := idx / 64
	w.setDirty(first, false)
	for l := first + 1; l < first+need/64; l++ {
		w.setDirty(l, true)
	}
	w.publish(h, kind)
	w.write += need
	return true
}

// Fits reports, without writing, whether a record with n payload bytes
// would fit now (it may say no when a skip would not be needed). Like Write,
// it is for one thread at a time.
func (w *BoxWriter) Fits(n int) bool {
	return w.write+2*recordLen(n)+64-atomic.LoadUint64(&w.ctl.read) <= boxRing
}

func (w *BoxWriter) zeroStamp(idx uint64) {
	atomic.StoreUint32(&(*BoxRecord)(unsafe.Pointer(&w.ring[idx])).stamp, 0)
}

func (w *BoxWriter) publish(h *BoxRecord, kind uint16) {
	h.Kind = kind
	w.stamp = nextStamp(w.stamp)
	atomic.StoreUint32(&h.stamp, w.stamp)
}

// BoxReader is the receiver's end of a box. Next and Done are for one
// thread at a time; Ready may be called from any thread as a hint, so the
// position is read with atomic loads. Done stores it with release stores
// (plain MOVs on amd64): a locked store there would stall the reader, on
// its way to answering, for no ordering it needs. A Ready racing with Done
// may see one word new and the other old; it then finds no record, which
// a hint may.
type BoxReader struct {
	ctl   *boxCtl
	ring  []byte
	read  uint64
	stamp uint32 // stamp of the next record
}

// NewBoxReader opens the box at off for reading.
func (s *Segment) NewBoxReader(off int64) *BoxReader {
	r := &BoxReader{
		ctl:  (*boxCtl)(unsafe.Pointer(&s.mem[off])),
		ring: s.mem[off+boxCtlSize : off+BoxSize : off+BoxSize],
	}
	atomic.StoreUint32(&r.stamp, 1)
	return r
}

// Ready reports whether a record is waiting: the cheapest poll.
//
// While no record is there it also reads the line after the next record's
// first: the second line of a two-line record (33-96 B of payload) then
// travels while the reader waits for the stamp, not after it, and the
// reader's copy of the payload finds it in its cache.
func (r *BoxReader) Ready() bool {
	at := atomic.LoadUint64(&r.read)
	h := (*BoxRecord)(unsafe.Pointer(&r.ring[at&(boxRing-1)]))
	if atomic.LoadUint32(&h.stamp) == atomic.LoadUint32(&r.stamp) {
		return true
	}
	_ = atomic.LoadUint32((*uint32)(unsafe.Pointer(&r.ring[(at+64)&(boxRing-1)])))
	return false
}

// Pos returns how many bytes of the ring the reader has consumed: a thread
// polling Ready may compare it with an earlier value to learn that another
// thread consumed a record meanwhile.
func (r *BoxReader) Pos() uint64 { return atomic.LoadUint64(&r.read) }

// Next returns the waiting record and its inline payload, or nil. The
// payload stays valid until Done.
func (r *BoxReader) Next() (*BoxRecord, []byte) {
	for {
		read, stamp := r.read, r.stamp
		idx := read & (boxRing - 1)
		h := (*BoxRecord)(unsafe.Pointer(&r.ring[idx]))
		if atomic.LoadUint32(&h.stamp) != stamp {
			return nil, nil
		}
		if h.Kind != boxSkip {
			return h, r.ring[idx+boxHeader : idx+boxHeader+uint64(h.PLen)]
		}
		StoreRelease64(&r.read, read+boxRing-idx)
		StoreRelease32(&r.stamp, nextStamp(stamp))
	}
}

// Done consumes the record Next returned and publishes the position. The
// stores are releases: the payload's loads come before them.
func (r *BoxReader) Done(h *BoxRecord) {
	read := r.read + recordLen(int(h.PLen))
	StoreRelease32(&r.stamp, nextStamp(r.stamp))
	StoreRelease64(&r.read, read)
	StoreRelease64(&r.ctl.read, read)
}
