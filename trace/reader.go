package trace

import (
	"encoding/binary"
	"fmt"
	"os"
)

// RankTrace is the content of one rank's file.
type RankTrace struct {
	Path     string
	Rank     int // world rank
	Size     int // ranks in the job
	Info     map[string]string
	Routines []string // Routines[code] names the routine of a record ("Send", ...)
	Strings  []string // Strings[id] is the string with id (Strings[0] is "")
	Events   []Event  // in the order the calls returned
	Clock    []ClockSample
	// Comms gives the members of the communicators this rank used, by id:
	// Comms[id][i] is the world rank of rank i of the communicator (the
	// world, id 1, is left out). Files of version 1 have none.
	Comms   map[uint32][]int32
	Records uint64 // records the writer wrote (from the end of the file)
	Dropped uint64 // records the writer could not keep
	events  int    // records in the file (len(Events) once read; Skim counts them)
	kinds   []opKind
}

// Event is one call: its record, and its begin and end on the job's one
// time axis (seconds since rank 0's first event, after clock correction;
// set by ReadDir, or by Align).
type Event struct {
	Record
	T0, T1 float64
}

// Name returns the routine name of e.
func (rt *RankTrace) Name(e *Event) string { return rt.routine(e.Routine) }

func (rt *RankTrace) routine(code uint8) string {
	if int(code) < len(rt.Routines) && rt.Routines[code] != "" {
		return rt.Routines[code]
	}
	return fmt.Sprintf("Routine(%d)", code)
}

// String returns the string with id (call sites, algorithm names), "" for
// an unknown id.
func (rt *RankTrace) String(id uint32) string {
	if int(id) < len(rt.Strings) {
		return rt.Strings[id]
	}
	return ""
}

// Site returns the call site of e: "function file:line" of the user's call.
func (rt *RankTrace) Site(e *Event) string { return rt.String(e.Site) }

// ReadFile reads one rank's trace file. A file that is not a valid trace
// gives an error wrapping ErrFormat (a *FormatError naming the file and the
// offset); a file without its end (the program stopped before Finalize)
// also gives one.
func ReadFile(path string) (*RankTrace, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	return Decode(path, b)
}

// Decode decodes the bytes of a trace file; name is used in errors.
func Decode(name string, b []byte) (*RankTrace, error) {
	bad := func(off int, format string, a ...any) error {
		return &FormatError{File: name, Offset: int64(off), Detail: fmt.Sprintf(format, a...)}
	}
	rt, err := decodeHeader(name, b)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	rt.Events = make([]Event, 0, countRecords(b))
	off := headerSize
	ended := false
	for off < len(b) {
		if ended {
			return nil, bad(off, "data after the end chunk")
		}
		if len(b)-off < chunkHead {
			return nil, bad(off, "truncated chunk header")
		}
		kind, n := le.Uint32(b[off:]), int(le.Uint32(b[off+4:]))
		if n > maxChunk || n > len(b)-off-chunkHead {
			return nil, bad(off, "chunk of %d bytes runs past the end of the file (%d bytes)", n, len(b))
		}
		p := b[off+chunkHead : off+chunkHead+n]
		pos := off + chunkHead
		if kind == chunkRecords {
			if n%RecordSize != 0 {
				return nil, bad(pos, "record chunk of %d bytes is not a whole number of %d-byte records", n, RecordSize)
			}
			for i := 0; i < n; i += RecordSize {
				var e Event
				e.get(p[i:])
				rt.Events = append(rt.Events, e)
			}
		} else {
			if err := rt.decodeChunk(kind, p, int64(off), int64(pos)); err != nil {
				return nil, err
			}
			ended = kind == chunkEnd
		}
		off += chunkHead + n
	}
	if !ended {
		return nil, bad(off, "truncated: the file has no end (did the rank stop before Finalize?)")
	}
	for i := range rt.Events {
		if err := rt.checkRecord(i, &rt.Events[i].Record); err != nil {
			return nil, err
		}
	}
	rt.events = len(rt.Events)
	return rt, nil
}

// countRecords counts the records of a file's record chunks (as far as the
// chunk headers are sound; Decode checks them), so that Decode allocates
// its events once, at their size.
func countRecords(b []byte) int {
	n := 0
	for off := headerSize; len(b)-off >= chunkHead; {
		kind, size := binary.LittleEndian.Uint32(b[off:]), int(binary.LittleEndian.Uint32(b[off+4:]))
		if size > maxChunk || size > len(b)-off-chunkHead {
			break
		}
		if kind == chunkRecords {
			n += size / RecordSize
		}
		off += chunkHead + size
	}
	return n
}

// cutString splits a length-prefixed string off p.
func cutString(p []byte) (string, []byte, bool) {
	if len(p) < 4 {
		return "", nil, false
	}
	n := binary.LittleEndian.Uint32(p)
	if uint64(n) > uint64(len(p)-4) {
		return "", nil, false
	}
	return string(p[4 : 4+n]), p[4+n:], true
}
