package shm

import (
	"slices"
	"testing"
)

// TestNoteSourceNowCollapsesInCaller: a buffer inside one page is collapsed
// at its publishes-th note, in the caller (no worker: the advise has been
// made when noteNow returns), and never again.
func TestNoteSourceNowCollapsesInCaller(t *testing.T) {
	withFakeAdvise(t, false, func(got func() []uintptr) {
		const P = uintptr(hugePage)
		var calls []uintptr
		advise := huge.advise
		huge.advise = func(a, n uintptr) bool { calls = append(calls, a); return advise(a, n) }
		start := 7*P + 64<<10
		noteNow(start, 256<<10, 2)
		if len(calls) != 0 {
			t.Fatalf("after one note: collapses %#x, want none", calls)
		}
		noteNow(start, 256<<10, 2)
		if !slices.Equal(calls, []uintptr{7 * P}) {
			t.Fatalf("after two notes: collapses %#x, want [%#x]", calls, 7*P)
		}
		for range 10 {
			noteNow(start, 256<<10, 2)
		}
		if len(calls) != 1 {
			t.Fatalf("after twelve notes: %d collapses, want 1", len(calls))
		}
		if huge.work != nil {
			t.Fatal("noteNow started the background worker")
		}
		if c := got(); len(c) != 1 {
			t.Fatalf("advise saw %d calls, want 1", len(c))
		}
	})
}

// TestNoteSourceNowPages: pages wholly covered are collapsed at the
// publishes-th note; a page holding part of the buffer after
// proportionally more notes; one note per call at most.
func TestNoteSourceNowPages(t *testing.T) {
	withFakeAdvise(t, false, func(got func() []uintptr) {
		const P = uintptr(hugePage)
		var calls []uintptr
		huge.advise = func(a, n uintptr) bool { calls = append(calls, a); return false }
		// 4 MiB from a page boundary plus 1 MiB: pages 20 (half), 21 (whole),
		// 22 (half).
		start := 20*P + P/2
		noteNow(start, 2*P, 2)
		if len(calls) != 0 {
			t.Fatalf("after one note: collapses %#x", calls)
		}
		noteNow(start, 2*P, 2)
		if !slices.Equal(calls, []uintptr{21 * P}) {
			t.Fatalf("after two notes: collapses %#x, want the whole page [%#x]", calls, 21*P)
		}
		noteNow(start, 2*P, 2)
		noteNow(start, 2*P, 2)
		if !slices.Equal(calls, []uintptr{21 * P, 20 * P, 22 * P}) {
			t.Fatalf("after four notes: collapses %#x, want the half pages too", calls)
		}
		// One publish: collapsed at the first note.
		calls = nil
		noteNow(40*P, 64<<10, 1)
		if !slices.Equal(calls, []uintptr{40 * P}) {
			t.Fatalf("publishes 1: collapses %#x, want [%#x]", calls, 40*P)
		}
	})
}

// TestNoteSourceNowAgain: a collapse that may pass later (EAGAIN, ENOMEM)
// starts the page's credit again: it is tried again after as many notes.
func TestNoteSourceNowAgain(t *testing.T) {
	withFakeAdvise(t, true, func(got func() []uintptr) {
		const P = uintptr(hugePage)
		var calls []uintptr
		huge.advise = func(a, n uintptr) bool { calls = append(calls, a); return true }
		for range 6 {
			noteNow(3*P, 512<<10, 2)
		}
		if !slices.Equal(calls, []uintptr{3 * P, 3 * P, 3 * P}) {
			t.Fatalf("six notes, every collapse failing: collapses %#x, want three", calls)
		}
	})
}

// TestNoteSourceNowSmallOrOff: buffers below hugeMinSource, and a process
// with huge pages off, are never collapsed.
func TestNoteSourceNowSmallOrOff(t *testing.T) {
	withFakeAdvise(t, false, func(got func() []uintptr) {
		buf := make([]byte, hugeMinSource-1)
		for range 4 {
			NoteSourceNow(buf, 1)
		}
		huge.on = false
		big := make([]byte, 1<<20)
		for range 4 {
			NoteSourceNow(big, 1)
		}
		if c := got(); len(c) != 0 {
			t.Fatalf("collapses %#x, want none", c)
		}
	})
}

// TestNoteSourceNowThenNoteSource: a page collapsed by noteNow is not
// queued again by NoteSource's notes (point-to-point credits the same
// buffer: the linear Scatter's root), not even for NoteSource's retry;
// one that may pass later (EAGAIN) is credited again by both.
func TestNoteSourceNowThenNoteSource(t *testing.T) {
	for _, again := range []bool{false, true} {
		withFakeAdvise(t, again, func(got func() []uintptr) {
			const P = uintptr(hugePage)
			start := 5*P + 64<<10
			noteNow(start, 1<<20, 2)
			noteNow(start, 1<<20, 2)
			if c := got(); !slices.Equal(c, []uintptr{5 * P}) {
				t.Fatalf("again=%v: after two noteNow: collapses %#x, want [%#x]", again, c, 5*P)
			}
			for range 3 * hugeSeen {
				noteRange(start, 1<<20)
			}
			c := got()
			if !again && len(c) != 1 {
				t.Fatalf("collapsed in the caller, then %d NoteSource notes: collapses %#x, want the caller's alone", 3*hugeSeen, c)
			}
			if again && len(c) < 2 {
				t.Fatalf("a collapse to try again, then %d NoteSource notes: collapses %#x, want more than the caller's", 3*hugeSeen, c)
			}
		})
	}
}
