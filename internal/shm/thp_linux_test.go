package shm

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

func TestHugeRange(t *testing.T) {
	const M = 1 << 20
	P := uintptr(hugePage)
	for _, c := range []struct {
		start, n, lo, hi uintptr
	}{
		{10 * P, 4 * M, 10 * P, 12 * P},       // aligned: both pages
		{10*P + M/2, 4 * M, 10 * P, 12 * P},   // 1.5 of the first, 0.5 of the last
		{10*P + 3*M/2, 4 * M, 11 * P, 13 * P}, // 0.5 of the first, 1.5 of the last
		{10*P + M, 4 * M, 10 * P, 13 * P},     // half of each edge page
		{10*P + M/4, 1 * M, 10 * P, 11 * P},   // 1 MiB inside one page
		{10*P + 3*M/2, 1 * M, 11 * P, 11 * P}, // 1 MiB over a boundary: none
		{10*P + 3*M/2, 2 * M, 11 * P, 12 * P}, // 0.5 of the first, 1.5 of the second
	} {
		lo, hi := hugeRange(c.start, c.n)
		if lo != c.lo || hi != c.hi {
			t.Errorf("hugeRange(%#x, %#x) = [%#x, %#x), want [%#x, %#x)", c.start, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

// withFakeAdvise runs f with the madvise calls replaced by a recorder.
func withFakeAdvise(t *testing.T, again bool, f func(got func() []uintptr)) {
	hugeInit()
	var mu sync.Mutex
	var calls []uintptr
	on, advise, work := huge.on, huge.advise, huge.work
	huge.on = true
	huge.advise = func(a, n uintptr) bool {
		if n != hugePage || a%hugePage != 0 {
			t.Errorf("advise(%#x, %#x): not one aligned huge page", a, n)
		}
		mu.Lock()
		calls = append(calls, a)
		mu.Unlock()
		return again
	}
	huge.work = nil
	clear(huge.seen)
	defer func() {
		huge.mu.Lock()
		if huge.work != nil {
			close(huge.work)
		}
		huge.on, huge.advise, huge.work = on, advise, work
		clear(huge.seen)
		huge.mu.Unlock()
	}()
	f(func() []uintptr {
		time.Sleep(50 * time.Millisecond) // the worker is asynchronous
		mu.Lock()
		defer mu.Unlock()
		return append([]uintptr(nil), calls...)
	})
}

func TestNoteSourceCollapsesHotPages(t *testing.T) {
	withFakeAdvise(t, false, func(got func() []uintptr) {
		buf := make([]byte, 3*hugePage)
		lo, hi := hugeRange(addrOf(buf), uintptr(len(buf)))
		pages := int((hi - lo) / hugePage)
		for range hugeSeen - 1 {
			NoteSource(buf)
		}
		if c := got(); len(c) != 0 {
			t.Fatalf("after %d sends: %d collapses, want none", hugeSeen-1, len(c))
		}
		NoteSource(buf)
		if c := got(); len(c) != pages {
			t.Fatalf("after %d sends: %d collapses, want %d", hugeSeen, len(c), pages)
		}
		for range 5 {
			NoteSource(buf) // the first is the retry
		}
		if c := got(); len(c) != 2*pages {
			t.Fatalf("after %d sends: %d collapses, want %d (once more, then never)", hugeSeen+5, len(c), 2*pages)
		}
		NoteSource(buf[:hugePage/2-1]) // too small to count
		NoteSource(nil)
	})
}

// TestNoteSourceKeepsContents collapses a real heap buffer (where the
// kernel allows it) and checks that no byte changed.
func TestNoteSourceKeepsContents(t *testing.T) {
	hugeInit()
	if !huge.on {
		t.Skip("no transparent huge pages here")
	}
	buf := make([]byte, 5*hugePage)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	want := bytes.Clone(buf)
	for range hugeSeen + 1 {
		NoteSource(buf)
	}
	// Let the worker collapse while this goroutine reads and writes.
	deadline := time.Now().Add(200 * time.Millisecond)
	for time.Now().Before(deadline) {
		for i := 0; i < len(buf); i += 4096 {
			buf[i] = want[i]
		}
	}
	if !bytes.Equal(buf, want) {
		t.Fatal("the buffer changed under the collapse")
	}
}

// TestNoteSourceRetriesBusyPages: a collapse that may pass later (EAGAIN:
// the peer had the page pinned) starts the page's count again.
func TestNoteSourceRetriesBusyPages(t *testing.T) {
	withFakeAdvise(t, true, func(got func() []uintptr) {
		buf := make([]byte, 3*hugePage)
		lo, hi := hugeRange(addrOf(buf), uintptr(len(buf)))
		pages := int((hi - lo) / hugePage)
		for range hugeSeen + 1 {
			NoteSource(buf)
		}
		first := len(got())
		if first < pages {
			t.Fatalf("after %d sends: %d collapses, want at least %d", hugeSeen+1, first, pages)
		}
		for range hugeSeen + 1 {
			NoteSource(buf)
		}
		if c := got(); len(c) < first+pages {
			t.Fatalf("after %d more sends of busy pages: %d collapses, want at least %d", hugeSeen+1, len(c), first+pages)
		}
	})
}
