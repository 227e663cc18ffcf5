package rdtsc

import "runtime"

// CPU returns the number of the CPU the calling thread runs on, read with
// RDTSCP from IA32_TSC_AUX (which Linux sets to (node << 12) | cpu), or -1
// where it cannot be read so cheaply (no RDTSCP, another OS, another
// architecture). It may be stale by the time it returns, as the thread may
// move: a hint for a wait's policy (gompi's pushed gathering calls), never
// for correctness. It costs a few tens of cycles, where getcpu(2) is a
// system call.
func CPU() int {
	if !cpuReadable {
		return -1
	}
	_, cpu := readCPU()
	return cpu
}

// cpuReadable: Linux keeps the CPU's number in IA32_TSC_AUX, and the
// processor has RDTSCP to read it.
var cpuReadable = runtime.GOOS == "linux" && hasRDTSCP()
