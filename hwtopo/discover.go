package hwtopo

import (
	"os"

	"github.com/klauspost/cpuid/v2"
	"github.com/klauspost/cpuid/v2/topology"
)

// Discover describes this machine: from sysfs where it is readable, else
// from CPUID on every allowed CPU (cpuid/v2's ScanTopology, which knows
// nothing of NUMA). Allowed is the process's CPU affinity, so a launcher
// inside a cgroup or under taskset plans on the CPUs it may really use.
func Discover() (*Topology, error) {
	t, err := Load("/")
	if err != nil {
		sys, scanErr := cpuid.ScanTopology()
		if sys == nil {
			return nil, err
		}
		t = FromCPUID(sys)
		if scanErr != nil {
			t.Source = "cpuid (extrapolated from one core)"
		}
		r := reader{fsys: os.DirFS("/")}
		t.MemTotal, _ = r.meminfo("proc/meminfo", "MemTotal:")
	}
	if t.Vendor == "" {
		t.Vendor = cpuid.CPU.VendorString
	}
	if t.Model == "" {
		t.Model = cpuid.CPU.BrandName
	}
	if allowed, err := Affinity(os.Getpid()); err == nil {
		t.Allowed = allowed.Intersect(t.Online)
	}
	return t, nil
}

// FromCPUID converts cpuid/v2's topology (packages, LLC groups, cores,
// threads, caches) into a Topology. Thread IDs become CPU numbers, which
// they are when the tree comes from a per-CPU scan. It has no NUMA nodes.
func FromCPUID(sys *topology.System) *Topology {
	t := &Topology{Source: "cpuid", Vendor: sys.Vendor}
	cacheOf := func(c topology.Cache, cpus CPUSet) {
		if c.Size > 0 && len(cpus) > 0 {
			t.Caches = append(t.Caches, Cache{Level: c.Level, Type: CacheType(c.Type.String()),
				Size: int64(c.Size), LineSize: c.LineSize, CPUs: cpus})
		}
	}
	for _, p := range sys.Packages {
		var pkgCPUs CPUSet
		for _, g := range p.Groups {
			var groupCPUs CPUSet
			for _, c := range g.Cores {
				var cpus CPUSet
				for _, th := range c.Threads {
					cpus = append(cpus, th.ID)
				}
				cpus = NewCPUSet(cpus...)
				for _, th := range c.Threads {
					t.CPUs = append(t.CPUs, CPU{ID: th.ID, Package: p.ID, Core: len(t.Cores), CoreID: c.ID, Node: -1})
				}
				t.Cores = append(t.Cores, Core{Package: p.ID, CoreID: c.ID, CPUs: cpus, Node: -1})
				for _, k := range c.Caches {
					cacheOf(k, cpus)
				}
				groupCPUs = groupCPUs.Union(cpus)
			}
			for _, k := range g.Caches {
				cacheOf(k, groupCPUs)
			}
			pkgCPUs = pkgCPUs.Union(groupCPUs)
		}
		for _, k := range p.Caches {
			cacheOf(k, pkgCPUs)
		}
		t.Online = t.Online.Union(pkgCPUs)
	}
	t.Allowed = t.Online
	sortCPUs(t.CPUs)
	t.order()
	return t
}
