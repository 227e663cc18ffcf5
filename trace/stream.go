package trace

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// Streaming reads a rank's file without holding its records: Skim decodes
// everything but the records (seeking past them), and a recordReader then
// yields the records one at a time through a fixed-size buffer. The two
// together accept exactly the files Decode accepts, with errors naming the
// file and the offset.

// streamBuffer is the read buffer of one file.
const streamBuffer = 64 << 10

// Skim reads one rank's file like ReadFile but leaves its events out (the
// returned RankTrace has no Events; Records counts them as the file's end
// says, and recordCount in the chunks). It checks every chunk but the
// records themselves, which a recordReader checks as it reads them.
func Skim(path string) (*RankTrace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	size := fi.Size()
	r := bufio.NewReaderSize(f, streamBuffer)
	bad := func(off int64, format string, a ...any) error {
		return &FormatError{File: path, Offset: off, Detail: fmt.Sprintf(format, a...)}
	}
	var h [headerSize]byte
	if n, _ := io.ReadFull(r, h[:]); n < headerSize {
		// Decode's checks on the bytes there are, for the same message.
		_, err := Decode(path, h[:n])
		return nil, err
	}
	rt, err := decodeHeader(path, h[:])
	if err != nil {
		return nil, err
	}
	off := int64(headerSize)
	ended := false
	var p []byte
	for off < size {
		if ended {
			return nil, bad(off, "data after the end chunk")
		}
		if size-off < chunkHead {
			return nil, bad(off, "truncated chunk header")
		}
		var ch [chunkHead]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			return nil, fmt.Errorf("trace: %s: %w", path, err)
		}
		kind, n := binary.LittleEndian.Uint32(ch[:]), int64(binary.LittleEndian.Uint32(ch[4:]))
		if n > maxChunk || n > size-off-chunkHead {
			return nil, bad(off, "chunk of %d bytes runs past the end of the file (%d bytes)", n, size)
		}
		pos := off + chunkHead
		if kind == chunkRecords {
			if n%RecordSize != 0 {
				return nil, bad(pos, "record chunk of %d bytes is not a whole number of %d-byte records", n, RecordSize)
			}
			if _, err := r.Discard(int(n)); err != nil {
				return nil, fmt.Errorf("trace: %s: %w", path, err)
			}
			rt.events += int(n / RecordSize)
		} else {
			p = append(p[:0], make([]byte, n)...)
			if _, err := io.ReadFull(r, p); err != nil {
				return nil, fmt.Errorf("trace: %s: %w", path, err)
			}
			if err := rt.decodeChunk(kind, p, off, pos); err != nil {
				return nil, err
			}
			ended = kind == chunkEnd
		}
		off += chunkHead + n
	}
	if !ended {
		return nil, bad(off, "truncated: the file has no end (did the rank stop before Finalize?)")
	}
	return rt, nil
}

// recordReader yields the records of a skimmed file in file order, with
// their index, checking each as Decode does.
type recordReader struct {
	f       *os.File
	r       *bufio.Reader
	rt      *RankTrace // from Skim: the string table to check against
	off     int64      // of the next byte
	left    int64      // bytes of records left in the current chunk
	next    int        // index of the next record
	rec     [RecordSize]byte
	scratch []byte
}

func openRecords(rt *RankTrace) (*recordReader, error) {
	f, err := os.Open(rt.Path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	rr := &recordReader{f: f, r: bufio.NewReaderSize(f, streamBuffer), rt: rt, off: headerSize}
	if _, err := rr.r.Discard(headerSize); err != nil {
		f.Close()
		return nil, rr.fail(err)
	}
	return rr, nil
}

func (rr *recordReader) Close() error { return rr.f.Close() }

// fail reports a file that changed under the reader (Skim checked it).
func (rr *recordReader) fail(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &FormatError{File: rr.rt.Path, Offset: rr.off, Detail: "truncated (did the file change while it was read?)"}
	}
	return fmt.Errorf("trace: %s: %w", rr.rt.Path, err)
}

