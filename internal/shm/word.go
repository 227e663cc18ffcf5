package shm

import "time"

// WaitWord sleeps while *addr == val, at most d: a futex on a word in memory
// shared between processes (spurious returns are fine: callers re-check).
// Window locks of one-sided communication wait on their words this way.
func WaitWord(addr *uint32, val uint32, d time.Duration) { futexWait(addr, val, d) }

// WakeWord wakes every thread sleeping on addr.
func WakeWord(addr *uint32) { futexWake(addr) }
