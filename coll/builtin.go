package coll

import "bytes"

// This file registers the built-in algorithms and the default selection
// table. The algorithms themselves live in one file per operation; here each
// gets its name, summary, cost and an adapter from Args to its parameters.

// run makes an Algorithm.Run from an algorithm body.
func run(body func(p *proc, a *Args)) func(Comm, *Args) error {
	return func(c Comm, a *Args) error {
		p := newProc(c)
		body(p, a)
		return p.err
	}
}

// contribution is the rank's input vector of a reduction: send, or recv in
// place.
func contribution(a *Args) []byte {
	if a.Send == nil {
		return a.Recv
	}
	return a.Send
}

// reduceSend is the contribution to Reduce: in place only at the root.
func reduceSend(p *proc, a *Args) []byte {
	if p.rank == a.Root {
		return contribution(a)
	}
	return a.Send
}

// work is a reduction's working vector, in recv: the contribution copied in.
func work(a *Args) []byte {
	copy(a.Recv, contribution(a))
	return a.Recv
}

// gatherBlock is the block size of Gather and Scatter on this rank.
func gatherBlock(p *proc, a *Args, full, own []byte) int {
	if p.rank == a.Root && own == nil {
		return len(full) / p.size
	}
	return len(own)
}

// allgatherLayout is the receive layout of Allgather(v), with the rank's own
// block copied in unless in place.
func allgatherLayout(p *proc, a *Args) layout {
	var l layout
	if a.RecvCounts != nil {
		l = varying(a.Recv, a.RecvCounts, a.RecvDispls)
	} else {
		l = uniform(a.Recv, p.size, len(a.Recv)/p.size)
	}
	if a.Send != nil {
		copy(l.block(p.rank), a.Send)
	}
	return l
}

// alltoallLayouts are the send and receive layouts of Alltoall(v/w); in place
// the send side is a copy of recv.
func alltoallLayouts(p *proc, a *Args) (send, recv layout) {
	sbuf, scounts, sdispls := a.Send, a.SendCounts, a.SendDispls
	if sbuf == nil {
		sbuf, scounts, sdispls = bytes.Clone(a.Recv), a.RecvCounts, a.RecvDispls
	}
	if a.RecvCounts == nil {
		m := len(a.Recv) / p.size
		return uniform(sbuf, p.size, m), uniform(a.Recv, p.size, m)
	}
	return varying(sbuf, scounts, sdispls), varying(a.Recv, a.RecvCounts, a.RecvDispls)
}

// reduceScatterCounts are the per-rank result sizes of ReduceScatter(Block).
func reduceScatterCounts(p *proc, a *Args) []int {
	if a.RecvCounts != nil {
		return a.RecvCounts
	}
	block := len(a.Recv)
	if a.Send == nil {
		block /= p.size
	}
	counts := make([]int, p.size)
	for i := range counts {
		counts[i] = block
	}
	return counts
}

// reduceScatterWith runs an algorithm that reduces the whole vector w in
// place and leaves the rank's block of it reduced, then moves that block to
// the start of recv.
func reduceScatterWith(alg func(p *proc, w []byte, counts []int, op Op)) func(p *proc, a *Args) {
	return func(p *proc, a *Args) {
		counts := reduceScatterCounts(p, a)
		w := a.Recv // in place: recv holds the whole vector
		if a.Send != nil {
			w = bytes.Clone(a.Send)
		}
		alg(p, w, counts, a.Op)
		l := chunks(w, counts)
		copy(a.Recv[:counts[p.rank]], l.block(p.rank))
	}
}

func segmentSize(a *Args) int {
	if a.SegmentSize > 0 {
		return a.SegmentSize
	}
	return DefaultSegmentSize
}

// Cost formula helpers: the numbers in the formulas, as float64.
func lg(p int) float64  { return float64(log2ceil(p)) }
func flg(p int) float64 { return float64(log2floor(p)) }
func pw(p int) float64  { return float64(int(1) << log2floor(p)) }
func notPow2(p int) float64 {
	if p&(p-1) != 0 {
		return 1
	}
	return 0
}

