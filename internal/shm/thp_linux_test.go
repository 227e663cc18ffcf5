package shm

import (
	"bytes"
	"slices"
	"sync"
	"testing"
	"time"
)

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

// TestNoteSourceCollapsesHotPages: a page is queued when it has been the
// source of hugeCredit bytes, once more at the next note, then never.
func TestNoteSourceCollapsesHotPages(t *testing.T) {
	withFakeAdvise(t, false, func(got func() []uintptr) {
		const P = uintptr(hugePage)
		// A whole page at a time: hugeSeen notes, as before.
		for range hugeSeen - 1 {
			noteRange(10*P, P)
		}
		if c := got(); len(c) != 0 {
			t.Fatalf("after %d whole-page notes: %d collapses, want none", hugeSeen-1, len(c))
		}
		noteRange(10*P, P)
		if c := got(); !slices.Equal(c, []uintptr{10 * P}) {
			t.Fatalf("after %d whole-page notes: collapses %#x, want [%#x]", hugeSeen, c, 10*P)
		}
		for range 5 {
			noteRange(10*P, P) // the first is the retry
		}
		if c := got(); len(c) != 2 {
			t.Fatalf("after %d notes: %d collapses, want 2 (once more, then never)", hugeSeen+5, len(c))
		}
	})
}

// TestNoteSourceSmallBuffers: a 64 KiB buffer's page is collapsed after
// hugeCredit / 64 KiB notes, and buffers below hugeMinSource do not count.
func TestNoteSourceSmallBuffers(t *testing.T) {
	withFakeAdvise(t, false, func(got func() []uintptr) {
		const P, n = uintptr(hugePage), uintptr(64 << 10)
		k := int(hugeCredit / n)
		for range k - 1 {
			noteRange(20*P+3*n, n)
		}
		if c := got(); len(c) != 0 {
			t.Fatalf("after %d notes of 64 KiB: %d collapses, want none", k-1, len(c))
		}
		noteRange(20*P+5*n, n) // another buffer in the same page
		if c := got(); !slices.Equal(c, []uintptr{20 * P}) {
			t.Fatalf("after %d notes of 64 KiB: collapses %#x, want [%#x]", k, c, 20*P)
		}
		buf := make([]byte, hugeMinSource-1)
		for range hugeCredit / len(buf) * 2 {
			NoteSource(buf)
		}
		NoteSource(nil)
		if c := got(); len(c) != 1 {
			t.Fatalf("buffers of %d bytes: %d collapses in all, want the one before", len(buf), len(c))
		}
	})
}

// TestNoteSourceStraddlingBuffer: a 1 MiB buffer across a 2 MiB boundary,
// three quarters in the upper page: each page is credited with its own
// part, so the upper page is collapsed first, the lower later.
func TestNoteSourceStraddlingBuffer(t *testing.T) {
	withFakeAdvise(t, false, func(got func() []uintptr) {
		const P, M = uintptr(hugePage), uintptr(1 << 20)
		start := 31*P - M/4
		upper := int((hugeCredit + 3*M/4 - 1) / (3 * M / 4)) // notes until the upper page's credit
		lower := int(hugeCredit / (M / 4))
		for range upper - 1 {
			noteRange(start, M)
		}
		if c := got(); len(c) != 0 {
			t.Fatalf("after %d notes: %d collapses, want none", upper-1, len(c))
		}
		noteRange(start, M)
		if c := got(); !slices.Equal(c, []uintptr{31 * P}) {
			t.Fatalf("after %d notes: collapses %#x, want the upper page [%#x]", upper, c, 31*P)
		}
		for range lower - upper - 1 {
			noteRange(start, M)
		}
		if c := got(); len(c) != 2 {
			t.Fatalf("after %d notes: %d collapses, want 2 (the upper page and its retry)", lower-1, len(c))
		}
		noteRange(start, M)
		if c := got(); len(c) != 3 || c[2] != 30*P {
			t.Fatalf("after %d notes: collapses %#x, want the lower page %#x third", lower, c, 30*P)
		}
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
		lo, hi := addrOf(buf)&^(hugePage-1), addrOf(buf)+uintptr(len(buf))
		pages := 0 // the pages the buffer covers wholly: credited with a whole page per note
		for a := lo; a+hugePage <= hi; a += hugePage {
			if a >= addrOf(buf) {
				pages++
			}
		}
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

// TestNoteSourceWeighted: a page noted with weight w is queued after
// hugeSeen/w whole-page notes (weight 1 is NoteSource), and a weight does
// not carry a page's credit past one collapse: the retry comes at the next
// note, then never again.
func TestNoteSourceWeighted(t *testing.T) {
	withFakeAdvise(t, false, func(got func() []uintptr) {
		const P = uintptr(hugePage)
		const w = 8
		for range hugeSeen/w - 1 {
			noteRangeWeighted(30*P, P, w)
		}
		if c := got(); len(c) != 0 {
			t.Fatalf("after %d whole-page notes of weight %d: %d collapses, want none", hugeSeen/w-1, w, len(c))
		}
		noteRangeWeighted(30*P, P, w)
		if c := got(); !slices.Equal(c, []uintptr{30 * P}) {
			t.Fatalf("after %d whole-page notes of weight %d: collapses %#x, want [%#x]", hugeSeen/w, w, c, 30*P)
		}
		for range 5 {
			noteRangeWeighted(30*P, P, w)
		}
		if c := got(); len(c) != 2 {
			t.Fatalf("%d collapses, want 2 (once more, then never)", len(c))
		}
		// A weight larger than the credit: one note queues the page.
		noteRangeWeighted(31*P, P, 1<<20)
		if c := got(); len(c) != 3 || c[2] != 31*P {
			t.Fatalf("a note of weight 1<<20: collapses %#x, want a third, of %#x", c, 31*P)
		}
		// Weight 1 through the exported function is NoteSource.
		buf := make([]byte, hugeMinSource-1)
		NoteSourceWeighted(buf, w)
		NoteSourceWeighted(nil, w)
		if c := got(); len(c) != 3 {
			t.Fatalf("a buffer below hugeMinSource: %d collapses, want 3", len(c))
		}
	})
}
