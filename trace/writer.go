package trace

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"sort"
	"sync"
	"sync/atomic"
)

// Strings is a string table shared by the writers of one process: call
// sites, algorithm names. Ids start at 1 (0 means none) and never change.
// Safe for concurrent use.
type Strings struct {
	mu  sync.Mutex
	ids map[string]uint32
	all []string // all[id-1]
}

// NewStrings returns an empty table.
func NewStrings() *Strings { return &Strings{ids: map[string]uint32{}} }

// ID returns the id of s, adding it to the table the first time.
func (t *Strings) ID(s string) uint32 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.ids[s]; ok {
		return id
	}
	t.all = append(t.all, s)
	id := uint32(len(t.all))
	t.ids[s] = id
	return id
}

// since encodes the strings with ids > n as a chunkStrings payload and
// returns it with the new count; nil when there are none.
func (t *Strings) since(n int) ([]byte, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.all) <= n {
		return nil, n
	}
	b := binary.LittleEndian.AppendUint32(nil, uint32(n+1))
	for _, s := range t.all[n:] {
		b = appendString(b, s)
	}
	return b, len(t.all)
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

func appendChunk(b []byte, kind uint32, payload []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, kind)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

// WriterOptions size a Writer. Zero fields take the defaults.
type WriterOptions struct {
	// BufferRecords is the number of records per buffer (default 4096); a
	// writer has Buffers of them (default 3): one being filled, the others
	// being written to the file by the writer's own goroutine.
	BufferRecords int
	Buffers       int
	// OpenCalls bounds the calls of one rank in progress at once (default
	// 1024); a call beyond it is not recorded and counted as dropped.
	OpenCalls int
}

// Writer writes the trace file of one rank. Records go into a pre-allocated
// buffer; a full buffer is handed to a goroutine of the writer that writes it
// to the file, and the next call fills a spare one. When no spare is free the
// call waits for one: records are never dropped because the file is slow. A
// record is dropped only when it cannot be kept at all (more calls open at
// once than OpenCalls, a write after Close, or an I/O error); every drop is
// counted in the file and the reader reports it.
//
// A Writer is safe for concurrent use.
type Writer struct {
	path    string
	f       *os.File
	strs    *Strings
	sent    int // strings already handed to the file
	mu      spinLock
	cur     []byte // chunk head + records
	per     int    // records per buffer
	spare   chan []byte
	work    chan []byte
	flushed chan struct{}
	err     error // the flusher's first error; read after flushed is closed
	closed  bool
	records uint64
	dropped atomic.Uint64

	slots []Record
	free  []uint32 // free slot numbers (1-based)
}

