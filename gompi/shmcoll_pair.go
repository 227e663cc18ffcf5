package gompi

import "github.com/gompi/gompi/coll"

// Scan and Exscan on two ranks: rank 1 needs rank 0's vector and rank 0
// needs nothing, so the step is rooted at rank 0, as Bcast's is: rank 0
// writes its vector, arrives and returns (its Scan result is its own
// vector); rank 1 waits for rank 0's arrival, not for a whole step, folds or
// copies, and arrives. Open MPI's Scan is the same one message from rank 0
// to rank 1. On more ranks every rank writes its vector and all meet
// (foldUpTo).
func prefixRun(hi func(r, n int) int) func(x *collComm, a *coll.Args, data []byte) error {
	full := foldUpTo(hi)
	return func(x *collComm, a *coll.Args, data []byte) error {
		if x.Size() != 2 {
			return full(x, a, data)
		}
		m := len(a.Recv)
		if x.Rank() == 0 {
			v := contribution(a)
			scanScratchCopy(2, data[:m], v) // non-temporal from 16 KiB where plain is slow (shmcoll_scan.go)
			if hi(0, 2) > 0 && a.Send != nil {
				copy(a.Recv, v) // Scan's rank 0: its own vector
			}
			return post(x)
		}
		if err := awaitRoot(x, 0); err != nil {
			return err
		}
		if hi(1, 2) == 2 {
			// Scan: recv = v0 ∘ v1, v1 being this rank's contribution
			// (already in recv when in place).
			if a.Send != nil {
				copy(a.Recv, a.Send)
			}
			a.Op.Apply(data[:m], a.Recv)
		} else {
			copy(a.Recv, data[:m]) // Exscan: rank 0's vector
		}
		return arrive(x)
	}
}
