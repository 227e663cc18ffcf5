package trace

import (
	"encoding/binary"
	"fmt"
	"math"
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
	if len(b) < headerSize {
		return nil, bad(len(b), "file too short for a header (%d bytes, want %d)", len(b), headerSize)
	}
	if string(b[:8]) != Magic {
		return nil, bad(0, "bad magic %q", b[:8])
	}
	le := binary.LittleEndian
	if v := le.Uint16(b[8:]); v < oldestVersion || v > Version {
		return nil, bad(8, "version %d, this reader knows %d to %d", v, oldestVersion, Version)
	}
	if rs := le.Uint16(b[10:]); rs != RecordSize {
		return nil, bad(10, "record size %d, want %d", rs, RecordSize)
	}
	rt := &RankTrace{Path: name, Rank: int(int32(le.Uint32(b[16:]))), Size: int(int32(le.Uint32(b[20:]))),
		Info: map[string]string{}, Strings: []string{""}, Comms: map[uint32][]int32{}}
	if rt.Size <= 0 || rt.Rank < 0 || rt.Rank >= rt.Size {
		return nil, bad(16, "rank %d of %d", rt.Rank, rt.Size)
	}
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
		switch kind {
		case chunkInfo:
			for len(p) > 0 {
				k, rest, ok := cutString(p)
				v, rest2, ok2 := cutString(rest)
				if !ok || !ok2 {
					return nil, bad(pos, "corrupt info chunk")
				}
				rt.Info[k] = v
				p = rest2
			}
		case chunkRoutines:
			for len(p) > 0 {
				code := p[0]
				name, rest, ok := cutString(p[1:])
				if !ok {
					return nil, bad(pos, "corrupt routine table")
				}
				for len(rt.Routines) <= int(code) {
					rt.Routines = append(rt.Routines, "")
				}
				rt.Routines[code] = name
				p = rest
			}
		case chunkStrings:
			if len(p) < 4 {
				return nil, bad(pos, "corrupt string chunk")
			}
			if first := le.Uint32(p); int(first) != len(rt.Strings) {
				return nil, bad(pos, "string ids start at %d, want %d", first, len(rt.Strings))
			}
			p = p[4:]
			for len(p) > 0 {
				s, rest, ok := cutString(p)
				if !ok {
					return nil, bad(pos, "corrupt string in string chunk")
				}
				rt.Strings = append(rt.Strings, s)
				p = rest
			}
		case chunkRecords:
			if n%RecordSize != 0 {
				return nil, bad(pos, "record chunk of %d bytes is not a whole number of %d-byte records", n, RecordSize)
			}
			for i := 0; i < n; i += RecordSize {
				var e Event
				e.get(p[i:])
				rt.Events = append(rt.Events, e)
			}
		case chunkClock:
			ph, rest, ok := cutString(p)
			if !ok || len(rest) != 24 {
				return nil, bad(pos, "corrupt clock chunk")
			}
			s := ClockSample{Phase: ph, Local: int64(le.Uint64(rest)),
				Offset: math.Float64frombits(le.Uint64(rest[8:])), Err: math.Float64frombits(le.Uint64(rest[16:]))}
			if math.IsNaN(s.Offset) || math.IsInf(s.Offset, 0) || !(s.Err >= 0) || math.IsInf(s.Err, 0) {
				return nil, bad(pos, "clock sample with offset %v ± %v", s.Offset, s.Err)
			}
			rt.Clock = append(rt.Clock, s)
		case chunkComm:
			if len(p) < 8 || uint64(le.Uint32(p[4:]))*4 != uint64(len(p)-8) {
				return nil, bad(pos, "corrupt communicator chunk")
			}
			id, m := le.Uint32(p), make([]int32, le.Uint32(p[4:]))
			for i := range m {
				m[i] = int32(le.Uint32(p[8+4*i:]))
				if m[i] < 0 || int(m[i]) >= rt.Size {
					return nil, bad(pos, "communicator %d has world rank %d of %d", id, m[i], rt.Size)
				}
			}
			rt.Comms[id] = m
		case chunkEnd:
			if n != 16 {
				return nil, bad(pos, "corrupt end chunk")
			}
			rt.Records, rt.Dropped = le.Uint64(p), le.Uint64(p[8:])
			ended = true
		default:
			return nil, bad(off, "unknown chunk kind %d", kind)
		}
		off += chunkHead + n
	}
	if !ended {
		return nil, bad(off, "truncated: the file has no end (did the rank stop before Finalize?)")
	}
	for i := range rt.Events {
		e := &rt.Events[i]
		if int(e.Site) >= len(rt.Strings) || int(e.Algo) >= len(rt.Strings) {
			return nil, bad(headerSize, "record %d names string %d of %d", i, max(e.Site, e.Algo), len(rt.Strings))
		}
		if e.End < e.Start {
			return nil, bad(headerSize, "record %d ends (%d) before it starts (%d)", i, e.End, e.Start)
		}
	}
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
