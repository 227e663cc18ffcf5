package main

import (
	"testing"

	"github.com/gompi/gompi/hwtopo"
)

func TestCrowdedBinding(t *testing.T) {
	for _, c := range []struct {
		n, cpus int
		want    hwtopo.BindTo
	}{
		{1, 2, hwtopo.BindNone}, {3, 2, hwtopo.BindNone}, {4, 2, hwtopo.BindCore}, {7, 2, hwtopo.BindCore},
		{8, 2, hwtopo.BindCore}, {64, 2, hwtopo.BindCore}, {31, 16, hwtopo.BindNone}, {32, 16, hwtopo.BindCore},
		{64, 16, hwtopo.BindCore}, {8, 0, hwtopo.BindNone},
	} {
		if got := crowdedBinding(c.n, c.cpus); got != c.want {
			t.Errorf("crowdedBinding(%d, %d) = %v, want %v", c.n, c.cpus, got, c.want)
		}
	}
}

func TestCrowdedBlocks(t *testing.T) {
	for _, c := range []struct {
		n, cpus int
		want    bool
	}{
		{2, 2, false}, {3, 2, false}, {4, 2, true}, {7, 2, true}, {8, 2, false}, {64, 2, false},
		{32, 16, true}, {64, 16, false}, {4, 0, false},
	} {
		if got := crowdedBlocks(c.n, c.cpus); got != c.want {
			t.Errorf("crowdedBlocks(%d, %d) = %v, want %v", c.n, c.cpus, got, c.want)
		}
	}
}

// TestInBlocks: consecutive ranks share a core, the cores' CPUs and the
// sharing counts follow, for every rank count from one core's worth up.
func TestInBlocks(t *testing.T) {
	for cores := 1; cores <= 3; cores++ {
		for n := 1; n <= 4*cores+1; n++ {
			p := &hwtopo.Plan{BindTo: hwtopo.BindCore, Cores: cores, Oversubscribed: n > cores}
			for r := range n { // round-robin, as hwtopo's Plan makes it
				c := r % cores
				p.Slots = append(p.Slots, hwtopo.Slot{Rank: r, Core: 10 + c, CPUs: hwtopo.CPUSet{c}})
			}
			inBlocks(p)
			count := map[int]int{}
			for r, s := range p.Slots {
				want := r % cores
				if n > cores {
					want = r * cores / n
				}
				if s.Rank != r || s.Core != 10+want || len(s.CPUs) != 1 || s.CPUs[0] != want {
					t.Fatalf("cores %d, n %d: rank %d got %+v, want core %d", cores, n, r, s, 10+want)
				}
				if r > 0 && s.Core < p.Slots[r-1].Core {
					t.Fatalf("cores %d, n %d: rank %d on core %d after rank %d on %d", cores, n, r, s.Core, r-1, p.Slots[r-1].Core)
				}
				count[s.Core]++
			}
			for _, s := range p.Slots {
				if n > cores && s.Sharing != count[s.Core] {
					t.Fatalf("cores %d, n %d: rank %d sharing %d, want %d", cores, n, s.Rank, s.Sharing, count[s.Core])
				}
			}
		}
	}
}