func init() {
	for _, a := range builtins {
		mustRegister(a)
	}
	for _, op := range ops {
		if err := SetTable(op, defaultTable[op]); err != nil {
			panic(err)
		}
	}
}

// The α–β costs shared by several operations.
var (
	costLinear = Cost{"(p−1)(α + mβ)", func(p, m, _ int) (float64, float64, float64) {
		return float64(p - 1), float64((p - 1) * m), 0
	}}
	costTreeBlocks = Cost{"⌈log₂p⌉α + (p−1)mβ", func(p, m, _ int) (float64, float64, float64) {
		return lg(p), float64((p - 1) * m), 0
	}}
	costRecDoublingGather = Cost{"⌊log₂p⌋α + (p−1)mβ, + 2α + (p+1)mβ if p ≠ 2^k", func(p, m, _ int) (float64, float64, float64) {
		return flg(p) + 2*notPow2(p), float64((p-1)*m) + notPow2(p)*float64((p+1)*m), 0
	}}
	costBruck       = Cost{"⌈log₂p⌉α + (p−1)mβ", costTreeBlocks.Terms}
	costGatherBcast = Cost{"2⌈log₂p⌉α + (p−1)mβ + ⌈log₂p⌉pmβ", func(p, m, _ int) (float64, float64, float64) {
		return 2 * lg(p), float64((p-1)*m) + lg(p)*float64(p*m), 0
	}}
	costReduceLinear = Cost{"(p−1)(α + mβ + mγ)", func(p, m, _ int) (float64, float64, float64) {
		return float64(p - 1), float64((p - 1) * m), float64((p - 1) * m)
	}}
	costRingRS = Cost{"(p−1)α + ((p−1)/p)(mβ + mγ)", func(p, m, _ int) (float64, float64, float64) {
		f := float64(p-1) / float64(p) * float64(m)
		return float64(p - 1), f, f
	}}
	costHalvingRS = Cost{"⌊log₂p⌋α + ((p'−1)/p')(mβ + mγ), p' = 2^⌊log₂p⌋; + 2α + (m + m/p)β + mγ if p ≠ p'", func(p, m, _ int) (float64, float64, float64) {
		f := (pw(p) - 1) / pw(p) * float64(m)
		x := notPow2(p)
		return flg(p) + 2*x, f + x*(float64(m)+float64(m)/float64(p)), f + x*float64(m)
	}}
	costReduceScatterv = Cost{"⌈log₂p⌉(α + mβ + mγ) + (p−1)α + ((p−1)/p)mβ", func(p, m, _ int) (float64, float64, float64) {
		return lg(p) + float64(p-1), lg(p)*float64(m) + float64(p-1)/float64(p)*float64(m), lg(p) * float64(m)
	}}
	costScanDoubling = Cost{"⌈log₂p⌉(α + mβ + 2mγ)", func(p, m, _ int) (float64, float64, float64) {
		return lg(p), lg(p) * float64(m), 2 * lg(p) * float64(m)
	}}
)

// Summaries shared by several operations.
const (
	sumRecDoublingGather = "recursive doubling: swap all you have with rank r XOR 2^k; extra ranks fold in"
	sumBruck             = "Bruck: send what you have to r−2^k, receive as much from r+2^k; any p, ⌈log₂p⌉ rounds"
	sumRing              = "ring: pass blocks to r+1, receive from r−1, p−1 steps; bandwidth-optimal"
	sumGatherBcast       = "binomial gather of all blocks to rank 0, then binomial broadcast of the whole vector"
	sumPairwise          = "pairwise exchange: in step s send to r+s, receive from r−s"
	sumAlltoallLinear    = "post all receives and sends at once, wait for all"
	sumHalving           = "recursive halving: swap half of what you work on with r XOR p/2^k and keep reducing the other half"
	sumRingRS            = "ring: partial results of the blocks travel around the ring, p−1 steps"
	sumReduceScatterv    = "binomial reduce of the whole vector to rank 0, then linear scatterv"
	consCommutative      = "commutative ops only"
)

