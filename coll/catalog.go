package coll

// The catalog of built-in algorithms: for each, its name, its idea in a line,
// its α–β cost (p ranks, m bytes as Operation.SizeMeaning says, s the segment
// size; α per message on the critical path, β per byte sent, γ per byte
// reduced), and a Run that adapts Args to the algorithm's parameters. The
// algorithms themselves, with the full explanation, live in one file per
// operation. Registration order matters only as the last resort of selection:
// the first algorithm that can run a call.

func init() {
	Batch(func() error { // one snapshot rebuild per operation
		for _, a := range builtins {
			mustRegister(a)
		}
		for _, op := range ops {
			if err := SetTable(op, defaultTable[op]); err != nil {
				panic(err)
			}
		}
		return nil
	})
}

// Numbers in the cost formulas, as float64.
func lg(p int) float64  { return float64(log2ceil(p)) }            // ⌈log₂p⌉
func flg(p int) float64 { return float64(log2floor(p)) }           // ⌊log₂p⌋
func pw(p int) float64  { return float64(int(1) << log2floor(p)) } // p' = 2^⌊log₂p⌋
func notPow2(p int) float64 { // [p ≠ p']
	if p&(p-1) != 0 {
		return 1
	}
	return 0
}

// Costs shared by several algorithms.
var (
	costLinear = Cost{"(p−1)(α + mβ)", func(p, m, _ int) (float64, float64, float64) {
		return float64(p - 1), float64((p - 1) * m), 0
	}}
	costLog = Cost{"⌈log₂p⌉α + (p−1)mβ", func(p, m, _ int) (float64, float64, float64) {
		return lg(p), float64((p - 1) * m), 0
	}}
	costReduceLinear = Cost{"(p−1)(α + mβ + mγ)", func(p, m, _ int) (float64, float64, float64) {
		return float64(p - 1), float64((p - 1) * m), float64((p - 1) * m)
	}}
)

const consCommutative = "commutative ops only"

// allgatherAlgorithms serve Allgather and Allgatherv alike.
func allgatherAlgorithms(op Operation) []Algorithm {
	return []Algorithm{
		{
			Op: op, Name: "ring",
			Summary:     "ring: pass blocks to r+1, receive from r−1, p−1 steps; bandwidth-optimal",
			Cost:        costLinear,
			Constraints: "long messages",
			Run:         run(func(p *proc, a *Args) { allgatherRing(p, allgatherLayout(p, a), 0, 0) }),
		},
		{
			Op: op, Name: "recursive_doubling",
			Summary: "recursive doubling: swap all you have with rank r XOR 2^k; extra ranks fold in",
			Cost: Cost{"⌊log₂p⌋α + (p−1)mβ, + 2α + (p+1)mβ if p ≠ 2^k", func(p, m, _ int) (float64, float64, float64) {
				return flg(p) + 2*notPow2(p), float64((p-1)*m) + notPow2(p)*float64((p+1)*m), 0
			}},
			Constraints: "best for p a power of two",
			Run:         run(func(p *proc, a *Args) { allgatherRecursiveDoubling(p, allgatherLayout(p, a), 0) }),
		},
		{
			Op: op, Name: "bruck",
			Summary:     "Bruck: send what you have to r−2^k, receive as much from r+2^k; any p, ⌈log₂p⌉ rounds",
			Cost:        costLog,
			Constraints: "short messages",
			Run:         run(func(p *proc, a *Args) { allgatherBruck(p, allgatherLayout(p, a), 0) }),
		},
		{
			Op: op, Name: "gather_bcast",
			Summary: "binomial gather of all blocks to rank 0, then binomial broadcast of the whole vector",
			Cost: Cost{"2⌈log₂p⌉α + (p−1)mβ + ⌈log₂p⌉pmβ", func(p, m, _ int) (float64, float64, float64) {
				return 2 * lg(p), float64((p-1)*m) + lg(p)*float64(p*m), 0
			}},
			Run: run(func(p *proc, a *Args) { allgatherGatherBcast(p, allgatherLayout(p, a), 0) }),
		},
	}
}

