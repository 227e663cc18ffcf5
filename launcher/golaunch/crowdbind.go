package main

import "github.com/gompi/gompi/hwtopo"

// Binding on a crowded host. Where ranks outnumber the usable CPUs four
// times or more (the shared-memory collectives' crowded mode), golaunch
// binds each rank to a core unless --bind-to was given: pinned, the ranks
// sharing a CPU take turns on it without the scheduler moving them between
// CPUs. Measured on 2 CPUs (docs/PERFORMANCE.md, "64 ranks on 2 CPUs: where
// a step's time goes"; golaunch --bind-to none against core, alternated,
// µs per call): 64 ranks barrier 578, 539 → 504, 521, Allreduce 8 B 609,
// 628 → 594, 530, Allgather 8 B 617 → 532, and with perf stat 771, 777 →
// 626, 618 with 20 % fewer context switches; 16 ranks barrier 122, 90 → 82,
// 80, Allreduce 124, 146 → 82, 98; 8 ranks equal or better; at 4 ranks mixed,
// so 4 ranks on 2 CPUs stay unbound. --bind-to none turns it off.

// crowdedBinding returns the binding for n ranks on a host with cpus usable
// CPUs when --bind-to was not given: core where n >= 4*cpus, none below.
func crowdedBinding(n, cpus int) hwtopo.BindTo {
	if cpus > 0 && n >= 4*cpus {
		return hwtopo.BindCore
	}
	return hwtopo.BindNone
}
