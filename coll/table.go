package coll

const (
	kib = 1 << 10
	mib = 1 << 20
)

// defaultTable is the provisional selection table, after the textbook
// (Thakur, Rabenseifner & Gropp 2005) and MPICH's defaults; sizes are as
// Operation.SizeMeaning says. It is data on purpose: retune it from
// measurements on the real runtime, here or at run time with SetTable.
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
	OpAllgatherv: {
		{MaxBytes: 1 * kib, Use: []string{"bruck"}},
		{Use: []string{"ring"}},
	},
	OpAlltoall: {
		{MaxBytes: 256, Use: []string{"bruck"}},
		{MaxBytes: 256 * kib, Use: []string{"linear"}}, // measured: below pairwise up to 256 KiB on 2..8 ranks
		{Use: []string{"pairwise"}},
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
