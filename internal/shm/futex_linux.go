package shm

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The futexes are not FUTEX_PRIVATE: the word lives in memory shared between
// processes.
const (
	futexWaitOp = 0 // FUTEX_WAIT
	futexWakeOp = 1 // FUTEX_WAKE
)

// futexWait sleeps while *addr == val, at most d. Spurious returns are fine:
// callers re-check their condition.
func futexWait(addr *uint32, val uint32, d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	// Syscall (not RawSyscall) so that the Go scheduler hands this thread's P
	// to other goroutines while it sleeps.
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitOp, uintptr(val),
		uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// futexWaitRaw is futexWait without telling the Go scheduler (see
// SetRawCollSleep).
func futexWaitRaw(addr *uint32, val uint32, d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitOp, uintptr(val),
		uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// futexWake wakes every thread sleeping on addr.
func futexWake(addr *uint32) {
	// Raw: waking never blocks, and the scheduler need not hear of it.
	unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakeOp, 1<<30, 0, 0, 0)
}

// Yield gives the CPU to another runnable thread of the system (not only of
// this process, which runtime.Gosched would do). It is a raw system call:
// on a crowded machine the thread may be off the CPU for well over 20 µs,
// and through syscall.Syscall the Go scheduler would then take its P away
// and make it win one back on return, on every yield.
func Yield() { unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
