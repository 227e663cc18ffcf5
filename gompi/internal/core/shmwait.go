package core

import (
	"time"

	"github.com/gompi/gompi/internal/shm"
)

// The hot waits of shared-memory steps. A step between ranks that each have
// a CPU usually completes within a few hundred nanoseconds (two cache-line
// hand-offs), so what a wait does before and after its first few polls is on
// the critical path of every collective: looking the slot up, building the
// closures shmWait takes, counting the thread as waiting (two atomic
// read-modify-writes, each of which also drains the store buffer), and the
// deferred call. These functions poll the step's words directly for a short
// while first and go to shmWait, with its backoff, sleep and liveness
// checks, only when that was not enough.

// shmCache holds what a communicator's steps look up on every call.
type shmCache struct {
	ctl    *shm.CollCtl
	halves [2][]byte
	listed bool // in openSteps (see arriveOpen)
}

// shmCtl returns the control block of c's slot.
func (c *Comm) shmCtl() *shm.CollCtl {
	if c.shm.ctl == nil {
		c.shm.ctl = c.p.seg.CollCtlAt(c.slot)
		c.shm.halves[0] = c.p.seg.CollScratch(c.slot, 0)
		c.shm.halves[1] = c.p.seg.CollScratch(c.slot, 1)
	}
	return c.shm.ctl
}

// shmHalf returns the scratch half of step k.
func (c *Comm) shmHalf(k uint64) []byte {
	c.shmCtl()
	return c.shm.halves[k&1]
}

// unlistShm takes c out of openSteps.
func (c *Comm) unlistShm() {
	if !c.shm.listed {
		return
	}
	c.shm.listed = false
	openSteps.Lock()
	delete(openSteps.m, c)
	openSteps.Unlock()
}

// shmPreSpin is how many polls a step's wait makes before it counts as a
// wait (shmWait): about a microsecond, several times a step between two
// ranks with a CPU each. When ranks outnumber CPUs the wait goes to shmWait
// at once, whose policy gives the CPU away after its first polls.
const shmPreSpin = 256

// preSpin reports how many polls to make before shmWait.
func (c *Comm) preSpin() int {
	if c.p.pol.spin <= 0 {
		return 0
	}
	return shmPreSpin
}

// awaitRelease waits until step k is released (every member has arrived).
func (c *Comm) awaitRelease(k uint64) error {
	ctl, n := c.shmCtl(), c.size
	spin := c.preSpin()
	if c.shmPollNext > 0 {
		spin, c.shmPollNext = max(spin, c.shmPollNext), 0
	}
	for i := spin; i >= 0; i-- {
		if ctl.Released(k, n) {
			return nil
		}
	}
	return c.shmWait(func() bool { return ctl.Released(k, n) }, func(d time.Duration) { ctl.Sleep(k, n, d) })
}

// awaitPost waits until the root of step k has posted it (root matters on
// two-rank slots only, where the root's arrival is its post).
func (c *Comm) awaitPost(k uint64, root int) error {
	ctl, n := c.shmCtl(), c.size
	for i := c.preSpin(); i >= 0; i-- {
		if ctl.Posted(k, n, root) {
			return nil
		}
	}
	return c.shmWait(func() bool { return ctl.Posted(k, n, root) }, func(d time.Duration) { ctl.SleepPost(k, n, root, d) })
}