// alltoallvAlgorithms serve Alltoall, Alltoallv and Alltoallw alike.
func alltoallvAlgorithms(op Operation) []Algorithm {
	return []Algorithm{
		{
			Op: op, Name: "pairwise",
			Summary:     "pairwise exchange: in step s send to r+s, receive from r−s",
			Cost:        costLinear,
			Constraints: "long messages",
			Run: run(func(p *proc, a *Args) {
				sl, rl, tmp := alltoallLayouts(p, a)
				alltoallPairwise(p, sl, rl, 0)
				p.putScratch(tmp)
			}),
		},
		{
			Op: op, Name: "linear",
			Summary:     "post all receives and sends at once, wait for all",
			Cost:        costLinear,
			Constraints: "medium messages; 2(p−1) requests in flight",
			Run: run(func(p *proc, a *Args) {
				sl, rl, tmp := alltoallLayouts(p, a)
				alltoallLinear(p, sl, rl, 0)
				p.putScratch(tmp)
			}),
		},
	}
}

// reduceScatterAlgorithms serve ReduceScatter and ReduceScatterBlock alike.
func reduceScatterAlgorithms(op Operation) []Algorithm {
	return []Algorithm{
		{
			Op: op, Name: "recursive_halving",
			Summary: "recursive halving: swap half of what you work on with r XOR p/2^k, keep reducing the other half",
			Cost: Cost{"⌊log₂p⌋α + ((p'−1)/p')(mβ + mγ), p' = 2^⌊log₂p⌋; + 2α + (m + m/p)β + mγ if p ≠ p'", func(p, m, _ int) (float64, float64, float64) {
				f, x, fm := (pw(p)-1)/pw(p)*float64(m), notPow2(p), float64(m)
				return flg(p) + 2*x, f + x*(fm+fm/float64(p)), f + x*fm
			}},
			Constraints: consCommutative,
			Commutative: true,
			Run: run(reduceScatterWith(func(p *proc, w []byte, counts []int, op Op) {
				reduceScatterHalving(p, w, counts, op, 0)
			})),
		},
		{
			Op: op, Name: "ring",
			Summary: "ring: partial results of the blocks travel around the ring, p−1 steps",
			Cost: Cost{"(p−1)α + ((p−1)/p)(mβ + mγ)", func(p, m, _ int) (float64, float64, float64) {
				f := float64(p-1) / float64(p) * float64(m)
				return float64(p - 1), f, f
			}},
			Constraints: consCommutative + "; long vectors",
			Commutative: true,
			Run: run(reduceScatterWith(func(p *proc, w []byte, counts []int, op Op) {
				reduceScatterRing(p, chunks(w, counts), op, 0)
			})),
		},
		{
			Op: op, Name: "reduce_scatterv",
			Summary: "binomial reduce of the whole vector to rank 0, then linear scatterv",
			Cost: Cost{"⌈log₂p⌉(α + mβ + mγ) + (p−1)α + ((p−1)/p)mβ", func(p, m, _ int) (float64, float64, float64) {
				fm := float64(m)
				return lg(p) + float64(p-1), lg(p)*fm + float64(p-1)/float64(p)*fm, lg(p) * fm
			}},
			Constraints: "any op (keeps rank order)",
			Run: run(func(p *proc, a *Args) {
				counts := reduceScatterCounts(p, a)
				reduceScatterReduceScatterv(p, contribution(a), a.Recv[:counts[p.rank]], counts, a.Op, 0)
			}),
		},
	}
}

// scanAlgorithms serve Scan (inclusive) and Exscan.
func scanAlgorithms(op Operation, inclusive bool) []Algorithm {
	return []Algorithm{
		{
			Op: op, Name: "recursive_doubling",
			Summary: "recursive doubling: swap the partial reduction of your run of 2^k ranks with r XOR 2^k",
			Cost: Cost{"⌈log₂p⌉(α + mβ + 2mγ)", func(p, m, _ int) (float64, float64, float64) {
				return lg(p), lg(p) * float64(m), 2 * lg(p) * float64(m)
			}},
			Run: run(func(p *proc, a *Args) { scanRecursiveDoubling(p, contribution(a), a.Recv, a.Op, inclusive, 0) }),
		},
		{
			Op: op, Name: "linear",
			Summary: "chain: receive the prefix from r−1, add your value, pass it to r+1",
			Cost:    costReduceLinear,
			Run:     run(func(p *proc, a *Args) { scanLinear(p, contribution(a), a.Recv, a.Op, inclusive, 0) }),
		},
	}
}