// Create creates the trace file of rank (of size ranks) at path. info is
// stored as key/value strings (host, clock, command line); routines names the
// routine codes records carry. strs is the process's string table.
func Create(path string, rank, size int, info map[string]string, routines []string, strs *Strings, o WriterOptions) (*Writer, error) {
	if o.BufferRecords <= 0 {
		o.BufferRecords = 4096
	}
	if o.Buffers < 2 {
		o.Buffers = 3
	}
	if o.OpenCalls <= 0 {
		o.OpenCalls = 1024
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	h := make([]byte, headerSize)
	copy(h, Magic)
	le := binary.LittleEndian
	le.PutUint16(h[8:], Version)
	le.PutUint16(h[10:], RecordSize)
	le.PutUint32(h[16:], uint32(int32(rank)))
	le.PutUint32(h[20:], uint32(int32(size)))
	keys := make([]string, 0, len(info))
	for k := range info {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var p []byte
	for _, k := range keys {
		p = appendString(appendString(p, k), info[k])
	}
	h = appendChunk(h, chunkInfo, p)
	p = nil
	for code, name := range routines {
		if name != "" && code < 256 {
			p = appendString(append(p, byte(code)), name)
		}
	}
	h = appendChunk(h, chunkRoutines, p)
	if _, err := f.Write(h); err != nil {
		f.Close()
		return nil, fmt.Errorf("trace: %w", err)
	}
	w := &Writer{path: path, f: f, strs: strs, per: o.BufferRecords,
		spare: make(chan []byte, o.Buffers), work: make(chan []byte, o.Buffers), flushed: make(chan struct{}),
		slots: make([]Record, o.OpenCalls), free: make([]uint32, o.OpenCalls)}
	for i := range w.free {
		w.free[i] = uint32(o.OpenCalls - i)
	}
	w.cur = w.newBuffer()
	for i := 1; i < o.Buffers; i++ {
		w.spare <- w.newBuffer()
	}
	go w.flusher()
	return w, nil
}

func (w *Writer) newBuffer() []byte { return make([]byte, chunkHead, chunkHead+w.per*RecordSize) }

// Path returns the file's path.
func (w *Writer) Path() string { return w.path }

// flusher writes the buffers handed to it, in order, and gives them back.
func (w *Writer) flusher() {
	defer close(w.flushed)
	for b := range w.work {
		if w.err == nil {
			if _, err := w.f.Write(b); err != nil {
				w.err = err
			}
		}
		if w.err != nil && len(b) > chunkHead {
			// Count the records lost with this buffer (not for pure string or
			// clock chunks, which carry no records).
			if binary.LittleEndian.Uint32(b) == chunkRecords {
				w.dropped.Add(uint64((len(b) - chunkHead) / RecordSize))
			}
		}
		if cap(b) == chunkHead+w.per*RecordSize {
			w.spare <- b[:chunkHead]
		}
	}
}

// handOff gives the current buffer (and strings added since the last one)
// to the flusher and takes a spare, waiting for one if none is free. w.mu is
// held.
func (w *Writer) handOff() {
	if p, n := w.strs.since(w.sent); p != nil {
		w.sent = n
		w.work <- appendChunk(nil, chunkStrings, p)
	}
	if len(w.cur) > chunkHead {
		binary.LittleEndian.PutUint32(w.cur, chunkRecords)
		binary.LittleEndian.PutUint32(w.cur[4:], uint32(len(w.cur)-chunkHead))
		w.work <- w.cur
		w.cur = <-w.spare
	}
}

// append adds r to the current buffer. w.mu is held.
func (w *Writer) append(r *Record) {
	if w.closed {
		w.dropped.Add(1)
		return
	}
	if len(w.cur)+RecordSize > cap(w.cur) {
		w.handOff()
	}
	n := len(w.cur)
	w.cur = w.cur[:n+RecordSize]
	r.put(w.cur[n:])
	w.records++
}

// Write records one call.
func (w *Writer) Write(r *Record) {
	w.mu.lock()
	w.append(r)
	w.mu.unlock()
}

// Begin opens a call: it returns a slot number and the record to fill, owned
// by the caller until Commit. Slot 0 means no slot was free: the call is
// counted as dropped and must not be committed.
func (w *Writer) Begin() (uint32, *Record) {
	w.mu.lock()
	n := len(w.free)
	if n == 0 || w.closed {
		w.mu.unlock()
		w.dropped.Add(1)
		return 0, nil
	}
	s := w.free[n-1]
	w.free = w.free[:n-1]
	w.mu.unlock()
	return s, &w.slots[s-1]
}

// Slot returns the record of the open call in slot (for its owner).
func (w *Writer) Slot(slot uint32) *Record { return &w.slots[slot-1] }

// Commit records the call opened in slot and frees the slot.
func (w *Writer) Commit(slot uint32) {
	if slot == 0 || int(slot) > len(w.slots) {
		return
	}
	w.mu.lock()
	w.append(&w.slots[slot-1])
	w.free = append(w.free, slot)
	w.mu.unlock()
}

// Drop counts n records that could not be recorded.
func (w *Writer) Drop(n uint64) { w.dropped.Add(n) }

// Clock records a measurement of this rank's clock against rank 0's.
func (w *Writer) Clock(s ClockSample) {
	p := appendString(nil, s.Phase)
	p = binary.LittleEndian.AppendUint64(p, uint64(s.Local))
	p = binary.LittleEndian.AppendUint64(p, math.Float64bits(s.Offset))
	p = binary.LittleEndian.AppendUint64(p, math.Float64bits(s.Err))
	w.mu.lock()
	if !w.closed {
		w.work <- appendChunk(nil, chunkClock, p)
	}
	w.mu.unlock()
}

// Comm records the members of communicator id: members[i] is the world
// rank of its rank i.
func (w *Writer) Comm(id uint32, members []int32) {
	p := binary.LittleEndian.AppendUint32(nil, id)
	p = binary.LittleEndian.AppendUint32(p, uint32(len(members)))
	for _, m := range members {
		p = binary.LittleEndian.AppendUint32(p, uint32(m))
	}
	w.mu.lock()
	if !w.closed {
		w.work <- appendChunk(nil, chunkComm, p)
	}
	w.mu.unlock()
}

// Close writes what is buffered and the end of the file, and closes it. It
// returns the first I/O error. Calls recorded afterwards are counted as
// dropped (and not written: the file is complete).
func (w *Writer) Close() error {
	w.mu.lock()
	if w.closed {
		w.mu.unlock()
		return nil
	}
	w.handOff()
	w.closed = true
	w.mu.unlock()
	close(w.work)
	<-w.flushed
	err := w.err
	// Open calls that never ended (a goroutine still blocked) are dropped.
	w.mu.lock()
	w.dropped.Add(uint64(len(w.slots) - len(w.free)))
	p := binary.LittleEndian.AppendUint64(nil, w.records)
	p = binary.LittleEndian.AppendUint64(p, w.dropped.Load())
	w.mu.unlock()
	if err == nil {
		_, err = w.f.Write(appendChunk(nil, chunkEnd, p))
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("trace: writing %s: %w", w.path, err)
	}
	return nil
}
