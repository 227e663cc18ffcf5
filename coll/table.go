package coll

const (
	kib = 1 << 10
	mib = 1 << 20
)

// defaultTable is the selection table, after the textbook (Thakur,
// Rabenseifner & Gropp 2005) and MPICH's defaults, retuned where measured;
// sizes are as Operation.SizeMeaning says. It is data on purpose: retune it
// from measurements on the real runtime, here or at run time with SetTable.
// The rules marked "tuned" come from timing every algorithm against the
// others at 2, 4 and 8 ranks (go run ./benches/ref/sidebyside --tune --ops
// OP); the commands and tables are in docs/PERFORMANCE.md, "Tuning the
// selection table". The runtime puts its shm algorithms in front of these
// rules for small calls (gompi/shmcoll.go, shmPreferred).
var defaultTable = map[Operation][]Rule{
	OpBarrier: {{Use: []string{"dissemination"}}},
	OpBcast: {
		{MaxBytes: 12 * kib, Use: []string{"binomial"}},
		{MaxRanks: 7, Use: []string{"binomial"}},
		{Use: []string{"scatter_allgather"}},
	},
	OpReduce: {
		{MaxBytes: 2 * kib, Use: []string{"binomial"}},
		{Use: []string{"rabenseifner"}},
	},
	OpAllreduce: {
		{MaxBytes: 2 * kib, Use: []string{"recursive_doubling"}},
		{MaxBytes: 4 * mib, Use: []string{"rabenseifner"}},
		{Use: []string{"ring", "rabenseifner"}}, // ring needs a commutative op
	},
	OpGather:   {{MaxBytes: 64 * kib, Use: []string{"binomial"}}, {Use: []string{"linear"}}},
	OpGatherv:  {{Use: []string{"linear"}}},
	OpScatter:  {{MaxBytes: 64 * kib, Use: []string{"binomial"}}, {Use: []string{"linear"}}},
	OpScatterv: {{Use: []string{"linear"}}},
	OpAllgather: {
		{MaxBytes: 1 * kib, Use: []string{"bruck"}},
		{MaxBytes: 64 * kib, Use: []string{"recursive_doubling"}},
		{Use: []string{"ring"}},
	},
	OpAllgatherv: { // tuned: recursive doubling 1.4-2.2x faster than bruck and ring at 4 and 8 ranks, 512 B-32 KiB
		{MaxBytes: 64 * kib, Use: []string{"recursive_doubling"}},
		{Use: []string{"ring"}},
	},
	OpAlltoall: {
		{MaxBytes: 256, Use: []string{"bruck"}},
		{MaxRanks: 2, MaxBytes: 256 * kib, Use: []string{"pairwise"}}, // tuned: 1.1-1.7x below linear at 4-256 KiB
		{MaxBytes: 256 * kib, Use: []string{"linear"}},                // measured: below pairwise up to 256 KiB on 4..8 ranks
		{MaxRanks: 8, Use: []string{"linear"}},                        // tuned: 1 MiB at 2, 4, 8 ranks: linear 1.0-1.5x below pairwise
		{Use: []string{"pairwise"}},                                   // many ranks: one message in flight per peer pair
	},
	OpAlltoallv: {{Use: []string{"linear"}}},
	OpAlltoallw: {{Use: []string{"linear"}}},
	OpReduceScatter: { // recursive halving and ring need a commutative op
		{MaxBytes: 512 * kib, Use: []string{"recursive_halving", "reduce_scatterv"}},
		{Use: []string{"ring", "reduce_scatterv"}},
	},
	OpReduceScatterBlock: {
		{MaxBytes: 512 * kib, Use: []string{"recursive_halving", "reduce_scatterv"}},
		{Use: []string{"ring", "reduce_scatterv"}},
	},
	OpScan:   {{Use: []string{"recursive_doubling"}}},
	OpExscan: {{Use: []string{"recursive_doubling"}}},
}
