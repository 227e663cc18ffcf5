package gompi

import "github.com/gompi/gompi/coll"

// Two ranks, Gatherv and Scatterv with a block of vShm2Min bytes up to what
// a slot of the scratch half holds: through the scratch half ("shm",
// shmcoll_v.go) instead of single copy. Their table sends every two-rank
// call to "cma_split" (the size of a v-form is not known to every rank), and
// runSplit passes a block below splitMin on; this is where it goes to "shm"
// rather than "cma". Since the writer copies into the half with
// non-temporal stores (ntcopy.go), one 32 KiB block took 2.8-3.7 µs (median
// per call) against cma's 6.4-7.7 and Open MPI's 5.7-7.4
// (docs/PERFORMANCE.md, "Two ranks, 32 KiB: non-temporal stores into the
// scratch half"). Both ranks decide from the block that crosses as each
// knows it (the root from its count for the other rank, the other rank from
// its buffer), as for splitMin; ranks that decide differently run shm and
// cma, whose signatures differ (ErrMismatch).

// vShm2Min is the smallest block that goes through the half.
const vShm2Min = 8 << 10

// vShm2 returns the shm form of op (Gatherv or Scatterv) on x if a block of
// m bytes should go through the scratch half on two ranks, else nil.
func vShm2(x *collComm, op coll.Operation, m int) *shmAlg {
	if m < vShm2Min || x.Size() != 2 {
		return nil
	}
	data := x.c.c.ShmCapacity() - 2*sigSize
	if m > rootedSlotBytes(data, 2)-hdrSize {
		return nil
	}
	for _, s := range shmAlgsV {
		if s.op == op {
			return s
		}
	}
	return nil
}

// rootedSlotBytes is rootedSlot for a data area of size bytes.
func rootedSlotBytes(size, n int) int { return size / n &^ 63 }
