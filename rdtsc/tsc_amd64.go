package rdtsc

import "strings"

// Implemented in tsc_amd64.s. None of these takes a pointer, so //go:noescape
// has nothing to say; the assembly is NOSPLIT|NOFRAME (no stack of its own).

// Start reads the time-stamp counter at the start of an interval
// (LFENCE; RDTSC): the read happens after all earlier instructions completed.
func Start() uint64

// Read reads the time-stamp counter with no fence (RDTSC alone): the
// cheapest read, which the processor may move by a few dozen cycles against
// the instructions around it. For stamping events (a trace), not for timing
// short intervals: use Start and End for those.
func Read() uint64

// End reads the time-stamp counter at the end of an interval
// (RDTSCP; LFENCE): the read waits for all earlier instructions, and no later
// instruction starts before it.
func End() uint64

func endAux() (tsc uint64, aux uint32)

func cpuidex(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// hasRDTSCP: CPUID 0x80000001, EDX bit 27 (End and readCPU run RDTSCP
// without asking: every x86-64 processor with an invariant TSC has it; CPU
// asks, as it names a CPU rather than timing).
func hasRDTSCP() bool {
	if top, _, _, _ := cpuidex(0x80000000, 0); top < 0x80000001 {
		return false
	}
	_, _, _, d := cpuidex(0x80000001, 0)
	return d&(1<<27) != 0
}

// counterName names the hardware counter that Start and End read.
const counterName = "TSC"

// knownRate returns the counter rate that the processor states, in Hz, and
// where it comes from, or 0 when it does not state one.
//
// CPUID leaf 0x15 gives the TSC rate as crystal Hz (ECX) × EBX / EAX on Intel
// processors since Skylake; ECX = 0 means the crystal is not enumerated, and
// we then do not guess it from the model number. AMD processors and most
// hypervisors leave the leaf empty, and the rate is measured instead.
func knownRate() (float64, string) {
	if max, _, _, _ := cpuidex(0, 0); max < 0x15 {
		return 0, ""
	}
	den, num, crystal, _ := cpuidex(0x15, 0)
	if den == 0 || num == 0 || crystal == 0 {
		return 0, ""
	}
	return float64(crystal) * float64(num) / float64(den), "CPUID leaf 0x15"
}

// invariant reports whether the counter runs at a constant rate in all
// P-, C- and T-states: CPUID leaf 0x80000007, EDX bit 8 ("invariant TSC",
// both Intel and AMD). cpuid/v2 does not expose this bit, so it is read here.
func invariant() bool {
	if max, _, _, _ := cpuidex(0x80000000, 0); max < 0x80000007 {
		return false
	}
	_, _, _, edx := cpuidex(0x80000007, 0)
	return edx&(1<<8) != 0
}

// hypervisor reports whether the processor says it runs under a hypervisor
// (CPUID leaf 1, ECX bit 31) and, if so, the hypervisor's vendor string
// (leaf 0x40000000: "KVMKVMKVM", "Microsoft Hv", ...). Read here, when
// CheckTrust asks, rather than through a CPU-detection package that probes
// every leaf at every program's start: a CPUID traps to the hypervisor, and
// those probes were a visible part of a rank's start-up (docs/PERFORMANCE.md,
// "Init and memory at 64 ranks").
func hypervisor() (bool, string) {
	if max, _, _, _ := cpuidex(0, 0); max < 1 {
		return false, ""
	}
	if _, _, ecx, _ := cpuidex(1, 0); ecx&(1<<31) == 0 {
		return false, ""
	}
	_, b, c, d := cpuidex(0x40000000, 0)
	v := make([]byte, 0, 12)
	for _, r := range []uint32{b, c, d} {
		v = append(v, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	return true, strings.TrimRight(string(v), "\x00")
}

// readCPU reads the counter at the end of an interval and the number of the
// CPU it ran on, from IA32_TSC_AUX, which Linux sets to (node << 12) | cpu.
func readCPU() (uint64, int) {
	t, aux := endAux()
	return t, int(aux & 0xfff)
}
