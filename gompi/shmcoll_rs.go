package gompi

import "github.com/gompi/gompi/coll"

// foldOwnPart is the step of the shm Reduce_scatter and
// Reduce_scatter_block: every rank writes its vector of total bytes into
// the data area (rank r's at r·total), all meet, and each folds its own
// part (off, m bytes) of every rank's vector in rank order into recv.
//
// A rank's own part of its own vector is read by nobody else: unless the
// call is in place (where recv, which the fold overwrites, holds the
// vector), it is not written into the data area but folded straight from
// the send buffer. At two ranks that halves what each rank writes (on the
// lines, lineRanges already moved only the peer's part).
func foldOwnPart(x *collComm, a *coll.Args, data []byte, total, off, m int) error {
	n, me := x.Size(), x.Rank()
	own := a.Send != nil
	if own {
		copy(data[me*total:], a.Send[:off])
		copy(data[me*total+off+m:], a.Send[off+m:total])
	} else {
		copy(data[me*total:], a.Recv[:total]) // in place: recv holds the whole vector
	}
	if err := meet(x); err != nil {
		return err
	}
	part := func(r int) []byte {
		if own && r == me {
			return a.Send[off : off+m]
		}
		return data[r*total+off:][:m]
	}
	out := a.Recv[:m]
	copy(out, part(n-1))
	for r := n - 2; r >= 0; r-- {
		a.Op.Apply(part(r), out)
	}
	return nil
}
