package shm

import (
	"sync/atomic"
	"time"
)

// Raw sleeps on the collective slots' words. A thread that sleeps in a
// futex through syscall.Syscall tells the Go scheduler it is in a system
// call: the runtime's monitor thread (sysmon) then wakes every 20 µs to take
// the thread's P away, and the woken thread must win a P back. With 64
// ranks on 2 CPUs, each rank asleep in every step, that is 64 monitor
// threads polling and a P hand-off per wake-up: once a 64-rank step took
// longer than the yield window, it took 5-13 ms instead of 0.7-0.9
// (docs/PERFORMANCE.md, "64 ranks on 2 CPUs: raw slot sleeps").
//
// A rank of a multi-process job on an oversubscribed host turns raw sleeps
// on (core's useRawSleeps): the slot waits then block the thread with its
// P, as a spinning wait would hold it. The runtime's preemption
// signal (a goroutine running for over 10 ms) ends such a sleep early,
// which the callers, who re-check their word, take as a spurious wake.
// Ranks that are goroutines of one process (gompi.Run) must not turn them
// on: a P held by a sleeping rank is one its peers cannot run on.

var rawCollSleep atomic.Bool

// SetRawCollSleep turns raw futex sleeps on the collective slots' words on
// or off for this process.
func SetRawCollSleep(on bool) { rawCollSleep.Store(on) }

// collWait is futexWait for the words of a collective slot.
func collWait(addr *uint32, val uint32, d time.Duration) {
	if rawCollSleep.Load() {
		futexWaitRaw(addr, val, d)
		return
	}
	futexWait(addr, val, d)
}