// read decodes the next record into e (its times not set) and returns its
// index; ok is false after the last.
func (rr *recordReader) read(e *Event) (i int, ok bool, err error) {
	for rr.left == 0 {
		var ch [chunkHead]byte
		if _, err := io.ReadFull(rr.r, ch[:]); err != nil {
			return 0, false, rr.fail(err)
		}
		kind, n := binary.LittleEndian.Uint32(ch[:]), int64(binary.LittleEndian.Uint32(ch[4:]))
		rr.off += chunkHead
		switch kind {
		case chunkEnd:
			return 0, false, nil
		case chunkRecords:
			rr.left = n
		default:
			if _, err := rr.r.Discard(int(n)); err != nil {
				return 0, false, rr.fail(err)
			}
			rr.off += n
		}
	}
	if _, err := io.ReadFull(rr.r, rr.rec[:]); err != nil {
		return 0, false, rr.fail(err)
	}
	e.get(rr.rec[:])
	e.T0, e.T1 = 0, 0
	i = rr.next
	if err := rr.rt.checkRecord(i, &e.Record); err != nil {
		return 0, false, err
	}
	rr.next++
	rr.left -= RecordSize
	rr.off += RecordSize
	return i, true, nil
}

// checkRecord checks a record against its file's string table.
func (rt *RankTrace) checkRecord(i int, e *Record) error {
	if int(e.Site) >= len(rt.Strings) || int(e.Algo) >= len(rt.Strings) {
		return &FormatError{File: rt.Path, Offset: headerSize, Detail: fmt.Sprintf("record %d names string %d of %d", i, max(e.Site, e.Algo), len(rt.Strings))}
	}
	if e.End < e.Start {
		return &FormatError{File: rt.Path, Offset: headerSize, Detail: fmt.Sprintf("record %d ends (%d) before it starts (%d)", i, e.End, e.Start)}
	}
	return nil
}

// decodeHeader checks a file's header and returns its rank without events.
func decodeHeader(name string, b []byte) (*RankTrace, error) {
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
	return rt, nil
}

// decodeChunk decodes a chunk other than records into rt; off is the
// chunk's offset, pos its payload's.
func (rt *RankTrace) decodeChunk(kind uint32, p []byte, off, pos int64) error {
	bad := func(off int64, format string, a ...any) error {
		return &FormatError{File: rt.Path, Offset: off, Detail: fmt.Sprintf(format, a...)}
	}
	le := binary.LittleEndian
	switch kind {
	case chunkInfo:
		for len(p) > 0 {
			k, rest, ok := cutString(p)
			v, rest2, ok2 := cutString(rest)
			if !ok || !ok2 {
				return bad(pos, "corrupt info chunk")
			}
			rt.Info[k] = v
			p = rest2
		}
	case chunkRoutines:
		for len(p) > 0 {
			code := p[0]
			name, rest, ok := cutString(p[1:])
			if !ok {
				return bad(pos, "corrupt routine table")
			}
			for len(rt.Routines) <= int(code) {
				rt.Routines = append(rt.Routines, "")
			}
			rt.Routines[code] = name
			p = rest
		}
	case chunkStrings:
		if len(p) < 4 {
			return bad(pos, "corrupt string chunk")
		}
		if first := le.Uint32(p); int(first) != len(rt.Strings) {
			return bad(pos, "string ids start at %d, want %d", first, len(rt.Strings))
		}
		p = p[4:]
		for len(p) > 0 {
			s, rest, ok := cutString(p)
			if !ok {
				return bad(pos, "corrupt string in string chunk")
			}
			rt.Strings = append(rt.Strings, s)
			p = rest
		}
	case chunkClock:
		ph, rest, ok := cutString(p)
		if !ok || len(rest) != 24 {
			return bad(pos, "corrupt clock chunk")
		}
		s := ClockSample{Phase: ph, Local: int64(le.Uint64(rest)),
			Offset: math.Float64frombits(le.Uint64(rest[8:])), Err: math.Float64frombits(le.Uint64(rest[16:]))}
		if math.IsNaN(s.Offset) || math.IsInf(s.Offset, 0) || !(s.Err >= 0) || math.IsInf(s.Err, 0) {
			return bad(pos, "clock sample with offset %v ± %v", s.Offset, s.Err)
		}
		rt.Clock = append(rt.Clock, s)
	case chunkComm:
		if len(p) < 8 || uint64(le.Uint32(p[4:]))*4 != uint64(len(p)-8) {
			return bad(pos, "corrupt communicator chunk")
		}
		id, m := le.Uint32(p), make([]int32, le.Uint32(p[4:]))
		for i := range m {
			m[i] = int32(le.Uint32(p[8+4*i:]))
			if m[i] < 0 || int(m[i]) >= rt.Size {
				return bad(pos, "communicator %d has world rank %d of %d", id, m[i], rt.Size)
			}
		}
		rt.Comms[id] = m
	case chunkEnd:
		if len(p) != 16 {
			return bad(pos, "corrupt end chunk")
		}
		rt.Records, rt.Dropped = le.Uint64(p), le.Uint64(p[8:])
	default:
		return bad(off, "unknown chunk kind %d", kind)
	}
	return nil
}
