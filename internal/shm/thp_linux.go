package shm

import (
	"os"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Huge pages under the single copy's source (issue 18, branch big2).
//
// process_vm_readv and process_vm_writev pin every page of the other
// process's buffer before they copy, one struct page per 4 KiB. Over a
// buffer backed by transparent huge pages the pinning is one folio per
// 2 MiB, and the copy of 4 MiB falls from 230-320 µs to 90-110 µs on the
// test machine (docs/PERFORMANCE.md, "Huge pages under the single copy").
// Where THP is "madvise" (the common default), neither Go's heap nor
// glibc's malloc asks for them, so a buffer sent again and again is pinned
// page by page every time.
//
// NoteSource is called with every buffer a peer is about to copy out of
// (or into) with cross-memory attach. It credits each 2 MiB page the
// buffer overlaps with the bytes of the buffer that lie in it; when a
// page has been the source of hugeCredit bytes, a background goroutine
// asks the kernel to back it by a huge page (madvise MADV_COLLAPSE, Linux
// 6.1+). The collapse copies the page once (milliseconds); a buffer sent
// a few times is never touched, and the caller never waits for it. The
// contents do not change: collapsing is what khugepaged does in the
// background anyway. The first self-copy microbenchmark (4 MiB, minimum
// per call): both sides 4 KiB pages 226-320 µs; source huge 94-116;
// destination huge only 219-329; both huge 87-103: the source's pages are
// what count. From 32 KiB on the same holds (BenchmarkReadRemotePages,
// branch mid2): a huge source saves 0.7 µs of 3.5 at 32 KiB, 1.3 of 4.5
// at 64 KiB, 4.7 of 10.4 at 256 KiB, 30 of 53 at 1 MiB.
//
// Crediting bytes rather than sends (branch mid2; big2 counted sends of
// buffers of 1 MiB or more, per page the buffer covered at least half of)
// ranks the pages by what a collapse saves, which is per 4 KiB page
// pinned: a page wholly inside a large buffer is collapsed after hugeSeen
// sends as before, a 1 MiB buffer straddling two pages gets both (after
// 32-64 sends, the fuller first) where it got none, a 64 KiB buffer's
// page after 512 sends, and a page holding a sliver of a buffer only
// after thousands.
//
// GOMPI_SHM_THP=0 turns it off; it is off where THP is "never" or pages are
// not 4 KiB.

const hugePage = 2 << 20

// hugeSeen is how many whole-page copies a page must have been the source
// of before it is collapsed (hugeCredit bytes). A collapse costs 0.8 ms per 2 MiB page at best on the test
// machine (p50 6 ms at load average 21: it allocates, maybe compacts, and
// copies), and saves some 50 µs per 2 MiB on every later copy: it pays
// for itself after 15 to 20 sends. 16, so that a buffer sent a few times
// costs nothing and one sent in a loop is collapsed early in the loop. The
// page is queued again at its next send, in case the first collapse
// failed because the peer had the page pinned at that moment; a page
// already huge returns at once.
const hugeSeen = 16

// hugeCredit is how many bytes a 2 MiB page must have been the source of
// before it is collapsed: hugeSeen copies of the whole page.
const hugeCredit = hugeSeen * hugePage

// hugeMinSource is the smallest buffer that counts: below it a copy pins
// a few pages, and the system call's fixed cost is all there is to save.
const hugeMinSource = 16 << 10

// hugeMaxPages bounds the table of pages seen; it is cleared when full.
const hugeMaxPages = 1 << 14

// hugePageState is what NoteSource knows of one 2 MiB page.
type hugePageState struct {
	bytes  uint32 // bytes copied out of the page so far, up to hugeCredit
	queued uint8  // times queued for a collapse since the credit was reached
}

var huge struct {
	once   sync.Once
	on     bool
	mu     sync.Mutex
	seen   map[uintptr]hugePageState
	work   chan uintptr
	advise func(addr, n uintptr) (again bool) // the madvise call; tests replace it
}

func hugeInit() {
	huge.once.Do(func() {
		huge.on = os.Getenv("GOMPI_SHM_THP") != "0" && os.Getpagesize() == 4096 && thpAvailable()
		huge.seen = make(map[uintptr]hugePageState)
		if huge.advise == nil {
			huge.advise = madviseHuge
		}
	})
}

// thpAvailable reports whether transparent huge pages can be asked for.
func thpAvailable() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && !strings.Contains(string(b), "[never]")
}

