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
