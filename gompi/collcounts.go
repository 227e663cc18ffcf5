package gompi

import (
	"slices"

	"github.com/gompi/gompi/coll"
)

// The kept choice of a call with per-rank counts (collfast.go). Selection
// reads the counts and displacements (the call's size in its operation's
// measure, what the algorithms' Available functions need) and the caller
// may change them between calls in the same arrays, so the entry keeps a
// copy of each and compares them by value: at two ranks four pairs of ints,
// against a selection that walked the table and the algorithms on every
// call of the v forms (Gatherv, Scatterv, Allgatherv, Alltoallv/w,
// Reduce_scatter). A nil array and an empty one are told apart.

// keptCounts is a kept call's SendCounts, SendDispls, RecvCounts and
// RecvDispls.
type keptCounts struct {
	v   [4][]int
	nil [4]bool
}

// same reports whether a's arrays hold what k kept. Field by field: an
// array of the four slice headers built per call was a 96-byte copy on
// every call of every routine.
func (k *keptCounts) same(a *coll.Args) bool {
	return k.eq(0, a.SendCounts) && k.eq(1, a.SendDispls) && k.eq(2, a.RecvCounts) && k.eq(3, a.RecvDispls)
}

func (k *keptCounts) eq(i int, c []int) bool {
	if c == nil {
		return k.nil[i]
	}
	return !k.nil[i] && slices.Equal(c, k.v[i])
}

// keep copies a's arrays into k.
func (k *keptCounts) keep(a *coll.Args) {
	for i, c := range [4][]int{a.SendCounts, a.SendDispls, a.RecvCounts, a.RecvDispls} {
		k.v[i], k.nil[i] = append(k.v[i][:0], c...), c == nil
	}
}
