package gompi

import "github.com/gompi/gompi/coll"

// The call's arguments, stored in the adapter field by field. A composite
// literal assigned through a pointer (x.with(coll.Args{...})) is built in a
// temporary and then copied: coll.Args is 232 bytes, its operator 72 more
// through opOf's result, on every call (7 % of the profile of a one-rank
// Allreduce of 8 B, BenchmarkCallCode). These store each field once.

// set stores the arguments of a call without an operator or per-rank counts.
func (x *collComm) set(send, recv []byte, root int) *coll.Args {
	return x.setCounts(send, recv, nil, nil, nil, nil, root)
}

// setOp stores the arguments of a reduction (routine r, for opOf's error).
func (x *collComm) setOp(r Routine, send, recv []byte, op AnyOp, root int) (*coll.Args, error) {
	var o *coll.Op
	if op != nil {
		o = op.collOp()
	}
	if o == nil {
		_, err := opOf(r, op) // its error
		return nil, err
	}
	a := &x.args
	a.Send, a.Recv, a.Root = send, recv, root
	a.Op = *o
	a.SendCounts, a.SendDispls, a.RecvCounts, a.RecvDispls = nil, nil, nil, nil
	a.SegmentSize = 0
	return a, nil
}

// setCounts stores the arguments of a call with per-rank counts and
// displacements and no operator (ReduceScatter: setOp, then its counts).
func (x *collComm) setCounts(send, recv []byte, sc, sd, rc, rd []int, root int) *coll.Args {
	a := &x.args
	a.Send, a.Recv, a.Root = send, recv, root
	a.Op = coll.Op{}
	a.SendCounts, a.SendDispls, a.RecvCounts, a.RecvDispls = sc, sd, rc, rd
	a.SegmentSize = 0
	return a
}
