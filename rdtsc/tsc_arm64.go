package rdtsc

// Implemented in tsc_arm64.s. None of these takes a pointer, so //go:noescape
// has nothing to say; the assembly is NOSPLIT|NOFRAME (no stack of its own).

// Start reads the virtual counter CNTVCT_EL0 at the start of an interval
// (ISB; MRS): the read happens after all earlier instructions completed.
func Start() uint64

// Read reads the virtual counter with no barrier: the cheapest read, which
// may happen out of order with the instructions around it. For stamping
// events (a trace), not for timing short intervals.
func Read() uint64

// End reads the virtual counter at the end of an interval (ISB; MRS; ISB):
// the read waits for earlier instructions, and later ones wait for it.
func End() uint64

func counterFreq() uint64

// counterName names the hardware counter that Start and End read.
const counterName = "CNTVCT_EL0"

// knownRate returns the generic timer's frequency from CNTFRQ_EL0, which
// firmware programs and the architecture guarantees constant.
func knownRate() (float64, string) {
	if f := counterFreq(); f != 0 {
		return float64(f), "CNTFRQ_EL0"
	}
	return 0, ""
}

// invariant: the generic timer counts at a fixed frequency in every power
// state, and the architecture requires it to be synchronized across PEs.
// hypervisor: not detected on this architecture.
func hypervisor() (bool, string) { return false, "" }

func invariant() bool { return true }

// readCPU reads the counter; arm64 has no instruction that also names the
// CPU, so the CPU is reported as unknown (-1).
func readCPU() (uint64, int) { return End(), -1 }

func hasRDTSCP() bool { return false }
