package trace

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// File layout (all integers little-endian):
//
//	header   32 bytes: Magic (8), Version u16, RecordSize u16, flags u32,
//	         rank i32, size i32, reserved 8
//	chunks   kind u32, length u32, payload (length bytes), repeated
//
// Chunks:
//
//	chunkInfo      key/value strings about the rank (host, clock, command)
//	chunkRoutines  routine code u8 + name, for every routine the runtime knows
//	chunkStrings   first id u32, then strings (u32 length + bytes) with ids first, first+1, …
//	chunkRecords   n fixed-size records (RecordSize bytes each)
//	chunkClock     a clock offset measurement (ClockSample)
//	chunkEnd       records u64, dropped u64: written by Close, last in the file
//	chunkComm      a communicator: id u32, size u32, then the world rank of each of
//	               its ranks (i32, in rank order) (version 2)
const (
	Magic      = "GOMPITRC"
	Version    = 2
	RecordSize = 72
	headerSize = 32
	chunkHead  = 8
	// maxChunk bounds a chunk's length so that a corrupt length cannot make
	// the reader allocate gigabytes.
	maxChunk = 64 << 20
)

const (
	chunkInfo uint32 = iota + 1
	chunkRoutines
	chunkStrings
	chunkRecords
	chunkClock
	chunkEnd
	chunkComm
)

// oldestVersion is the oldest file version the reader reads (version 1 has
// no communicator chunks).
const oldestVersion = 1

// ErrFormat is wrapped by every error about a file that is not a valid trace
// (wrong magic, unknown version, corrupt or truncated chunk).
var ErrFormat = errors.New("not a valid gompi trace")

// FormatError says which file and at which byte offset the reader found the
// file wrong.
type FormatError struct {
	File   string
	Offset int64
	Detail string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: offset %d: %s (%v)", e.File, e.Offset, e.Detail, ErrFormat)
}

func (e *FormatError) Unwrap() error { return ErrFormat }

// Flags of a record.
type Flags uint8

const (
	FlagError     Flags = 1 << iota // the call returned an error
	FlagCompleted                   // Test/Testany…: the request completed in this call
	FlagCancelled                   // the completed receive had been cancelled
)

// Special values of Record.Peer (world ranks are ≥ 0).
const (
	PeerNone = -1 // the call has no peer
	PeerAny  = -2 // AnySource
	PeerNull = -3 // ProcNull
)

// TagAny is Record.Tag of a receive with AnyTag (and of calls without a tag).
const TagAny = -1

// Record is one call, as stored: RecordSize bytes in a file.
type Record struct {
	Routine uint8  // the runtime's routine code; RankTrace.Routines names it
	Flags   Flags  // FlagError, FlagCompleted, FlagCancelled
	Site    uint32 // string id of the call site ("function file:line"); 0 unknown
	Start   int64  // local clock, nanoseconds, as the call began
	End     int64  // local clock, nanoseconds, as it returned
	Comm    uint32 // communicator id, the same on every member
	Peer    int32  // destination, source or root as a world rank, or PeerNone/PeerAny/PeerNull
	Tag     int32  // tag, or TagAny
	Algo    uint32 // string id of the collective algorithm chosen; 0 none (here, not last, to keep the struct 72 bytes)
	Bytes   int64  // bytes sent, or the receive buffer's size; -1 when none
	Req     uint64 // request id: the request the call made (Isend…) or is about (Wait…); 0 none
	// The status of a completed receive (Recv, Sendrecv, or a Wait/Test that
	// completed a receive request): actual source as a world rank (PeerNone
	// when there was no message), actual tag, bytes received.
	StSource int32
	StTag    int32
	StCount  int64
}

// put encodes r into b[:RecordSize].
func (r *Record) put(b []byte) {
	_ = b[RecordSize-1]
	b[0] = r.Routine
	b[1] = byte(r.Flags)
	b[2], b[3] = 0, 0
	le := binary.LittleEndian
	le.PutUint32(b[4:], r.Site)
	le.PutUint64(b[8:], uint64(r.Start))
	le.PutUint64(b[16:], uint64(r.End))
	le.PutUint32(b[24:], r.Comm)
	le.PutUint32(b[28:], uint32(r.Peer))
	le.PutUint32(b[32:], uint32(r.Tag))
	le.PutUint32(b[36:], uint32(r.StSource))
	le.PutUint64(b[40:], uint64(r.Bytes))
	le.PutUint64(b[48:], uint64(r.StCount))
	le.PutUint64(b[56:], r.Req)
	le.PutUint32(b[64:], uint32(r.StTag))
	le.PutUint32(b[68:], r.Algo)
}

// get decodes b[:RecordSize] into r.
func (r *Record) get(b []byte) {
	_ = b[RecordSize-1]
	le := binary.LittleEndian
	*r = Record{
		Routine:  b[0],
		Flags:    Flags(b[1]),
		Site:     le.Uint32(b[4:]),
		Start:    int64(le.Uint64(b[8:])),
		End:      int64(le.Uint64(b[16:])),
		Comm:     le.Uint32(b[24:]),
		Peer:     int32(le.Uint32(b[28:])),
		Tag:      int32(le.Uint32(b[32:])),
		StSource: int32(le.Uint32(b[36:])),
		Bytes:    int64(le.Uint64(b[40:])),
		StCount:  int64(le.Uint64(b[48:])),
		Req:      le.Uint64(b[56:]),
		StTag:    int32(le.Uint32(b[64:])),
		Algo:     le.Uint32(b[68:]),
	}
}

// ClockSample is one measurement of a rank's clock against rank 0's: at the
// rank's local time Local (nanoseconds), rank 0's clock read Local+Offset,
// within ±Err nanoseconds. Phase says when it was taken.
type ClockSample struct {
	Phase  string // "init" or "finalize"
	Local  int64
	Offset float64
	Err    float64
}
