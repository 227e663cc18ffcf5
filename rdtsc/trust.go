package rdtsc

import (
	"fmt"
	"math"
)

// Trust is the evidence about whether the counter measures time correctly on
// this machine. Problems are reasons not to trust it; Notes are facts worth
// knowing that do not by themselves make it wrong.
type Trust struct {
	Counter     string   // "TSC", "CNTVCT_EL0", or "" where there is none
	Invariant   bool     // constant rate in all power states (CPUID 0x80000007 EDX[8] on x86)
	Hypervisor  string   // hypervisor vendor ("KVMKVMKVM" …) or "" on bare metal
	ClockSource string   // the kernel's current clock source ("tsc", "hpet", "kvm-clock" …)
	Available   []string // the clock sources the kernel offers
	CrossCore   *CrossCore
	Problems    []string
	Notes       []string
}

// OK reports whether no problem was found.
func (t Trust) OK() bool { return len(t.Problems) == 0 }

// kernelCounterSource is the name of the kernel clock source that reads the
// same counter as this package.
var kernelCounterSource = map[string]string{"TSC": "tsc", "CNTVCT_EL0": "arch_sys_counter"}

// CheckTrust gathers the evidence: the invariant-TSC bit, the hypervisor
// flag, the kernel's clock source and, when rounds > 0, a cross-core check
// with that many round trips per CPU (CheckCrossCore). It takes a few
// milliseconds per CPU for rounds = 2000.
func CheckTrust(rounds int) Trust {
	t := Trust{Counter: counterName, Invariant: invariant()}
	if t.Counter == "" {
		t.Problems = append(t.Problems, "no user-readable cycle counter on this architecture")
		return t
	}
	if !t.Invariant {
		t.Problems = append(t.Problems, "the TSC is not invariant (CPUID 0x80000007 EDX bit 8 clear): "+
			"its rate follows frequency changes and it may stop in deep sleep states")
	}
	if vm, vendor := hypervisor(); vm {
		t.Hypervisor = vendor
		if t.Hypervisor == "" {
			t.Hypervisor = "unknown"
		}
		t.Notes = append(t.Notes, fmt.Sprintf("running under a hypervisor (%s): the counter is virtualized, "+
			"and a live migration or a host without TSC scaling can change its rate", t.Hypervisor))
	}
	t.ClockSource, t.Available = clockSources()
	want := kernelCounterSource[t.Counter]
	switch t.ClockSource {
	case "":
		t.Notes = append(t.Notes, "the kernel's clock source is unknown (no sysfs)")
	case want:
	default:
		t.Problems = append(t.Problems, fmt.Sprintf("the kernel uses %q, not %q, as its clock source: "+
			"it may have found the counter unstable (see dmesg), and the OS clocks do not follow it",
			t.ClockSource, want))
	}
	if r, src := knownRate(); r > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%s states the rate: %.6f MHz", src, r/1e6))
	}
	if rounds > 0 {
		cc, err := CheckCrossCore(rounds)
		if err != nil {
			t.Notes = append(t.Notes, "cross-core check not done: "+err.Error())
		} else {
			t.CrossCore = cc
			t.Problems = append(t.Problems, cc.problems()...)
			if len(cc.CPUs) < 2 {
				t.Notes = append(t.Notes, "cross-core check: only one CPU allowed, nothing to compare")
			}
		}
	}
	return t
}

// CrossCore is the result of comparing the counters of all allowed CPUs with
// the counter of a reference CPU by round trips through shared memory.
//
// For a CPU j, a message from the reference to j carries the reference's
// counter; j reads its own counter on arrival. The smallest difference seen is
// latency + offset; in the other direction it is latency − offset. Half their
// difference estimates j's offset, and half their sum (the one-way latency)
// bounds the error of that estimate. A difference below zero — a read that
// came later on the clock of the world but shows an earlier value — is a warp,
// proof that the counters disagree.
type CrossCore struct {
	Reference int          // the reference CPU
	Rounds    int          // round trips per CPU
	CPUs      []CoreOffset // one per allowed CPU, the reference included
}

// CoreOffset is one CPU's counter compared with the reference CPU's.
type CoreOffset struct {
	CPU         int
	Offset      float64 // ticks, this CPU minus the reference
	Uncertainty float64 // ticks: |true offset − Offset| <= Uncertainty
	Warps       int     // reads that went backwards across the two CPUs
}

// MaxOffset returns the largest |Offset| and its Uncertainty.
func (c *CrossCore) MaxOffset() (offset, uncertainty float64) {
	for _, o := range c.CPUs {
		if math.Abs(o.Offset) >= math.Abs(offset) {
			offset, uncertainty = o.Offset, o.Uncertainty
		}
	}
	return offset, uncertainty
}

func (c *CrossCore) problems() []string {
	var ps []string
	for _, o := range c.CPUs {
		if o.Warps > 0 {
			ps = append(ps, fmt.Sprintf("cross-core: the counter went backwards %d times between CPU %d and CPU %d "+
				"(offset %.0f ± %.0f ticks): times taken on different CPUs cannot be compared",
				o.Warps, c.Reference, o.CPU, o.Offset, o.Uncertainty))
		}
	}
	return ps
}
