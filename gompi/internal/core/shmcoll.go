package core

import (
	"encoding/binary"
	"fmt"
	"sync"
	"time"

	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/internal/shm"
)

// Shared-memory collectives: a communicator whose ranks all live on this host
// gets a slot of the segment's collective area (see shm.CollCtl), set up when
// the communicator is made, so that every member agrees on it. The
// algorithms themselves live with the API (package gompi); the engine gives
// them the scratch area and the step.

// localComm reports whether every member of members runs on this host.
func (p *Proc) localComm(members []int32) bool {
	for _, w := range members {
		if p.locals[w] < 0 {
			return false
		}
	}
	return true
}

// setupShm gives the new communicator c a collective slot: its rank 0 claims
// one and tells the others the slot and the number of c's first step (a
// point-to-point broadcast on c's collective context, which is new and so
// cannot be confused with anything else).
func (c *Comm) setupShm() error {
	c.slot = -1
	if !c.p.localComm(c.members) {
		return nil
	}
	msg := make([]byte, 12)
	tag := c.CollTagBase()
	if c.rank == 0 {
		slot, base := c.p.seg.ClaimCollSlot(c.ctx, c.size)
		binary.LittleEndian.PutUint32(msg, uint32(int32(slot)))
		binary.LittleEndian.PutUint64(msg[4:], base)
		for r := 1; r < c.size; r++ {
			if err := c.CollSend(msg, r, tag); err != nil {
				return err
			}
		}
		c.slot, c.shmSeq = slot, base
		return nil
	}
	if _, err := c.CollRecv(msg, 0, tag); err != nil {
		return err
	}
	c.slot = int(int32(binary.LittleEndian.Uint32(msg)))
	c.shmSeq = binary.LittleEndian.Uint64(msg[4:])
	return nil
}

// releaseShm gives the slot back; every member calls it (Free is collective):
// after one last step nobody uses the slot any more.
func (c *Comm) releaseShm() error {
	if c.slot <= 0 {
		return nil
	}
	err := c.ShmStep()
	if c.rank == 0 {
		c.p.seg.ReleaseCollSlot(c.slot)
	}
	c.unlistShm()
	c.slot = -1
	c.shm = shmCache{}
	return err
}

// Free releases what the communicator holds in the segment. Every member
// must call it.
func (c *Comm) Free() error { return c.releaseShm() }

// ShmCapacity returns the bytes of scratch a shared-memory collective on c
// may use, or -1 if c has no slot.
func (c *Comm) ShmCapacity() int {
	if c.slot < 0 {
		return -1
	}
	return c.p.seg.CollScratchSize()
}

// ShmScratch returns the scratch half the next step uses: write this rank's
// part there, then call ShmStep.
func (c *Comm) ShmScratch() []byte { return c.shmHalf(c.shmSeq) }

// ShmScratchPrev returns the scratch half the last step used.
func (c *Comm) ShmScratchPrev() []byte { return c.shmHalf(c.shmSeq - 1) }

// The steps of shared-memory collectives. Step k uses scratch half k%2.
// Two rules make a half safe to reuse with one synchronization per step:
// no rank arrives at step k+1 before step k is released (every rank has
// arrived at k), and every rank finishes its reads of step k before it
// arrives at step k+1. ShmStep waits for its own release; ShmPost and
// ShmArrive return at once and leave the step open, and ShmBegin, which
// every collective calls before it writes, waits for the open step first.

// ShmBegin waits, if this rank left the last step open, until that step is
// released. Call it before writing into ShmScratch.
func (c *Comm) ShmBegin() error {
	if !c.shmOpen {
		return nil
	}
	c.shmOpen = false
	return c.awaitRelease(c.shmSeq - 1)
}

// ShmStep arrives at the next shared-memory collective on c and waits until
// every member has arrived, with the same spin, yield and sleep as every wait.
// Calls on one communicator must be made in the same order by all members,
// and not concurrently.
func (c *Comm) ShmStep() error { return c.shmStep(false, false) }

// ShmBarrier is ShmStep for a barrier: every member takes the whole step,
// and the rank ShmLeadNext named leaves it first.
func (c *Comm) ShmBarrier() error { return c.shmStep(false, true) }

// ShmStepPost is ShmStep for the root of a rooted collective: it also posts
// the step (see ShmPost), so that readers waiting for the root find it.
func (c *Comm) ShmStepPost() error { return c.shmStep(true, false) }

// ShmLeadNext names the rank that leaves c's next barriers first
// (ShmBarrier), or none (-1), until the next call: the root of a collective
// whose data flow from the root (Bcast, Scatter), after it, so that in a loop
// of such a collective and a barrier the root has posted before the readers
// look (see shm.CollCtl.Lead). Every member must name the same rank after the
// same collective; where one does not (after a failed call), the others wait
// for it only until their wait would sleep.
func (c *Comm) ShmLeadNext(rank int) { c.shmLead, c.shmOrd = rank+1, leaveFirst }

func (c *Comm) shmStep(post, barrier bool) error {
	if err := c.ShmBegin(); err != nil {
		return err
	}
	k := c.shmSeq
	c.shmSeq++
	ctl := c.shmCtl()
	if post {
		// Post before arriving: once this rank has arrived the others can
		// pass the step and the next root post the next one, which a late
		// post of this step would overwrite (its readers would wait for
		// it forever).
		ctl.Post(k, c.size)
	}
	last := ctl.Arrive(k, c.size, c.rank)
	lead := -1
	if barrier {
		lead = c.leader()
	}
	if lead >= 0 && c.rank != lead {
		return c.awaitLeader(k, ctl)
	}
	if !last {
		if err := c.awaitRelease(k); err != nil {
			return err
		}
	}
	if lead >= 0 {
		ctl.Lead(k)
	}
	if barrier {
		return c.leaveOrdered(k)
	}
	return nil
}

