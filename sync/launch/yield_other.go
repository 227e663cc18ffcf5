//go:build !linux

package launch

import "runtime"

// osYield lets other goroutines run; without sched_yield that is all we can do.
func osYield() { runtime.Gosched() }