func allgatherAlgorithms(op Operation) []Algorithm {
	return []Algorithm{
		{Op: op, Name: "ring", Summary: sumRing, Cost: costLinear, Constraints: "long messages",
			Run: run(func(p *proc, a *Args) { allgatherRing(p, allgatherLayout(p, a), 0, 0) })},
		{Op: op, Name: "recursive_doubling", Summary: sumRecDoublingGather, Cost: costRecDoublingGather, Constraints: "best for p a power of two",
			Run: run(func(p *proc, a *Args) { allgatherRecursiveDoubling(p, allgatherLayout(p, a), 0) })},
		{Op: op, Name: "bruck", Summary: sumBruck, Cost: costBruck, Constraints: "short messages",
			Run: run(func(p *proc, a *Args) { allgatherBruck(p, allgatherLayout(p, a), 0) })},
		{Op: op, Name: "gather_bcast", Summary: sumGatherBcast, Cost: costGatherBcast,
			Run: run(func(p *proc, a *Args) { allgatherGatherBcast(p, allgatherLayout(p, a), 0) })},
	}
}

func alltoallvAlgorithms(op Operation) []Algorithm {
	return []Algorithm{
		{Op: op, Name: "pairwise", Summary: sumPairwise, Cost: costLinear, Constraints: "long messages",
			Run: run(func(p *proc, a *Args) { sl, rl := alltoallLayouts(p, a); alltoallPairwise(p, sl, rl, 0) })},
		{Op: op, Name: "linear", Summary: sumAlltoallLinear, Cost: costLinear, Constraints: "medium messages; 2(p−1) requests in flight",
			Run: run(func(p *proc, a *Args) { sl, rl := alltoallLayouts(p, a); alltoallLinear(p, sl, rl, 0) })},
	}
}

func reduceScatterAlgorithms(op Operation) []Algorithm {
	return []Algorithm{
		{Op: op, Name: "recursive_halving", Summary: sumHalving, Cost: costHalvingRS, Constraints: consCommutative, Commutative: true,
			Run: run(reduceScatterWith(func(p *proc, w []byte, counts []int, op Op) { reduceScatterHalving(p, w, counts, op, 0) }))},
		{Op: op, Name: "ring", Summary: sumRingRS, Cost: costRingRS, Constraints: consCommutative + "; long vectors", Commutative: true,
			Run: run(reduceScatterWith(func(p *proc, w []byte, counts []int, op Op) { reduceScatterRing(p, chunks(w, counts), op, 0) }))},
		{Op: op, Name: "reduce_scatterv", Summary: sumReduceScatterv, Cost: costReduceScatterv, Constraints: "any op (keeps rank order)",
			Run: run(func(p *proc, a *Args) {
				counts := reduceScatterCounts(p, a)
				reduceScatterReduceScatterv(p, contribution(a), a.Recv[:counts[p.rank]], counts, a.Op, 0)
			})},
	}
}

func scanAlgorithms(op Operation, inclusive bool) []Algorithm {
	return []Algorithm{
		{Op: op, Name: "recursive_doubling", Summary: "recursive doubling: swap the partial reduction of your run of 2^k ranks with r XOR 2^k", Cost: costScanDoubling,
			Run: run(func(p *proc, a *Args) { scanRecursiveDoubling(p, contribution(a), a.Recv, a.Op, inclusive, 0) })},
		{Op: op, Name: "linear", Summary: "chain: receive the prefix from r−1, add your value, pass it to r+1", Cost: costReduceLinear,
			Run: run(func(p *proc, a *Args) { scanLinear(p, contribution(a), a.Recv, a.Op, inclusive, 0) })},
	}
}

