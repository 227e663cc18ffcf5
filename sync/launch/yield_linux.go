package launch

import "golang.org/x/sys/unix"

// osYield gives the CPU to another runnable thread of the system, of this
// process or another (runtime.Gosched only reaches this process's goroutines).
func osYield() { unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
