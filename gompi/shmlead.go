package gompi

import "github.com/gompi/gompi/coll"

// Who leaves the barrier after a rooted collective last (leadNext): the
// root of Gather, Gatherv and Reduce, whose data flow to it. Measured on 4
// and 8 ranks sharing 2 CPUs in the OSU loop (call, barrier): see
// docs/PERFORMANCE.md, "Leave orders of the barrier after Gather, Gatherv
// and Reduce".

// rootReceives reports whether op's data flow from every rank to its root.
func rootReceives(op coll.Operation) bool {
	return op == coll.OpGather || op == coll.OpGatherv || op == coll.OpReduce
}
