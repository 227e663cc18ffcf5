package core

// A two-rank barrier after an open step (issue 18, branch two8).
//
// A rooted call on two ranks leaves its step open on the rank that returns
// without waiting (Bcast's and Scatter's root, Scan's and Exscan's rank 0,
// the contributor of Reduce and Gather), and the barrier after it began by
// waiting for that step's release (ShmBegin): for the peer's arrival at the
// call, one cache-line hand-off, and only then arrived at the barrier, a
// second hand-off the peer waited for. In a loop of call and barrier the
// pair paid three hand-offs in series per iteration where two carry what
// it needs (the call's data one way, the barrier's arrival the other).
//
// A barrier writes nothing but its signature, and when that is already in
// place (the usual case: the same calls in a loop, writeSig), nothing at
// all but its arrival word. On a two-rank slot that word is this rank's own
// (shm.CollCtl.pair), of the barrier's parity: arriving at barrier k+1
// while the peer may still be in step k (and past step k−1, whose release
// this rank saw before it took step k) stores 1+(k+1) into the word of
// step k−1's parity, which the peer may still read only as "step k−1
// reached" (monotonic, robust to the wrap: shm.reached); the data beside it
// and the scratch halves are untouched. The peer arrives at barrier k+1
// only after it arrived at step k, so the barrier's release also releases
// the open step: leaving the barrier closes it, as ShmBegin would have.
//
// Only after a post (the root of Bcast and Scatter, rank 0 of two-rank
// Scan and Exscan): after a contributor's open arrival (Reduce, Gather),
// arriving ahead let the contributor leave the barrier as soon as the
// root had arrived, and the root's next call then waited for its data:
// the loop was no shorter and the root's call slower (Reduce 8 B, 1 M
// iterations: loop 1.06-1.07 µs against 1.05-1.11, call 0.54 against
// 0.34-0.37; docs/PERFORMANCE.md, "Two ranks: the barrier after a post").
//
// On more ranks the step counter cannot take an arrival at k+1 before step
// k's last one (the last arrival is known by the count), so this is for
// two-rank slots only.

// ShmPairOpen reports whether c is a two-rank communicator with a slot
// whose last step this rank posted and left open (see ShmBarrierAhead).
func (c *Comm) ShmPairOpen() bool { return c.shmOpen && c.shmPosted && c.size == 2 && c.slot >= 0 }

// ShmBarrierAhead is ShmBarrier for a two-rank communicator whose last step
// this rank left open (ShmPairOpen) and whose barrier signature is already
// in the next step's half: it arrives at once, without waiting for the open
// step's release first, and waits for the barrier's release, which closes
// the open step too. Elsewhere it is ShmBarrier.
func (c *Comm) ShmBarrierAhead() error {
	if !c.ShmPairOpen() {
		return c.ShmBarrier()
	}
	k := c.shmSeq
	c.shmSeq++
	c.shmOpen = false // closed by this step's release (the peer arrives at k only after k−1)
	if !c.shmCtl().Arrive(k, 2, c.rank) {
		return c.awaitRelease(k)
	}
	return nil
}
