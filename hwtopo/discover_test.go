package hwtopo

import (
	"testing"

	"github.com/klauspost/cpuid/v2/topology"
)

func TestFromCPUID(t *testing.T) {
	// One package, two LLC groups (CCXs) of two 2-thread cores each.
	l1 := topology.Cache{Level: 1, Type: topology.Data, Size: 32 << 10, LineSize: 64}
	l2 := topology.Cache{Level: 2, Type: topology.Unified, Size: 1 << 20, LineSize: 64}
	l3 := topology.Cache{Level: 3, Type: topology.Unified, Size: 16 << 20, LineSize: 64}
	core := func(id, a, b int) topology.Core {
		return topology.Core{ID: id, Threads: []topology.Thread{{ID: a}, {ID: b}}, Caches: []topology.Cache{l1, l2}}
	}
	sys := &topology.System{Vendor: "AuthenticAMD", Scanned: true, Packages: []topology.Package{{
		ID: 0,
		Groups: []topology.Group{
			{ID: 0, Cores: []topology.Core{core(0, 0, 4), core(1, 1, 5)}, Caches: []topology.Cache{l3}},
			{ID: 1, Cores: []topology.Core{core(2, 2, 6), core(3, 3, 7)}, Caches: []topology.Cache{l3}},
		},
	}}}
	tp := FromCPUID(sys)
	if tp.Source != "cpuid" || tp.Vendor != "AuthenticAMD" || tp.NUMA || tp.Online.String() != "0-7" {
		t.Errorf("source %q vendor %q NUMA %v online %q", tp.Source, tp.Vendor, tp.NUMA, tp.Online)
	}
	var cores, l3s []string
	for _, c := range tp.Cores {
		cores = append(cores, c.CPUs.String())
	}
	for _, c := range tp.Caches {
		if c.Level == 3 {
			l3s = append(l3s, c.CPUs.String())
		}
	}
	check(t, "cores", cores, []string{"0,4", "1,5", "2,6", "3,7"})
	check(t, "L3", l3s, []string{"0-1,4-5", "2-3,6-7"})
	if len(tp.Caches) != 2+4+4 || len(tp.CPUs) != 8 || tp.CPUs[5].Core != 1 {
		t.Errorf("caches %d, cpus %d, cpu5 core %d", len(tp.Caches), len(tp.CPUs), tp.CPUs[5].Core)
	}
	if p, err := tp.Plan(2, MapByCore, BindCore); err != nil || p.Slots[1].CPUs.String() != "1,5" {
		t.Errorf("plan on a CPUID topology: %+v, %v", p, err)
	}
}

func TestDiscover(t *testing.T) {
	tp, err := Discover()
	if err != nil {
		t.Fatal(err)
	}
	if len(tp.CPUs) == 0 || len(tp.Cores) == 0 || len(tp.Packages) == 0 || len(tp.Allowed) == 0 {
		t.Fatalf("Discover found nothing: %+v", tp)
	}
	if !tp.Allowed.SubsetOf(tp.Online) {
		t.Errorf("allowed %q not within online %q", tp.Allowed, tp.Online)
	}
	t.Logf("%s: %s, %d packages, %d cores, %d CPUs, NUMA %v, %d MB", tp.Source, tp.Model,
		len(tp.Packages), len(tp.Cores), len(tp.CPUs), tp.NUMA, tp.MemTotal>>20)
}

// TestCoreOrder: cores are ordered by package, then first CPU, whatever order
// they were found in, and every CPU still points at its own core.
func TestCoreOrder(t *testing.T) {
	one := func(id, cpu int) topology.Core { return topology.Core{ID: id, Threads: []topology.Thread{{ID: cpu}}} }
	sys := &topology.System{Packages: []topology.Package{
		{ID: 1, Groups: []topology.Group{{Cores: []topology.Core{one(0, 1), one(1, 0)}}}},
		{ID: 0, Groups: []topology.Group{{Cores: []topology.Core{one(0, 3), one(1, 2)}}}},
	}}
	tp := FromCPUID(sys)
	var cores []string
	for _, c := range tp.Cores {
		cores = append(cores, c.CPUs.String())
	}
	check(t, "cores", cores, []string{"2", "3", "0", "1"})
	for _, c := range tp.CPUs {
		if !tp.Cores[c.Core].CPUs.Equal(CPUSet{c.ID}) {
			t.Errorf("cpu%d points at core %d (%v)", c.ID, c.Core, tp.Cores[c.Core].CPUs)
		}
	}
	if tp.Packages[0].ID != 0 || tp.Packages[0].CPUs.String() != "2-3" {
		t.Errorf("packages %+v", tp.Packages)
	}
}