// awaitLeader waits until the leader has left step k, which this rank has
// arrived at. If the step is released but the wait would sleep, the leader
// does not know it leads (see ShmLeadNext) and this rank leaves anyway.
//
// A wait that would sleep before the release sleeps on the release, not on
// the leader's word: a leader that does not know it leads never posts that
// word, and may be gone by the time a nap on it ends (that was a spurious
// ErrPeerLost, about one run in 20 of TestShmLedBarrier under load).
func (c *Comm) awaitLeader(k uint64, ctl *shm.CollCtl) error {
	if ctl.Led(k) {
		return nil
	}
	gaveUp := false
	return c.shmWait(func() bool { return ctl.Led(k) || gaveUp && ctl.Released(k, c.size) }, func(d time.Duration) {
		if !ctl.Released(k, c.size) {
			ctl.Sleep(k, c.size, d)
		}
		gaveUp = ctl.Released(k, c.size)
	})
}

// leader returns the rank that leaves c's barriers first, or -1 if they
// leave as they find the step released: the rank named by ShmLeadNext, on a
// slot of more than two ranks when ranks outnumber CPUs and the leave orders
// are on (Options.LedBarriers, GOMPI_SHM_LEAD=1). With a CPU per rank
// every rank leaves at once, and the extra hand-off would only cost.
func (c *Comm) leader() int {
	if c.shmLead == 0 || c.shmOrd != leaveFirst || c.size <= 2 || !c.p.opts.Oversubscribed || !c.p.opts.LedBarriers {
		return -1
	}
	return c.shmLead - 1
}

// ShmPost is the root's step of a collective whose readers need only the
// root's data (Bcast, Scatter): it arrives, posts and returns without
// waiting for the readers, leaving the step open.
func (c *Comm) ShmPost() error { return c.arriveOpen(true) }

// ShmAwaitPost waits until the root of the next step has posted it; the
// root's data are then in ShmScratch. The reader then reads and calls
// ShmArrive.
func (c *Comm) ShmAwaitPost() error {
	if err := c.ShmBegin(); err != nil {
		return err
	}
	return c.awaitPost(c.shmSeq, 1-c.rank) // the root of a two-rank step: the other rank
}

// ShmArrive arrives at the next step and returns without waiting, leaving
// the step open: for a rank that has written its part for a root to read
// (Gather, Reduce) or has read the root's data (after ShmAwaitPost).
func (c *Comm) ShmArrive() error { return c.arriveOpen(false) }

// arriveOpen arrives at the next step (and posts it, as its root, with post)
// and returns without waiting for its release.
func (c *Comm) arriveOpen(post bool) error {
	if err := c.ShmBegin(); err != nil {
		return err
	}
	k := c.shmSeq
	c.shmSeq++
	ctl := c.shmCtl()
	if post {
		ctl.Post(k, c.size) // before arriving, as in shmStep
	}
	ctl.ArriveOpen(k, c.size, c.rank)
	c.shmOpen, c.shmPosted = true, post
	if !c.shm.listed {
		// Listed once, until Free or Finalize: a lock and a map update
		// per open step cost as much as the step's own stores.
		c.shm.listed = true
		openSteps.Lock()
		openSteps.m[c] = struct{}{}
		openSteps.Unlock()
	}
	return nil
}

// openSteps holds the communicators that have left a step open (their last
// step may still be: shmOpen says), so that Finalize can close them: a rank
// that leaves while a step it arrived at is still open would look lost to
// the ranks still waiting in it. A communicator stays listed until it is
// freed or its process finalizes.
var openSteps = struct {
	sync.Mutex
	m map[*Comm]struct{}
}{m: map[*Comm]struct{}{}}

// settleShm waits until every step p left open is released (at Finalize).
func (p *Proc) settleShm() {
	openSteps.Lock()
	var mine []*Comm
	for c := range openSteps.m {
		if c.p == p {
			mine = append(mine, c)
		}
	}
	openSteps.Unlock()
	for _, c := range mine {
		c.ShmBegin() // an error here (a peer gone, the job aborting) ends the wait; Finalize goes on
		c.unlistShm()
	}
}

// shmWait waits until done, spinning, yielding and sleeping (with sleep) by
// the policy, and fails if the job aborts or a member is gone.
func (c *Comm) shmWait(done func() bool, sleep func(time.Duration)) error {
	if done() {
		return nil
	}
	p := c.p
	p.enterWait()
	defer p.leaveWait()
	var b backoff
	crowded := c.crowded()
	if crowded {
		b.start = time.Now() // for the timeout (shmCheck)
	}
	for !done() {
		if !crowded && !b.pausing(p) {
			continue
		}
		sleep(p.pol.nap)
		if done() {
			break
		}
		if err := c.shmCheck(b.start); err != nil {
			return err
		}
	}
	return nil
}

// shmCheck fails a shared-memory wait if the job aborts, the wait timed out
// or a member is gone.
func (c *Comm) shmCheck(since time.Time) error {
	p := c.p
	if err := p.check(nil, since); err != nil {
		return err
	}
	for i, w := range c.members {
		if p.peerGone(w) {
			return &base.Error{Op: "collective", Rank: c.rank, Peer: i, Tag: -1, Err: base.ErrPeerLost,
				Detail: fmt.Sprintf("rank %d left while the others waited for it in a collective", i),
				Hint:   base.HintPeerLost}
		}
	}
	return nil
}
