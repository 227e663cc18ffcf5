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
// (or into) with cross-memory attach. It counts, per 2 MiB page that the
// buffer covers at least half of (hugeRange), how often that page has been
// a source; at the hugeSeen-th time a background goroutine asks the kernel
// to back the page by a huge page (madvise MADV_COLLAPSE, Linux 6.1+).
// The collapse copies the page once (milliseconds); a buffer sent a few times is never touched, and the
// caller never waits for it. The contents do not change: collapsing is
// what khugepaged does in the background anyway. The first self-copy
// microbenchmark (4 MiB, minimum per call): both sides 4 KiB pages 226-320
// µs; source huge 94-116; destination huge only 219-329; both huge 87-103:
// the source's pages are what count.
//
// GOMPI_SHM_THP=0 turns it off; it is off where THP is "never" or pages are
// not 4 KiB.

const hugePage = 2 << 20

// hugeSeen is how many times a page must be a source before it is
// collapsed. A collapse costs 0.8 ms per 2 MiB page at best on the test
// machine (p50 6 ms at load average 21: it allocates, maybe compacts, and
// copies), and saves some 50 µs per 2 MiB on every later copy: it pays
// for itself after 15 to 20 sends. 16, so that a buffer sent a few times
// costs nothing and one sent in a loop is collapsed early in the loop. The
// page is queued again at its next send (hugeSeen+1), in case the first
// collapse failed because the peer had the page pinned at that moment; a
// page already huge returns at once.
const hugeSeen = 16

// hugeMaxPages bounds the table of pages seen; it is cleared when full.
const hugeMaxPages = 1 << 14

var huge struct {
	once   sync.Once
	on     bool
	mu     sync.Mutex
	seen   map[uintptr]uint8
	work   chan uintptr
	advise func(addr, n uintptr) (again bool) // the madvise call; tests replace it
}

func hugeInit() {
	huge.once.Do(func() {
		huge.on = os.Getenv("GOMPI_SHM_THP") != "0" && os.Getpagesize() == 4096 && thpAvailable()
		huge.seen = make(map[uintptr]uint8)
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
// cross-memory attach; see above. It is cheap (a few map operations for
// a buffer of several MiB) and never blocks.
func NoteSource(buf []byte) {
	if len(buf) < hugePage/2 {
		return
	}
	hugeInit()
	if !huge.on {
		return
	}
	lo, hi := hugeRange(addrOf(buf), uintptr(len(buf)))
	if hi <= lo {
		return
	}
	huge.mu.Lock()
	defer huge.mu.Unlock()
	if len(huge.seen) > hugeMaxPages {
		clear(huge.seen)
	}
	for a := lo; a < hi; a += hugePage {
		k := huge.seen[a]
		if k > hugeSeen {
			continue
		}
		huge.seen[a] = k + 1
		if k+1 < hugeSeen {
			continue
		}
		if huge.work == nil {
			huge.work = make(chan uintptr, 64)
			go hugeWorker(huge.work, huge.advise)
		}
		select {
		case huge.work <- a:
		default: // the worker is behind: this page waits for its next send
			huge.seen[a] = k
		}
	}
}

// hugeWorker collapses the pages queued by NoteSource, one at a time. The
// addresses are of memory that stays mapped (Go never unmaps its heap; a
// buffer outside it that is gone makes madvise fail, which is ignored). A
// page whose collapse may pass later (the peer had it pinned: a buffer that
// is copied from most of the time, the root's of a Bcast in a loop) starts
// its count again, and is tried once more after another hugeSeen sends.
func hugeWorker(work <-chan uintptr, advise func(addr, n uintptr) bool) {
	for a := range work {
		if advise(a, hugePage) {
			huge.mu.Lock()
			if huge.seen[a] > hugeSeen {
				huge.seen[a] = 0
			}
			huge.mu.Unlock()
		}
	}
}

// hugeRange is the run of 2 MiB pages [lo, hi) that the n bytes at start
// cover at least half of: the pages wholly inside, and an edge page where
// the buffer holds 1 MiB or more of it. An unaligned 4 MiB buffer so gets
// two of its three pages (3 MiB or more of its 4) instead of one. The rest
// of an edge page is other memory of the same process (in Go, other heap
// objects); collapsing it changes no byte, and costs at most the resident
// memory of the part that was not resident.
func hugeRange(start, n uintptr) (lo, hi uintptr) {
	end := start + n
	lo = start &^ (hugePage - 1)
	if start-lo > hugePage/2 {
		lo += hugePage
	}
	hi = end &^ (hugePage - 1)
	if end-hi >= hugePage/2 {
		hi += hugePage
	}
	return lo, hi
}

// addrOf is the address of buf's first byte.
func addrOf(buf []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(buf))) }
