package shm

import "time"

// The two-rank arrival without a full fence.
//
// An arrival at a two-rank step stores the rank's word A and then reads the
// word's sleeper count S, to wake a peer asleep on A; a sleeper increments
// S, re-reads A and futex-waits while A is old. That is a Dekker pattern:
// each side stores one word and reads the other's, and it needs a full
// fence between the store and the load on both sides, or the arriver may
// read S before its store of A is visible, the sleeper read A before its
// increment... and both miss each other: the sleeper sleeps a whole nap.
// The sleeper's fence is its atomic add (LOCK XADD). The arriver's was its
// store, an XCHG (Go's atomic store on amd64), which stalls the arriving
// rank until the peer's copy of the line has been taken back: most of a
// two-rank Barrier's time went there and into polling the peer's word.
//
// Sleeping is the slow path (after milliseconds of spinning and yielding),
// arriving the fast one, so the fence moves to the sleeper: on amd64 the
// arrival is a plain MOV (StoreRelease32: a release, which the data written
// before it need), and the sleeper, between its increment of S and its
// re-read of A, calls membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED), which
// makes every CPU that runs a thread of a registered process (every process
// that arrives plainly registers in setupArrivals, when it maps a segment)
// execute a full barrier before it returns; a thread not running then
// passes through one when it is switched out or in. So the arriver's store
// of A and its load of S fall either before that barrier or after it on
// the arriver's CPU. If the store falls before, it is visible when
// membarrier returns, and the sleeper's re-read (or the futex's own check
// of A) sees it and does not sleep. If it falls after, so does the load of
// S, which comes after it in program order: the sleeper's increment was
// visible before membarrier was called (a locked instruction), so the
// arriver reads S != 0 and wakes the sleeper. Either way no wake-up is lost.
//
// The plain arrival is the default on amd64 without the race detector,
// where the kernel has the barrier; GOMPI_SHM_ARRIVE=fenced keeps the XCHG.
// Measured (docs/PERFORMANCE.md, "Two ranks: the arrival without the full
// fence"): two-rank Barrier, Scatter, Scan and Exscan got faster in the OSU
// loop; Reduce's root, whose calls follow the untimed Barrier, was at times
// slower (splitting the setting by rank showed the plain store of the
// non-root's Barrier arrival to be what slowed it). Sleepers fence wherever the kernel has the barrier,
// whatever their own setting, since a peer may arrive plainly. Should the
// barrier fail where it was expected, the sleeper naps at most
// fenceFailedNap, so a missed wake-up costs that much at worst.
//
// The shared counter of larger slots keeps its atomic add, a full fence,
// and the stores after it.

// plainArrive: this process stores its two-rank arrivals plainly
// (setupArrivals sets it before the first segment is used; tests, with
// registerPlain).
var plainArrive bool

// sleepFence: the kernel has membarrier's global expedited command, so a
// peer process may arrive plainly and sleepers fence (fenceSleeper).
var sleepFence bool

// fenceFailedNap bounds a sleep whose fence failed.
const fenceFailedNap = time.Millisecond