var builtins = concat(
	[]Algorithm{
		{Op: OpBarrier, Name: "dissemination", Summary: "in round k signal r+2^k and wait for r−2^k", Cost: Cost{"⌈log₂p⌉α", func(p, _, _ int) (float64, float64, float64) { return lg(p), 0, 0 }},
			Run: run(func(p *proc, _ *Args) { barrierDissemination(p, 0) })},
		{Op: OpBarrier, Name: "recursive_doubling", Summary: "in round k exchange with r XOR 2^k; extra ranks fold in", Cost: Cost{"(⌊log₂p⌋ + 2·[p≠2^k])α", func(p, _, _ int) (float64, float64, float64) { return flg(p) + 2*notPow2(p), 0, 0 }},
			Run: run(func(p *proc, _ *Args) { barrierRecursiveDoubling(p, 0) })},
		{Op: OpBarrier, Name: "linear", Summary: "central counter: all report to rank 0, which releases them", Cost: Cost{"2(p−1)α", func(p, _, _ int) (float64, float64, float64) { return float64(2 * (p - 1)), 0, 0 }},
			Run: run(func(p *proc, _ *Args) { barrierLinear(p, 0) })},
		{Op: OpBarrier, Name: "binomial", Summary: "report up a binomial tree to rank 0, release down it", Cost: Cost{"2⌈log₂p⌉α", func(p, _, _ int) (float64, float64, float64) { return 2 * lg(p), 0, 0 }},
			Run: run(func(p *proc, _ *Args) { barrierBinomial(p, 0) })},

		{Op: OpBcast, Name: "binomial", Summary: "binomial tree: the set of ranks holding the message doubles every round", Cost: Cost{"⌈log₂p⌉(α + mβ)", func(p, m, _ int) (float64, float64, float64) { return lg(p), lg(p) * float64(m), 0 }},
			Constraints: "short messages", Run: run(func(p *proc, a *Args) { bcastBinomial(p, a.Recv, a.Root, 0) })},
		{Op: OpBcast, Name: "linear", Summary: "the root sends to every rank in turn", Cost: costLinear,
			Run: run(func(p *proc, a *Args) { bcastLinear(p, a.Recv, a.Root, 0) })},
		{Op: OpBcast, Name: "chain", Summary: "pipelined chain: segments of s bytes flow root → root+1 → …", Cost: Cost{"(p−2+k)(α + min(s, m)β), k = ⌊m/s⌋+1 segments of s bytes", func(p, m, s int) (float64, float64, float64) {
			if p == 1 {
				return 0, 0, 0
			}
			if s <= 0 {
				s = DefaultSegmentSize
			}
			rounds := float64(p - 2 + m/s + 1)
			return rounds, rounds * float64(min(s, m)), 0
		}}, Constraints: "long messages; segment size s (WithSegmentSize, default 8 KiB)",
			Run: run(func(p *proc, a *Args) { bcastChain(p, a.Recv, a.Root, segmentSize(a), 0) })},
		{Op: OpBcast, Name: "scatter_allgather", Summary: "van de Geijn: binomial scatter of p chunks, then ring allgather", Cost: Cost{"(⌈log₂p⌉ + p − 1)α + 2((p−1)/p)mβ", func(p, m, _ int) (float64, float64, float64) {
			return lg(p) + float64(p-1), 2 * float64(p-1) / float64(p) * float64(m), 0
		}}, Constraints: "long messages", Run: run(func(p *proc, a *Args) { bcastScatterAllgather(p, a.Recv, a.Root, 0) })},

		{Op: OpReduce, Name: "binomial", Summary: "binomial tree: combine the children's results with your own, pass up", Cost: Cost{"⌈log₂p⌉(α + mβ + mγ), + α + mβ if the op is not commutative and root ≠ 0", func(p, m, _ int) (float64, float64, float64) {
			return lg(p), lg(p) * float64(m), lg(p) * float64(m)
		}}, Run: run(func(p *proc, a *Args) { reduceBinomial(p, reduceSend(p, a), a.Recv, a.Op, a.Root, 0) })},
		{Op: OpReduce, Name: "linear", Summary: "every rank sends to the root, which reduces in rank order", Cost: costReduceLinear,
			Run: run(func(p *proc, a *Args) { reduceLinear(p, reduceSend(p, a), a.Recv, a.Op, a.Root, 0) })},
		{Op: OpReduce, Name: "rabenseifner", Summary: "Rabenseifner: reduce-scatter by recursive halving, then binomial gather of the pieces", Cost: Cost{"2⌊log₂p⌋α + 2((p'−1)/p')mβ + ((p'−1)/p')mγ, p' = 2^⌊log₂p⌋; + α + mβ + mγ if p ≠ p'; + α + mβ if root is not the gathering rank", func(p, m, _ int) (float64, float64, float64) {
			f := (pw(p) - 1) / pw(p) * float64(m)
			x := notPow2(p)
			return 2*flg(p) + x, 2*f + x*float64(m), f + x*float64(m)
		}}, Constraints: "long vectors", Run: run(func(p *proc, a *Args) { reduceRabenseifner(p, reduceSend(p, a), a.Recv, a.Op, a.Root, 0) })},

		{Op: OpAllreduce, Name: "recursive_doubling", Summary: "swap the whole vector with r XOR 2^k and combine; extra ranks fold in", Cost: Cost{"⌊log₂p⌋(α + mβ + mγ), + 2α + 2mβ + mγ if p ≠ 2^k", func(p, m, _ int) (float64, float64, float64) {
			x, fm := notPow2(p), float64(m)
			return flg(p) + 2*x, flg(p)*fm + 2*x*fm, flg(p)*fm + x*fm
		}}, Constraints: "short vectors", Run: run(func(p *proc, a *Args) { allreduceRecursiveDoubling(p, work(a), a.Op, 0) })},
		{Op: OpAllreduce, Name: "ring", Summary: "ring reduce-scatter, then ring allgather", Cost: Cost{"2(p−1)α + 2((p−1)/p)mβ + ((p−1)/p)mγ", func(p, m, _ int) (float64, float64, float64) {
			f := float64(p-1) / float64(p) * float64(m)
			return float64(2 * (p - 1)), 2 * f, f
		}}, Constraints: consCommutative + "; long vectors", Commutative: true,
			Run: run(func(p *proc, a *Args) { allreduceRing(p, work(a), a.Op, 0) })},
		{Op: OpAllreduce, Name: "rabenseifner", Summary: "Rabenseifner: reduce-scatter by recursive halving, allgather by recursive doubling", Cost: Cost{"2⌊log₂p⌋α + 2((p'−1)/p')mβ + ((p'−1)/p')mγ, p' = 2^⌊log₂p⌋; + 2α + 2mβ + mγ if p ≠ p'", func(p, m, _ int) (float64, float64, float64) {
			f, x, fm := (pw(p)-1)/pw(p)*float64(m), notPow2(p), float64(m)
			return 2*flg(p) + 2*x, 2*f + 2*x*fm, f + x*fm
		}}, Constraints: "medium and long vectors", Run: run(func(p *proc, a *Args) { allreduceRabenseifner(p, work(a), a.Op, 0) })},
		{Op: OpAllreduce, Name: "reduce_bcast", Summary: "binomial reduce to rank 0, then binomial broadcast", Cost: Cost{"2⌈log₂p⌉(α + mβ) + ⌈log₂p⌉mγ", func(p, m, _ int) (float64, float64, float64) {
			return 2 * lg(p), 2 * lg(p) * float64(m), lg(p) * float64(m)
		}}, Run: run(func(p *proc, a *Args) { allreduceReduceBcast(p, work(a), a.Op, 0) })},

		{Op: OpGather, Name: "binomial", Summary: "binomial tree: a rank sends its whole subtree's blocks to its parent", Cost: costTreeBlocks, Constraints: "short blocks",
			Run: run(func(p *proc, a *Args) {
				gatherBinomial(p, a.Send, a.Recv, gatherBlock(p, a, a.Recv, a.Send), a.Root, 0)
			})},
		{Op: OpGather, Name: "linear", Summary: "every rank sends its block straight to the root", Cost: costLinear,
			Run: run(func(p *proc, a *Args) {
				gathervLinear(p, a.Send, uniform(a.Recv, p.size, gatherBlock(p, a, a.Recv, a.Send)), a.Root, 0)
			})},
		{Op: OpGatherv, Name: "linear", Summary: "every rank sends its block straight to the root", Cost: costLinear,
			Run: run(func(p *proc, a *Args) {
				gathervLinear(p, a.Send, varying(a.Recv, a.RecvCounts, a.RecvDispls), a.Root, 0)
			})},
		{Op: OpScatter, Name: "binomial", Summary: "binomial tree: a rank receives its whole subtree's blocks from its parent", Cost: costTreeBlocks, Constraints: "short blocks",
			Run: run(func(p *proc, a *Args) {
				scatterBinomial(p, a.Send, a.Recv, gatherBlock(p, a, a.Send, a.Recv), a.Root, 0)
			})},
		{Op: OpScatter, Name: "linear", Summary: "the root sends every rank its block in turn", Cost: costLinear,
			Run: run(func(p *proc, a *Args) {
				scattervLinear(p, uniform(a.Send, p.size, gatherBlock(p, a, a.Send, a.Recv)), a.Recv, a.Root, 0)
			})},
		{Op: OpScatterv, Name: "linear", Summary: "the root sends every rank its block in turn", Cost: costLinear,
			Run: run(func(p *proc, a *Args) {
				scattervLinear(p, varying(a.Send, a.SendCounts, a.SendDispls), a.Recv, a.Root, 0)
			})},
	},
	allgatherAlgorithms(OpAllgather),
	allgatherAlgorithms(OpAllgatherv),
	alltoallvAlgorithms(OpAlltoall),
	[]Algorithm{{Op: OpAlltoall, Name: "bruck", Summary: "Bruck: ⌈log₂p⌉ rounds, in round k the blocks whose index has bit k go to r+2^k", Cost: Cost{"⌈log₂p⌉α + ⌈log₂p⌉(p/2)mβ", func(p, m, _ int) (float64, float64, float64) {
		return lg(p), lg(p) * float64(p) / 2 * float64(m), 0
	}}, Constraints: "short blocks; p·m bytes of scratch", Run: run(func(p *proc, a *Args) {
		sl, _ := alltoallLayouts(p, a)
		alltoallBruck(p, sl.buf, a.Recv, len(a.Recv)/p.size, 0)
	})}},
	alltoallvAlgorithms(OpAlltoallv),
	alltoallvAlgorithms(OpAlltoallw),
	reduceScatterAlgorithms(OpReduceScatter),
	reduceScatterAlgorithms(OpReduceScatterBlock),
	scanAlgorithms(OpScan, true),
	scanAlgorithms(OpExscan, false),
)

func concat(lists ...[]Algorithm) []Algorithm {
	var all []Algorithm
	for _, l := range lists {
		all = append(all, l...)
	}
	return all
}

const (
	kib = 1 << 10
	mib = 1 << 20
)

// defaultTable is the provisional selection table, after the textbook
// (Thakur, Rabenseifner & Gropp 2005; MPICH's defaults). Sizes are those of
// Operation.SizeMeaning. It is data on purpose: retune it from measurements
// on the real runtime, here or with SetTable.
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
		{Use: []string{"ring", "rabenseifner"}},
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
		{MaxBytes: 32 * kib, Use: []string{"linear"}},
		{Use: []string{"pairwise"}},
	},
	OpAlltoallv: {{Use: []string{"linear"}}},
	OpAlltoallw: {{Use: []string{"linear"}}},
	OpReduceScatter: {
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
