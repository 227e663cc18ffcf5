package core

import "runtime"

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

// reserveProgressP gives the progress goroutine a processor (a Go P) of its
// own: one more than GOMAXPROCS says, which golaunch sets to this rank's
// share of the CPUs (often 1). Without it the goroutine, woken by a message
// while the program computes, waits for the computing goroutine to be
// preempted (up to 10 ms) before it can run, and a transfer that should
// overlap the computation does not. With it, the kernel's scheduler decides,
// as for the progress threads of MPICH and UCX. The goroutine sleeps when no
// nonblocking operation is pending, so the extra P costs nothing then.
func reserveProgressP() { runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1) }
