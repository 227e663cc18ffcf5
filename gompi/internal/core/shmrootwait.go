package core

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/internal/shm"
	"github.com/gompi/gompi/rdtsc"
)

// Waits of the pushed gathering calls (Gather, Gatherv, Reduce:
// gompi/shmcoll_pushg.go) where ranks outnumber CPUs by at most two to one
// (4 ranks on 2 CPUs). Every wait there yields at once (policy: no spin
// window), which is right when the rank waited for shares this CPU, and
// costs two context switches (some 1-1.5 µs each on the 2-vCPU VM of
// docs/PERFORMANCE.md) when it runs on another CPU and is due within a
// microsecond. Measured with the ranks pinned (issue 18, branch root11),
// a 4-rank Reduce of 8 B spent 2-3 µs per call of call and barrier more
// than the barrier alone, in switches that ran a rank with nothing to do.
// With the two polls below (pinned, 4 ranks, Reduce 8 B, loop of call and
// barrier): 4.04 → 3.78 µs where the root shares its CPU with one
// contributor, 6.22 → 4.92 where it is alone on its CPU, 6.54 → 6.13 where
// it shares it with two (docs/PERFORMANCE.md, branch root11).

// gatherPolls is how many times the root of a pushed gathering call loads
// its mask after each yield (about 0.6 µs), and lastPolls how many times
// the contributor that completed a root's mask polls its next step's
// release before it yields (about 1.2 µs), where that root runs on another
// CPU.
const (
	gatherPolls = 1024
	lastPolls   = 2048
)

// fewPerCPU: the host runs more ranks than CPUs, at most two per CPU, on
// c's more than two ranks (a yield hands the CPU to at most one other
// rank). Not on 64 ranks on 2 CPUs, where polling steals the CPU from the
// ranks that would answer. Processes only: goroutine ranks (gompi.Run)
// yield with runtime.Gosched, and a sched_yield would not hand their P on.
func (c *Comm) fewPerCPU() bool {
	return c.size > 2 && c.p.opts.Oversubscribed && !c.p.opts.InProcess && c.size <= 2*hostCPUs
}

// hostCPUs is the number of CPUs online, where runtime.NumCPU counts those
// of the process's affinity mask: a rank that golaunch bound to one core
// (--bind-to core) sees 1 there, while its peers run on the others.
var hostCPUs = func() int {
	n := runtime.NumCPU()
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return n
	}
	online := 0
	for _, part := range strings.Split(strings.TrimSpace(string(b)), ",") {
		lo, hi, found := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		z, err2 := a, error(nil)
		if found {
			z, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || z < a {
			return n
		}
		online += z - a + 1
	}
	return max(n, online)
}()

// ShmAwaitGathered is ShmAwaitWord for the root of a pushed gathering call
// waiting for its contributors' mask (w holds v once every bit is set).
// Where ranks are few per CPU it yields first (a contributor on this CPU
// runs then), then polls for a while (one on the other CPU, running, sets
// its bit meanwhile), and again, before it waits as every wait does. In
// place of a yield after a few polls, which hands the CPU back and forth
// to a rank on this CPU that has already contributed while the one awaited
// runs elsewhere.
func (c *Comm) ShmAwaitGathered(w unsafe.Pointer, v uint32) error {
	p := (*uint32)(w)
	if c.fewPerCPU() {
		for range 64 {
			shm.Yield()
			for i := gatherPolls; i > 0; i-- {
				if atomic.LoadUint32(p) == v {
					return nil
				}
			}
		}
	}
	return c.ShmAwaitWord(w, v)
}

// ShmPollNextRelease is called by the contributor whose bit completed a
// pushed gathering call's mask, with the CPU its root was last seen on
// (-1: unknown). That root, running on another CPU, folds or copies and
// arrives at the next step (in a loop, the barrier) within a microsecond,
// and this rank is most often the last to arrive before it: so where ranks
// are few per CPU and the root is on another CPU, this rank's wait for the
// next step's release polls lastPolls times before it yields. Where the
// root shares this CPU, polling would only keep it off the CPU.
func (c *Comm) ShmPollNextRelease(rootCPU int) {
	if rootCPU >= 0 && c.fewPerCPU() {
		if me := rdtsc.CPU(); me >= 0 && me != rootCPU {
			c.shmPollNext = lastPolls
		}
	}
}
