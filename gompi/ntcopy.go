package gompi

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
// communicator of n ranks: ntCopy on two ranks, where it was measured; copy
// elsewhere.
func scratchCopy(n int, dst, src []byte) {
	if n == 2 {
		ntCopy(dst, src)
		return
	}
	copy(dst, src)
}