var barrierAlgorithms = []Algorithm{
	{
		Op: OpBarrier, Name: "dissemination",
		Summary: "in round k signal r+2^k and wait for r−2^k",
		Cost:    Cost{"⌈log₂p⌉α", func(p, _, _ int) (float64, float64, float64) { return lg(p), 0, 0 }},
		Run:     run(func(p *proc, _ *Args) { barrierDissemination(p, 0) }),
	},
	{
		Op: OpBarrier, Name: "recursive_doubling",
		Summary: "in round k exchange with r XOR 2^k; extra ranks fold in",
		Cost: Cost{"(⌊log₂p⌋ + 2·[p≠2^k])α", func(p, _, _ int) (float64, float64, float64) {
			return flg(p) + 2*notPow2(p), 0, 0
		}},
		Run: run(func(p *proc, _ *Args) { barrierRecursiveDoubling(p, 0) }),
	},
	{
		Op: OpBarrier, Name: "linear",
		Summary: "central counter: all report to rank 0, which releases them",
		Cost:    Cost{"2(p−1)α", func(p, _, _ int) (float64, float64, float64) { return float64(2 * (p - 1)), 0, 0 }},
		Run:     run(func(p *proc, _ *Args) { barrierLinear(p, 0) }),
	},
	{
		Op: OpBarrier, Name: "binomial",
		Summary: "report up a binomial tree to rank 0, release down it",
		Cost:    Cost{"2⌈log₂p⌉α", func(p, _, _ int) (float64, float64, float64) { return 2 * lg(p), 0, 0 }},
		Run:     run(func(p *proc, _ *Args) { barrierBinomial(p, 0) }),
	},
}

var bcastAlgorithms = []Algorithm{
	{
		Op: OpBcast, Name: "binomial",
		Summary: "binomial tree: the set of ranks holding the message doubles every round",
		Cost: Cost{"⌈log₂p⌉(α + mβ)", func(p, m, _ int) (float64, float64, float64) {
			return lg(p), lg(p) * float64(m), 0
		}},
		Constraints: "short messages",
		Run:         run(func(p *proc, a *Args) { bcastBinomial(p, a.Recv, a.Root, 0) }),
	},
	{
		Op: OpBcast, Name: "linear",
		Summary: "the root sends to every rank in turn",
		Cost:    costLinear,
		Run:     run(func(p *proc, a *Args) { bcastLinear(p, a.Recv, a.Root, 0) }),
	},
	{
		Op: OpBcast, Name: "chain",
		Summary: "pipelined chain: segments of s bytes flow root → root+1 → …",
		Cost: Cost{"(p−2+k)(α + min(s, m)β), k = ⌊m/s⌋+1 segments of s bytes", func(p, m, s int) (float64, float64, float64) {
			if p == 1 {
				return 0, 0, 0
			}
			if s <= 0 {
				s = DefaultSegmentSize
			}
			rounds := float64(p - 2 + m/s + 1)
			return rounds, rounds * float64(min(s, m)), 0
		}},
		Constraints: "long messages; segment size s (WithSegmentSize, default 8 KiB)",
		Run:         run(func(p *proc, a *Args) { bcastChain(p, a.Recv, a.Root, segmentSize(a), 0) }),
	},
	{
		Op: OpBcast, Name: "scatter_allgather",
		Summary: "van de Geijn: binomial scatter of p chunks, then ring allgather",
		Cost: Cost{"(⌈log₂p⌉ + p − 1)α + 2((p−1)/p)mβ", func(p, m, _ int) (float64, float64, float64) {
			return lg(p) + float64(p-1), 2 * float64(p-1) / float64(p) * float64(m), 0
		}},
		Constraints: "long messages",
		Run:         run(func(p *proc, a *Args) { bcastScatterAllgather(p, a.Recv, a.Root, 0) }),
	},
}

