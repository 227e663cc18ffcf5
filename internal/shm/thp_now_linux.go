package shm

// Huge pages under a two-rank collective's buffers, collapsed by the caller
// (issue 18, branch big6).
//
// NoteSourceWeighted queues a page that has earned its collapse for a
// background goroutine. On two ranks both processes copy at once in every
// call of a single-copy collective, so the collapse (0.8-6 ms of a CPU per
// 2 MiB page, and the mm lock taken for writing at its end, which the
// peer's process_vm_readv waits for) runs beside the peer's copies, inside
// the calls that follow: the tail of the 1 MiB points, and the reason
// 256 KiB buffers were kept off huge pages (collHugeMin in gompi).
// NoteSourceNow makes the collapse in the caller before it returns, which
// for a collective is before it publishes the buffer: nobody copies from
// the page while it is collapsed, the one call pays for it, and the calls
// after it run on the huge page.

// NoteSourceNow notes that a peer is about to copy buf's pages, as
// NoteSource does, and collapses in the caller the pages whose credit is
// reached once buf has been noted publishes times (a page holding only
// part of buf after proportionally more notes). A page is collapsed once;
// a collapse that may pass later (a page pinned or no huge page free)
// starts the page's credit again.
func NoteSourceNow(buf []byte, publishes int) {
	if !hugeWanted(buf) {
		return
	}
	noteNow(addrOf(buf), uintptr(len(buf)), uintptr(max(publishes, 1)))
}

// noteNow is NoteSourceNow of the n bytes at start.
//
// A page collapsed here is marked done for NoteSource too (queued 2, its
// "once more, then never" spent). It was left at queued 1, so the next
// NoteSource of the same page (point-to-point credits every send's source:
// the linear Bcast and Scatter, whose root's buffer noteLinearRoot
// collapses here) queued the retry meant for a background collapse that
// may have failed, and the worker collapsed the page a second time a few
// calls later, inside the timed calls (strace of golaunch -n 4 benches
// osu --op scatter --sizes 262144 --skip-large 10: MADV_COLLAPSE of the
// root's page 3.0 ms in the caller, then 2.1 ms in the worker 12 ms
// later; issue 18, branch big9).
func noteNow(start, n, publishes uintptr) {
	var pages [4]uintptr
	for _, a := range notePagesNow(start, n, publishes, pages[:0]) {
		st := hugePageState{bytes: hugeCredit, queued: 2} // done: never again
		if huge.advise(a, hugePage) {
			st = hugePageState{} // may pass later: credit again
		}
		huge.mu.Lock()
		huge.seen[a] = st
		huge.mu.Unlock()
	}
}

// notePagesNow credits the pages under the n bytes at start so that a page
// wholly covered reaches hugeCredit at the publishes-th note, and appends to
// to the pages that reached it at this note and were never collapsed.
func notePagesNow(start, n, publishes uintptr, to []uintptr) []uintptr {
	whole := min(n, hugePage)
	weight := (hugeCredit + publishes*whole - 1) / (publishes * whole) // whole*weight*publishes >= hugeCredit
	end := start + n
	lockSeen()
	defer huge.mu.Unlock()
	for a := start &^ (hugePage - 1); a < end; a += hugePage {
		st := huge.seen[a]
		if st.queued > 0 {
			continue
		}
		st.bytes += pageCredit(a, start, end, weight)
		if st.bytes >= hugeCredit {
			st.bytes = hugeCredit
			st.queued = 1
			to = append(to, a)
		}
		huge.seen[a] = st
	}
	return to
}
