package gompi

import "github.com/gompi/gompi/coll"

// Exscan on two ranks between 16 and 64 KiB: "cma" (cmaScan2: rank 1 reads
// rank 0's vector into its receive buffer, one process_vm_readv) instead
// of the chain, whose rank 1 took 2.4 µs more per call at 32 KiB. Measured
// per call (benches osu --dist, p50 of 2000 calls per rank, median of 6
// alternated runs, branch two7): 32 KiB rank 1 chain 7.13 µs, cma 4.67, shm
// 6.79, Open MPI 4.35; rank 0 5.33, 5.06, 4.95, 4.74. At 16 KiB the chain
// (through the scratch half) stays faster: 3.40 against cma 4.34 (Open MPI
// 4.11), so the bounds leave it there; from 64 KiB the chain's two-rank
// split (both ranks copy half) runs as before.
const (
	exscan2CMAMin = 16<<10 + 1
	exscan2CMAMax = 64<<10 - 1
)

// preferCMAExscan2 puts "cma" first for those calls (where single copy is
// off, the next rule runs: "shm").
func preferCMAExscan2() error {
	return prefer(coll.OpExscan, tierFirst, coll.Rule{MinRanks: 2, MaxRanks: 2, MinBytes: exscan2CMAMin, MaxBytes: exscan2CMAMax, Use: []string{"cma"}})
}
