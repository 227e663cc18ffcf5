package shm

import (
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// membarrier(2) commands (linux/membarrier.h).
const (
	membarrierCmdQuery                   = 0
	membarrierCmdGlobalExpedited         = 1 << 1
	membarrierCmdRegisterGlobalExpedited = 1 << 2
)

var arrivalsOnce sync.Once

// setupArrivals decides, once per process, whether its sleepers fence and
// how its two-rank arrivals are stored (see plainArrive): plainly, after
// registering the process for MEMBARRIER_CMD_GLOBAL_EXPEDITED so that the
// sleepers' membarrier interrupts its threads, unless
// GOMPI_SHM_ARRIVE=fenced keeps the XCHG.
func setupArrivals() {
	arrivalsOnce.Do(func() {
		cmds, _, errno := unix.RawSyscall(unix.SYS_MEMBARRIER, membarrierCmdQuery, 0, 0)
		const want = membarrierCmdGlobalExpedited | membarrierCmdRegisterGlobalExpedited
		if errno != 0 || cmds&want != want {
			return
		}
		sleepFence = true
		if os.Getenv("GOMPI_SHM_ARRIVE") != "fenced" {
			plainArrive = registerPlain()
		}
	})
}

// registerPlain registers this process for the sleepers' barrier and
// reports whether its arrivals may then be plain stores.
func registerPlain() bool {
	if !canStorePlain || !sleepFence {
		return false
	}
	_, _, errno := unix.Syscall(unix.SYS_MEMBARRIER, membarrierCmdRegisterGlobalExpedited, 0, 0)
	return errno == 0
}

// fenceSleeper runs a full memory barrier on every CPU that runs a thread
// of a process registered for it (every process that stores its arrivals
// plainly). It reports false if that was needed and failed: where the
// kernel has no such barrier, no process registered, every arrival keeps
// its XCHG and there is nothing to fence.
func fenceSleeper() bool {
	if !sleepFence {
		return true
	}
	_, _, errno := unix.Syscall(unix.SYS_MEMBARRIER, membarrierCmdGlobalExpedited, 0, 0)
	return errno == 0
}
