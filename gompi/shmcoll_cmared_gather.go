package gompi

import (
	"runtime"

	"github.com/gompi/gompi/coll"
)

// cmaReduceGather is Reduce on three ranks or more with the fold at the
// root: every other rank writes its whole vector into the root's buffers
// and leaves at once; the root waits for all and folds the vectors in rank
// order, piece by piece so that the accumulator stays in cache. The last
// rank's vector, where the fold starts, lands in the root's recv (published
// as the root's first record, which nobody reads here), the others' in a
// landing buffer at r·m ((p−1)m bytes of scratch at the root). Every byte
// is copied once, and the others never wait after the opening step, where
// the reduce-scatter form (cmaReduce) needs every rank scheduled in both
// steps; but the root folds (p−1)m alone. A write that fails makes the
// root and the writer return an error (redClose); the other ranks, whose
// part succeeded and who have no result, have left by then and return nil.
func cmaReduceGather(x *collComm, a *coll.Args, data []byte) error {
	n, me, root := x.Size(), x.Rank(), a.Root
	in := contribution(a)
	m := len(in)
	last := n - 1
	var land []byte
	var held []*[]byte
	first, mine := in, in // the root's first record; its own vector for the fold
	if me == root {
		s := getRedScratch((n - 1) * m)
		land, held = *s, append(held, s)
		if root != last {
			first = a.Recv
			if a.Send == nil { // in place: recv is the input, which the last rank overwrites
				mine = land[root*m : (root+1)*m]
				copy(mine, in)
			}
		}
	}
	recs, ran, err := redStart(x, coll.OpReduce, a, data, first, land)
	if ran {
		return err
	}
	if me != root {
		if me == last {
			err = recs[2*root].write(in, 0)
		} else {
			err = recs[2*root+1].write(in, me*m)
		}
		if err = redClose(x, err, false); err != nil {
			return err
		}
		runtime.KeepAlive(in)
		return nil
	}
	if err = redClose(x, nil, true); err != nil {
		return err
	}
	piece := max(64<<10/a.Op.ElemSize*a.Op.ElemSize, a.Op.ElemSize)
	for off := 0; off < m; off += piece {
		end := min(off+piece, m)
		acc := a.Recv[off:end]
		v := func(r int) []byte {
			if r == root {
				return mine[off:end]
			}
			return land[r*m+off : r*m+end]
		}
		top := n - 2                                // the next rank to fold in
		if root == last && a.Send != nil && n > 1 { // acc = v_{n−2} ∘ in, one pass
			a.Op.ApplyTo(acc, v(n-2), in[off:end])
			top = n - 3
		} // else acc holds v_last already: the last rank's, or the root's in place
		for r := top; r >= 0; r-- {
			a.Op.Apply(v(r), acc)
		}
	}
	runtime.KeepAlive(in)
	runtime.KeepAlive(a.Recv)
	putRedScratch(held...)
	return nil
}
