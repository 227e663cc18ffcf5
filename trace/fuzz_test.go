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
	dir := f.TempDir()
	good := writeSample(f, dir)
	b, err := os.ReadFile(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add(b[:headerSize])
	f.Add([]byte(Magic))
	f.Add([]byte{})
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