var reduceAlgorithms = []Algorithm{
	{
		Op: OpReduce, Name: "binomial",
		Summary: "binomial tree: combine the children's results with your own, pass up",
		Cost: Cost{"⌈log₂p⌉(α + mβ + mγ), + α + mβ if the op is not commutative and root ≠ 0", func(p, m, _ int) (float64, float64, float64) {
			return lg(p), lg(p) * float64(m), lg(p) * float64(m)
		}},
		Run: run(func(p *proc, a *Args) { reduceBinomial(p, reduceSend(p, a), a.Recv, a.Op, a.Root, 0) }),
	},
	{
		Op: OpReduce, Name: "linear",
		Summary: "every rank sends to the root, which reduces in rank order",
		Cost:    costReduceLinear,
		Run:     run(func(p *proc, a *Args) { reduceLinear(p, reduceSend(p, a), a.Recv, a.Op, a.Root, 0) }),
	},
	{
		Op: OpReduce, Name: "rabenseifner",
		Summary: "Rabenseifner: reduce-scatter by recursive halving, then binomial gather of the pieces",
		Cost: Cost{"2⌊log₂p⌋α + 2((p'−1)/p')mβ + ((p'−1)/p')mγ, p' = 2^⌊log₂p⌋; + α + mβ + mγ if p ≠ p'; + α + mβ if root is not the gathering rank", func(p, m, _ int) (float64, float64, float64) {
			f, x, fm := (pw(p)-1)/pw(p)*float64(m), notPow2(p), float64(m)
			return 2*flg(p) + x, 2*f + x*fm, f + x*fm
		}},
		Constraints: "long vectors",
		Run:         run(func(p *proc, a *Args) { reduceRabenseifner(p, reduceSend(p, a), a.Recv, a.Op, a.Root, 0) }),
	},
}

var allreduceAlgorithms = []Algorithm{
	{
		Op: OpAllreduce, Name: "recursive_doubling",
		Summary: "swap the whole vector with r XOR 2^k and combine; extra ranks fold in",
		Cost: Cost{"⌊log₂p⌋(α + mβ + mγ), + 2α + 2mβ + mγ if p ≠ 2^k", func(p, m, _ int) (float64, float64, float64) {
			x, fm := notPow2(p), float64(m)
			return flg(p) + 2*x, flg(p)*fm + 2*x*fm, flg(p)*fm + x*fm
		}},
		Constraints: "short vectors",
		Run:         run(func(p *proc, a *Args) { allreduceRecursiveDoubling(p, work(a), a.Op, 0) }),
	},
	{
		Op: OpAllreduce, Name: "ring",
		Summary: "ring reduce-scatter, then ring allgather",
		Cost: Cost{"2(p−1)α + 2((p−1)/p)mβ + ((p−1)/p)mγ", func(p, m, _ int) (float64, float64, float64) {
			f := float64(p-1) / float64(p) * float64(m)
			return float64(2 * (p - 1)), 2 * f, f
		}},
		Constraints: consCommutative + "; long vectors",
		Commutative: true,
		Run:         run(func(p *proc, a *Args) { allreduceRing(p, work(a), a.Op, 0) }),
	},
	{
		Op: OpAllreduce, Name: "rabenseifner",
		Summary: "Rabenseifner: reduce-scatter by recursive halving, allgather by recursive doubling",
		Cost: Cost{"2⌊log₂p⌋α + 2((p'−1)/p')mβ + ((p'−1)/p')mγ, p' = 2^⌊log₂p⌋; + 2α + 2mβ + mγ if p ≠ p'", func(p, m, _ int) (float64, float64, float64) {
			f, x, fm := (pw(p)-1)/pw(p)*float64(m), notPow2(p), float64(m)
			return 2*flg(p) + 2*x, 2*f + 2*x*fm, f + x*fm
		}},
		Constraints: "medium and long vectors",
		Run:         run(func(p *proc, a *Args) { allreduceRabenseifner(p, work(a), a.Op, 0) }),
	},
	{
		Op: OpAllreduce, Name: "reduce_bcast",
		Summary: "binomial reduce to rank 0, then binomial broadcast",
		Cost: Cost{"2⌈log₂p⌉(α + mβ) + ⌈log₂p⌉mγ", func(p, m, _ int) (float64, float64, float64) {
			return 2 * lg(p), 2 * lg(p) * float64(m), lg(p) * float64(m)
		}},
		Run: run(func(p *proc, a *Args) { allreduceReduceBcast(p, work(a), a.Op, 0) }),
	},
}

