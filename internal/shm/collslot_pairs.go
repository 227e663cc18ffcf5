package shm

// collScratchPairs is, on 3 to 8 ranks, a scratch half that holds one
// 32 KiB block from every rank to every other (n(n−1) blocks and a 4 KiB
// head per rank), 0 elsewhere. Only the pairwise forms use the part beyond
// CollScratchSize (the capacity of CollScratch's slices): the 32 KiB
// blocks of Alltoall(v, w) go through the half, two copies, instead of one
// process_vm_readv or writev each (docs/PERFORMANCE.md, "Alltoall(v, w) on
// 3–4 ranks through the scratch half, Allgatherv pairwise"). Every other
// algorithm sees the half it saw before, so its choices do not change.
// 404 KiB at 4 ranks against 132 KiB, 1828 KiB at 8 ranks against 260;
// pages are touched only when used. At 8 ranks, 32 KiB, Alltoall(v, w)
// went from 240-343 to 97-134 µs per call beside main's build (Open MPI
// 217-298; sidebyside --sides base,go,c --loop --ops
// alltoall,alltoallv,alltoallw --n 5,6,8, 18:21 UTC).
func collScratchPairs(n int) int64 {
	if n < 3 || n > 8 {
		return 0
	}
	return int64(n)*(int64(n-1)<<15+4<<10) + 4<<10
}
