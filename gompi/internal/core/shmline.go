package core

import "github.com/gompi/gompi/internal/shm"

// The data beside a two-rank step's arrival words (shm.CollCtl.PairData):
// a two-rank collective whose data fit shm.PairLineData bytes per rank
// writes them there instead of into the scratch half, so that its peer
// takes one cache miss (the arrival word's line, data included) instead of
// two in series (the word, then the scratch line). See
// docs/PERFORMANCE.md, "Two ranks: the data on the arrival word's line".

// ShmPairLine returns the data bytes beside rank's arrival word of the next
// step (prev false) or of the last one (prev true); nil unless c is a
// two-rank communicator with a slot. A rank writes its own before it
// arrives at that step; its peer reads them once it has seen that arrival
// and before it arrives at the step after.
func (c *Comm) ShmPairLine(rank int, prev bool) []byte {
	if c.slot < 0 || c.size != 2 {
		return nil
	}
	k := c.shmSeq
	if prev {
		k--
	}
	return c.shmCtl().PairData(rank, k)
}

// ShmPairLineSize returns the bytes of ShmPairLine on the arrival word's
// own pair of lines (0 where it gives none); ShmPairLine gives
// shm.PairWideData bytes in all.
func (c *Comm) ShmPairLineSize() int {
	if c.slot < 0 || c.size != 2 {
		return 0
	}
	return shm.PairLineData
}
