package gompi

import "github.com/gompi/gompi/internal/shm"

// Copies into the scratch halves with non-temporal stores (ntCopy,
// ntcopy_amd64.s). A rank that writes a block into a scratch half for its
// peer writes cache lines that the peer read out of the same half two steps
// before, so each store first takes its line back from the peer's cache; on
// this machine's two vCPUs that was 4.4-4.5 µs for 32 KiB against 0.3 µs
// with non-temporal stores, which write around the caches (the lines go to
// memory, the peer's copies are invalidated), while the peer's copy out of
// memory took no longer than out of the writer's cache (1.7-1.8 µs against
// 1.4-1.9); from 4 KiB on the non-temporal writer was faster
// (docs/PERFORMANCE.md, "Two ranks, 32 KiB: non-temporal stores into the
// scratch half").

// ntCopyMin is the smallest block ntCopy copies with non-temporal stores.
const ntCopyMin = 4 << 10

// scratchCopy is a writer's copy of a block into a scratch half on a
// communicator of n ranks: ntCopy wherever another rank reads the half.
// First measured on two ranks; at 4 and 8 ranks (oversubscribed on 2
// CPUs), 32 KiB, side by side with the plain copy: Bcast 5.2 -> 2.6 us,
// Scatter 10.1 -> 4.1, Gather 3.1 -> 2.0, Reduce 3.4 -> 2.6 at 4 ranks, and
// the same at 8 (docs/PERFORMANCE.md, "Non-temporal stores at 4 and 8
// ranks").
func scratchCopy(n int, dst, src []byte) {
	if n >= 2 {
		ntCopy(dst, src)
		return
	}
	copy(dst, src)
}

// ntCopy copies src into dst (min of the lengths, as copy) with
// non-temporal stores where the block is large enough (see ntCopyMin),
// else as copy. The assembly is shm.CopyNT's, which the engine's
// rendezvous fragments use too.
func ntCopy(dst, src []byte) {
	if min(len(dst), len(src)) < ntCopyMin {
		copy(dst, src)
		return
	}
	shm.CopyNT(dst, src)
}
