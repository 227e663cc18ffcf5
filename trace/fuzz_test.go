package trace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode: whatever the bytes, Decode returns a trace or an error
// wrapping ErrFormat, and never panics.
func FuzzDecode(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		rt, err := Decode("fuzz.gtr", b)
		if err != nil && !errors.Is(err, ErrFormat) {
			t.Fatalf("error %v does not wrap ErrFormat", err)
		}
		if err == nil && rt == nil {
			t.Fatal("no trace and no error")
		}
	})
}

// addSeeds adds the fuzz tests' seed corpus: a valid file, truncated ones.
func addSeeds(f *testing.F) {
	b, err := os.ReadFile(writeSample(f, f.TempDir()))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add(b[:len(b)-3])
	f.Add(b[:headerSize])
	f.Add([]byte(Magic))
	f.Add([]byte{})
}

// writeSample writes a small valid trace file and returns its path.
func writeSample(tb testing.TB, dir string) string {
	tb.Helper()
	path := filepath.Join(dir, "sample.gtr")
	strs := NewStrings()
	w, err := Create(path, 1, 2, map[string]string{"host": "h"}, []string{1: "Send", 2: "Recv"}, strs, WriterOptions{BufferRecords: 2})
	if err != nil {
		tb.Fatal(err)
	}
	site := strs.ID("main.f a.go:3")
	for i := 0; i < 5; i++ {
		w.Write(&Record{Routine: 1, Site: site, Start: int64(i * 10), End: int64(i*10 + 5), Peer: 0, Tag: 7, Bytes: 8})
	}
	w.Clock(ClockSample{Phase: "init", Local: 1, Offset: 2, Err: 3})
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// FuzzStreamDecode: the streamed decoder (Skim, then the records one at a
// time) accepts exactly the files Decode accepts, yields the same records,
// and otherwise fails with an error wrapping ErrFormat that names the file.
func FuzzStreamDecode(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.gtr")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		want, werr := Decode(path, b)
		got, err := streamAll(path)
		if (err == nil) != (werr == nil) {
			t.Fatalf("streamed: %v; Decode: %v", err, werr)
		}
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.File != path {
				t.Fatalf("error %v is not a format error naming the file", err)
			}
			return
		}
		if len(got.Events) != len(want.Events) || len(got.Strings) != len(want.Strings) || got.Records != want.Records {
			t.Fatalf("streamed %d events %d strings, Decode %d and %d", len(got.Events), len(got.Strings), len(want.Events), len(want.Strings))
		}
		for i := range got.Events {
			if got.Events[i] != want.Events[i] {
				t.Fatalf("record %d: %+v, Decode %+v", i, got.Events[i], want.Events[i])
			}
		}
	})
}

// streamAll reads a file with Skim and a recordReader.
func streamAll(path string) (*RankTrace, error) {
	rt, err := Skim(path)
	if err != nil {
		return nil, err
	}
	rr, err := openRecords(rt)
	if err != nil {
		return nil, err
	}
	defer rr.Close()
	for {
		var e Event
		_, ok, err := rr.read(&e)
		if err != nil {
			return nil, err
		}
		if !ok {
			return rt, nil
		}
		rt.Events = append(rt.Events, e)
	}
}
