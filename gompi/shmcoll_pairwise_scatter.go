package gompi

import "github.com/gompi/gompi/coll"

// Scatter by the pairwise single copy ("cma_pairwise", shmcoll_pairwise.go):
// the root publishes its send buffer, every other rank its receive buffer,
// and each of the p−1 blocks is copied once, straight from the root's
// buffer into its rank's, by whichever of the two ranks gets to it first:
// the rank reads it (process_vm_readv) or the root writes it
// (process_vm_writev). The "linear" Scatter's root waits for each reader's
// rendezvous in turn, and the rooted "cma" Scatter's root waits until every
// reader has been scheduled and has copied its block; here a reader without
// a CPU holds the root only until it has published its buffer (at the
// start of its call), and the root, while it runs, moves the blocks of the
// readers that have not.
var pwScatter = &pwAlg{op: coll.OpScatter, rooted: true,
	summary: "the root publishes its send buffer and every rank its receive buffer; each block is copied once, from the root's buffer into its rank's, by whichever of the two gets to it first (the rank reads or the root writes)",
	cost:    "p−1 hand-offs with the root + (p−1)·m copied once, by the root or the ranks",
	source:  atRoot(func(a *coll.Args) []byte { return a.Send }),
	from:    withRoot(func(me int, a *coll.Args) ([]byte, int) { return a.Recv, me * len(a.Recv) }),
	to: func(n, me, r int, a *coll.Args) []byte {
		if me != a.Root {
			return nil
		}
		m := scatterBlock(n, a)
		return a.Send[r*m : (r+1)*m]
	},
	local: func(n, me int, a *coll.Args) error {
		if me == a.Root && a.Recv != nil { // nil: in place at the root
			m := len(a.Recv)
			copy(a.Recv, a.Send[me*m:(me+1)*m])
		}
		return nil
	}}

// preferPairwiseScatter runs the pairwise Scatter on 3 ranks or more with
// blocks of 128-512 KiB, ahead of "cma" (which had Scatter from 4 to
// 128 KiB) and "linear" (which had it from 256 KiB). Measured on this
// 2-CPU machine, 4 and 8 ranks oversubscribed (sidebyside --tune --ops
// scatter --algs linear,cma,cma_pairwise --n 4,8 --sizes
// 131072,262144,524288,1048576 --reps 7 --stat min, load 3): 4 ranks
// 128/256/512 KiB 18.7/24.5/39.2 µs against linear 30.2/33.0/59.7 and cma
// 19.8/27.0/40.6; 8 ranks 18.7/28.8/50.0 against linear 34.9/51.8/84.1
// and cma 24.3/36.1/61.8. At 1 MiB "linear" stays: 8 ranks 89 against 112
// (4 ranks 71 against 78, 87 against 77 in another run). Ranks 3 and 5-7
// were not measured.
func preferPairwiseScatter() error {
	return prefer(coll.OpScatter, tierCopy, coll.Rule{MinRanks: 3, MinBytes: 128 << 10, MaxBytes: 512 << 10, Use: []string{"cma_pairwise"}})
}
