package shm

import "runtime"

func rdtscpAux() uint32

func cpuid(leaf uint32) (eax, edx uint32)

// hasCPU: RDTSCP is there (CPUID 0x80000001, EDX bit 27) and the kernel
// keeps the CPU's number in IA32_TSC_AUX (Linux: (node << 12) | cpu).
var hasCPU = func() bool {
	if runtime.GOOS != "linux" {
		return false
	}
	if max, _ := cpuid(0x80000000); max < 0x80000001 {
		return false
	}
	_, d := cpuid(0x80000001)
	return d&(1<<27) != 0
}()

// CPU returns the number of the CPU the calling thread runs on, or -1 where
// it cannot be read cheaply. It may be stale by the time it returns (the
// thread may move): a hint for a wait's policy, never for correctness.
// RDTSCP costs a few tens of cycles, where getcpu(2) is a system call.
func CPU() int {
	if !hasCPU {
		return -1
	}
	return int(rdtscpAux() & 0xfff)
}
