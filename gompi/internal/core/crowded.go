package core

import (
	"os"
	"runtime"
	"strconv"

	"github.com/gompi/gompi/internal/shm"
)

// Crowded slots: when a slot's ranks outnumber the host's CPUs many times
// over (64 ranks on 2 CPUs), a shared-memory step's waits sleep on the
// slot's futex word at once, with no yield window, and the process's slot
// sleeps are raw (shm.SetRawCollSleep).
//
// Every rank must run once per step however it waits. A rank that yields
// stays runnable, and the scheduler keeps handing the CPU to yielders whose
// step is not released yet: each such turn is a context switch spent on
// nothing (the yield loop cost two to three of them per rank and step at 64
// ranks). A rank asleep on the futex is not runnable until the release
// wakes it, so each rank runs exactly once per step: the one wake-all of
// the 63 sleepers is no thundering herd here, since every one of them has
// to run anyway. Below the threshold (2..8 ranks on 2 CPUs) the yield
// window stays: there, the measured best (docs/PERFORMANCE.md).

// crowdedFactor is how many times the CPUs a slot's ranks must number for
// its waits to sleep at once; crowdedMin is the least slot size that does.
const (
	crowdedFactor = 4
	crowdedMin    = 16
)

// crowdedFrom returns the least slot size whose waits sleep at once, or 0
// for none: only ranks that are processes of an oversubscribed host
// (goroutine ranks yield with runtime.Gosched, which is cheap).
// GOMPI_SHM_SLEEP_FROM overrides it (0: never), for measurements and for
// tests, which may so turn it on for goroutine ranks too (without raw
// sleeps: see useRawSleeps).
func crowdedFrom(o Options) int {
	if s, ok := os.LookupEnv("GOMPI_SHM_SLEEP_FROM"); ok {
		if v, err := strconv.Atoi(s); err == nil && v >= 0 {
			return v
		}
	}
	if !o.Oversubscribed || o.InProcess {
		return 0
	}
	return max(crowdedMin, crowdedFactor*runtime.NumCPU())
}

// useRawSleeps turns raw slot sleeps on for a process whose slots may be
// crowded (see shm.SetRawCollSleep). golaunch gives each rank of an
// oversubscribed host one P (GOMAXPROCS=1): a slot sleep through Syscall
// then let the runtime's monitor take that P away and go to sleep itself,
// and the wake-up had to start it and win the P back, four context switches
// instead of one (perf, 64 ranks). A raw sleep keeps the P: the rank's other
// goroutines wait meanwhile, until the runtime preempts the sleeper after
// 10 ms (its signal ends the sleep). GOMPI_SHM_RAW_SLEEP=0 turns it off.
func useRawSleeps(pol policy) {
	if pol.sleepFrom > 0 && !pol.gosched && os.Getenv("GOMPI_SHM_RAW_SLEEP") != "0" {
		shm.SetRawCollSleep(true)
	}
}

// crowded reports whether c's step waits sleep at once.
func (c *Comm) crowded() bool {
	f := c.p.pol.sleepFrom
	return f > 0 && c.size >= f
}
