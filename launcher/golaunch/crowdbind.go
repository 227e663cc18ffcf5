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
// 80, Allreduce 124, 146 → 82, 98; 8 ranks equal or better.
//
// From twice the CPUs on (branch rsb11), in blocks below four times. The
// 4-rank runs above were mixed (measured at load 10-34); on a quiet machine
// an unbound 4-rank job on 2 CPUs is bimodal by launch: now and then the
// scheduler stacks three or four ranks that yield to each other on one CPU
// and moves them back and forth, and a small step then takes about 1.5x as
// long for the whole run (Reduce_scatter_block 8 B 4.6 against 3.2 µs, loop
// 9.2 against 6.3; the sweep's medians of three launches picked one mode or
// the other, which made the block form look 1.4 µs slower than
// Reduce_scatter). Bound two to a CPU, every launch ran in the fast mode.
// Consecutive ranks share a core there (ranks 0, 1 on the first, 2, 3 on
// the second): round-robin (0, 2 and 1, 3) was as fast for the small steps
// but slowed the chain of Scan and Exscan at 256 KiB-1 MiB (1 MiB 174/158
// µs against 147/113 in blocks and 160/113 unbound), whose neighbours then
// always sit on different CPUs (docs/PERFORMANCE.md, "Four ranks bound in
// pairs"). Below twice the CPUs (3 ranks on 2) nothing is stacked; from four
// times on the round-robin binding measured above stays. --bind-to none
// turns it off.

// crowdedBinding returns the binding for n ranks on a host with cpus usable
// CPUs when --bind-to was not given: core where n >= 2*cpus, none below
// (see crowdedBlocks for the order).
func crowdedBinding(n, cpus int) hwtopo.BindTo {
	if cpus > 0 && n >= 2*cpus {
		return hwtopo.BindCore
	}
	return hwtopo.BindNone
}

// crowdedBlocks reports whether the automatic binding of n ranks on cpus
// usable CPUs puts consecutive ranks on one core (inBlocks): from twice to
// below four times the CPUs.
func crowdedBlocks(n, cpus int) bool { return cpus > 0 && n >= 2*cpus && n < 4*cpus }

// inBlocks rearranges an oversubscribed plan, whose ranks take the cores
// round-robin in map order, so that consecutive ranks share a core: rank r
// takes the core of slot r·cores/n (4 ranks on 2 cores: 0, 1 on the first,
// 2, 3 on the second; 5: 0-2 and 3, 4).
func inBlocks(p *hwtopo.Plan) {
	n, cores := len(p.Slots), p.Cores
	if !p.Oversubscribed || cores < 1 || n <= cores {
		return
	}
	first := append([]hwtopo.Slot(nil), p.Slots[:cores]...) // slot j < cores: the j-th core of the map order
	share := make([]int, cores)
	for r := range n {
		share[r*cores/n]++
	}
	for r := range p.Slots {
		s := first[r*cores/n]
		s.Rank, s.Sharing = r, share[r*cores/n]
		p.Slots[r] = s
	}
}