// madviseHuge asks for a huge page under [addr, addr+n) with
// MADV_COLLAPSE alone, which works in the "madvise" mode without marking
// the range: MADV_HUGEPAGE would mark it, and so split the heap's mapping
// into three at every page (a process has at most vm.max_map_count
// mappings). With MADV_COLLAPSE alone /proc/self/maps keeps its length. Errors (a kernel
// before 6.1, no free huge page, memory that is not anonymous) leave the
// page as it was, which is only slower. again reports a failure that may
// pass: EAGAIN (a page of it was pinned, by the peer's copy most likely, or
// locked) or ENOMEM (no free huge page just then).
func madviseHuge(addr, n uintptr) (again bool) {
	_, _, e := unix.Syscall(unix.SYS_MADVISE, addr, n, unix.MADV_COLLAPSE)
	return e == unix.EAGAIN || e == unix.ENOMEM
}

// NoteSource notes that a peer is about to copy buf's pages with
// cross-memory attach; see above. It is cheap (a few map operations per
// 2 MiB the buffer spans) and never blocks.
func NoteSource(buf []byte) { NoteSourceWeighted(buf, 1) }

// NoteSourceWeighted is NoteSource crediting the pages weight times the
// bytes of buf: a caller that knows the buffer is copied out of again and
// again, by several peers at once (a collective's published buffer of
// 1 MiB or more), has its pages collapsed after hugeSeen/weight whole-page
// copies instead of hugeSeen. With the collapses after 16 copies,
// Alltoall on 4 and 8 ranks spent the first 50-100 calls of a new 256 KiB
// or 1 MiB buffer on 4 KiB pages and in the stalls of the collapses
// (docs/PERFORMANCE.md, "Collapses of collective buffers sooner").
func NoteSourceWeighted(buf []byte, weight int) {
	if !hugeWanted(buf) {
		return
	}
	noteRangeWeighted(addrOf(buf), uintptr(len(buf)), uintptr(max(weight, 1)))
}

// hugeWanted reports whether buf is large enough for its pages to be noted
// and collapses are on (GOMPI_SHM_THP, a kernel that has them).
func hugeWanted(buf []byte) bool {
	if len(buf) < hugeMinSource {
		return false
	}
	hugeInit()
	return huge.on
}

// noteRange credits the pages under the n bytes at start and queues those
// whose credit is reached: at the note that reaches it and once more at
// the next (in case the first collapse failed because the peer had the
// page pinned), then never again.
func noteRange(start, n uintptr) { noteRangeWeighted(start, n, 1) }

// lockSeen takes huge.mu, first forgetting every page seen once the table
// has outgrown hugeMaxPages.
func lockSeen() {
	huge.mu.Lock()
	if len(huge.seen) > hugeMaxPages {
		clear(huge.seen)
	}
}

// pageCredit is what a note of the bytes [start, end), each counted weight
// times, adds to the credit of the huge page at a: at most hugeCredit.
func pageCredit(a, start, end, weight uintptr) uint32 {
	return uint32(min(uintptr(hugeCredit), weight*(min(end, a+hugePage)-max(start, a))))
}

// noteRangeWeighted is noteRange crediting each page weight times its
// bytes.
func noteRangeWeighted(start, n, weight uintptr) {
	end := start + n
	lockSeen()
	defer huge.mu.Unlock()
	for a := start &^ (hugePage - 1); a < end; a += hugePage {
		st := huge.seen[a]
		if st.queued >= 2 {
			continue
		}
		if st.bytes < hugeCredit {
			st.bytes += pageCredit(a, start, end, weight)
			if st.bytes < hugeCredit {
				huge.seen[a] = st
				continue
			}
		}
		if huge.work == nil {
			huge.work = make(chan uintptr, 64)
			go hugeWorker(huge.work, huge.advise)
		}
		select {
		case huge.work <- a:
			st.queued++
		default: // the worker is behind: this page waits for its next note
		}
		huge.seen[a] = st
	}
}

// hugeWorker collapses the pages queued by noteRange, one at a time. The
// addresses are of memory that stays mapped (Go never unmaps its heap; a
// buffer outside it that is gone makes madvise fail, which is ignored). A
// page whose collapse may pass later (the peer had it pinned: a buffer that
// is copied from most of the time, the root's of a Bcast in a loop) starts
// its credit again, and is tried once more after another hugeCredit bytes.
func hugeWorker(work <-chan uintptr, advise func(addr, n uintptr) bool) {
	for a := range work {
		if advise(a, hugePage) {
			huge.mu.Lock()
			if huge.seen[a].queued > 0 {
				huge.seen[a] = hugePageState{}
			}
			huge.mu.Unlock()
		}
	}
}

// addrOf is the address of buf's first byte.
func addrOf(buf []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(buf))) }
