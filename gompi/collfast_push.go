package gompi

import "github.com/gompi/gompi/coll"

// A kept choice of Scatterv's push (shmcoll_push.go), run directly as
// runKept runs a plain shm step: not through coll.RunChosen (the
// AlgorithmObserver's interface assertion and call, the registered
// closure), and without a tag base: the pushed lines carry no messages
// (taglessAlgorithm). A call whose root finds a block too large for a line
// runs the slotted form after the lines; that form takes the call's tag
// base then (pushSlotted), on every rank alike, since every rank reads the
// root's word before it.

// pushAlgOf says whether alg, chosen for op, is a push (Scatterv's, or
// Scatter's or Bcast's: shmcoll_pushb.go).
func pushAlgOf(op coll.Operation, alg *coll.Algorithm) bool {
	if alg == nil || alg.Name != "push" {
		return false
	}
	switch op {
	case coll.OpScatterv, coll.OpScatter, coll.OpBcast, coll.OpGather, coll.OpGatherv, coll.OpReduce:
		return true
	}
	return false
}

// runKeptPush runs the kept push for a Scatterv, as coll.RunChosen would
// (the algorithm recorded for the trace, the same errors).
func runKeptPush(x *collComm, op coll.Operation, a *coll.Args) error {
	x.algo = "push"
	var err error
	switch op {
	case coll.OpGather, coll.OpGatherv, coll.OpReduce:
		err = runPushG(x, op, a) // shmcoll_pushg.go
	default:
		err = runPush(x, op, a)
	}
	if err == nil {
		return nil
	}
	return keptErr(x, op, "push", err)
}