var gatherScatterAlgorithms = []Algorithm{
	{
		Op: OpGather, Name: "binomial",
		Summary:     "binomial tree: a rank sends its whole subtree's blocks to its parent",
		Cost:        costLog,
		Constraints: "short blocks",
		Run: run(func(p *proc, a *Args) {
			gatherBinomial(p, a.Send, a.Recv, gatherBlock(p, a, a.Recv, a.Send), a.Root, 0)
		}),
	},
	{
		Op: OpGather, Name: "linear",
		Summary: "every rank sends its block straight to the root",
		Cost:    costLinear,
		Run: run(func(p *proc, a *Args) {
			gathervLinear(p, a.Send, uniform(a.Recv, p.size, gatherBlock(p, a, a.Recv, a.Send)), a.Root, 0)
		}),
	},
	{
		Op: OpGatherv, Name: "linear",
		Summary: "every rank sends its block straight to the root",
		Cost:    costLinear,
		Run: run(func(p *proc, a *Args) {
			gathervLinear(p, a.Send, varying(a.Recv, a.RecvCounts, a.RecvDispls), a.Root, 0)
		}),
	},
	{
		Op: OpScatter, Name: "binomial",
		Summary:     "binomial tree: a rank receives its whole subtree's blocks from its parent",
		Cost:        costLog,
		Constraints: "short blocks",
		Run: run(func(p *proc, a *Args) {
			scatterBinomial(p, a.Send, a.Recv, gatherBlock(p, a, a.Send, a.Recv), a.Root, 0)
		}),
	},
	{
		Op: OpScatter, Name: "linear",
		Summary: "the root sends every rank its block in turn",
		Cost:    costLinear,
		Run: run(func(p *proc, a *Args) {
			scattervLinear(p, uniform(a.Send, p.size, gatherBlock(p, a, a.Send, a.Recv)), a.Recv, a.Root, 0)
		}),
	},
	{
		Op: OpScatterv, Name: "linear",
		Summary: "the root sends every rank its block in turn",
		Cost:    costLinear,
		Run: run(func(p *proc, a *Args) {
			scattervLinear(p, varying(a.Send, a.SendCounts, a.SendDispls), a.Recv, a.Root, 0)
		}),
	},
}

var bruckAlltoall = Algorithm{ // for Alltoall only: it needs equal blocks
	Op: OpAlltoall, Name: "bruck",
	Summary: "Bruck: ⌈log₂p⌉ rounds; in round k the blocks whose index has bit k go to r+2^k",
	Cost: Cost{"⌈log₂p⌉α + ⌈log₂p⌉(p/2)mβ", func(p, m, _ int) (float64, float64, float64) {
		return lg(p), lg(p) * float64(p) / 2 * float64(m), 0
	}},
	Constraints: "short blocks; p·m bytes of scratch",
	Run: run(func(p *proc, a *Args) {
		sl, _, tmp := alltoallLayouts(p, a)
		alltoallBruck(p, sl.buf, a.Recv, len(a.Recv)/p.size, 0)
		p.putScratch(tmp)
	}),
}

var builtins = concat(
	barrierAlgorithms,
	bcastAlgorithms,
	reduceAlgorithms,
	allreduceAlgorithms,
	gatherScatterAlgorithms,
	allgatherAlgorithms(OpAllgather),
	allgatherAlgorithms(OpAllgatherv),
	alltoallvAlgorithms(OpAlltoall),
	[]Algorithm{bruckAlltoall},
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
