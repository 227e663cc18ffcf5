package gompi

import "github.com/gompi/gompi/coll"

// pushReduceFold folds a pushed Reduce's vectors at its root once every
// contributor's line holds this call (pushGRoot waited for them): in rank
// order from the right, as fold does, so that the operator gets its left
// operand from the lower rank.
//
// It allocates nothing per call. The root's own vector is its send buffer,
// read in place; only a Reduce in place (the vector is recv, which the fold
// overwrites) copies it first, into a buffer of the communicator's kept
// from call to call (pushState.own). Before (branch red9) the copy was a
// local array that the operator's call made escape: 640 bytes from the heap
// per call at the root, a collection every few thousand calls.
func pushReduceFold(x *collComm, a *coll.Args, lines []byte, par uint32) {
	n, me := x.Size(), x.Rank()
	v := contribution(a)
	m := len(v)
	if a.Send == nil {
		if cap(x.push.own) < m {
			x.push.own = make([]byte, pushMax)
		}
		own := x.push.own[:m]
		copy(own, v)
		v = own
	}
	vec := func(r int) []byte {
		if r == me {
			return v
		}
		return pushLine(lines, r, par)[pushHdr : pushHdr+m]
	}
	acc := a.Recv[:m]
	copy(acc, vec(n-1))
	for r := n - 2; r >= 0; r-- {
		a.Op.Apply(vec(r), acc)
	}
}
