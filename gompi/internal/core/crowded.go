package core

import (
	"os"
	"strconv"

	"github.com/gompi/gompi/internal/shm"
)

// Waits of shared-memory steps when ranks outnumber CPUs many times over
// (64 ranks on 2 CPUs).
//
// Raw sleeps. golaunch gives each rank of an oversubscribed host one P
// (GOMAXPROCS=1). A slot wait that outlasts its yield window (2 ms; under
// load a 64-rank step often does) slept on the futex through Syscall: the
// runtime's monitor thread (sysmon) then took the rank's only P, found
// nothing to run and went to sleep itself, and every wake-up had to start
// it and win a P back. perf at 64 ranks (waits sleeping through Syscall):
// per rank and step about 2 sysmon sleeps (usleep), 1 M parked (stopm) and
// 4.7-6.5 context switches; once steps took more than 2 ms they stayed
// there (the barrier 5-13 ms instead of 0.7-0.9 ms, by chance per run).
// Raw sleeps keep the P (see shm.SetRawCollSleep): about 1.7 context
// switches per rank and step, and the slow mode is gone. They are on for the ranks of an oversubscribed host
// that are processes; GOMPI_SHM_RAW_SLEEP=0 turns them off (=1 on where the
// host is not oversubscribed).
//
// Sleeping at once (GOMPI_SHM_SLEEP_FROM=N: slots of N ranks or more skip
// the yield window and sleep on the first miss). Every rank must run once
// per step however it waits, and a rank asleep is not picked by the
// scheduler until the release wakes it, where a yielding rank is picked in
// vain. Measured at 64 ranks on the loaded machine (load average 18-36,
// docs/PERFORMANCE.md "64 ranks on 2 CPUs: raw slot sleeps") it lost to
// the yield window with raw sleeps (barrier 1.1-1.9 ms against 0.83-0.88,
// Allreduce 1.2-1.6 against 0.93), presumably since ranks asleep give their
// share of the CPUs to the other sessions' processes; so it is off by
// default, kept for measuring on an idle machine and exercised by the
// tests (which turn it on for goroutine ranks too, without raw sleeps).

// crowdedFrom returns the least slot size whose waits sleep at once, or 0
// for none (the default): GOMPI_SHM_SLEEP_FROM.
func crowdedFrom(Options) int {
	if v, err := strconv.Atoi(os.Getenv("GOMPI_SHM_SLEEP_FROM")); err == nil && v > 0 {
		return v
	}
	return 0
}

// useRawSleeps turns raw slot sleeps on for a rank that is a process of an
// oversubscribed host (see above). Goroutine ranks (gompi.Run) never: a P
// held by a sleeping rank is one its peers cannot run on.
func useRawSleeps(o Options) {
	if o.InProcess {
		return
	}
	switch os.Getenv("GOMPI_SHM_RAW_SLEEP") {
	case "0":
	case "1":
		shm.SetRawCollSleep(true)
	default:
		if o.Oversubscribed {
			shm.SetRawCollSleep(true)
		}
	}
}

// crowded reports whether c's step waits sleep at once.
func (c *Comm) crowded() bool {
	f := c.p.pol.sleepFrom
	return f > 0 && c.size >= f
}
