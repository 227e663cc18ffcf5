// Command gensysfs writes the synthetic sysfs snapshots under
// hwtopo/testdata: the files hwtopo.Load reads, as the Linux of each machine's
// era would show them. The snapshot of the machine the project was developed
// on is not generated but copied (benches topo --snapshot DIR).
//
//	go run ./hwtopo/internal/gensysfs -out hwtopo/testdata
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/gompi/gompi/hwtopo"
)

// machine describes a box to synthesize.
type machine struct {
	dir            string
	vendor, model  string
	packages       int
	coresPerPkg    int
	threadsPerCore int
	// cpuOf numbers the logical CPU of (package, core, thread) as the
	// kernel enumerates them.
	cpuOf func(pkg, core, thread int) int
	// coreID is the kernel's core_id of the core-th core of a package.
	coreID func(core int) int
	// newKernel: Linux 5.x files (core_cpus_list, die_id); else only the
	// 2.6-era thread_siblings_list.
	newKernel bool
	caches    []cache
	// nodeOf is the NUMA node of (package, core); memKB the node's MemTotal.
	nodeOf    func(pkg, core int) int
	memKB     []int64
	distances [][]int
}

type cache struct {
	level      int
	typ        string
	size       string // as sysfs shows it: "32K"
	line       int
	coresShare int // consecutive cores of a package sharing one instance
}

func main() {
	out := flag.String("out", "hwtopo/testdata", "directory to write the snapshots into")
	flag.Parse()
	for _, m := range machines {
		if err := write(filepath.Join(*out, m.dir), m); err != nil {
			log.Fatal(err)
		}
	}
}

var machines = []machine{
	{
		// Two Xeon E5-2637 v4 (Broadwell-EP, 4 cores, 2 threads each, 15 MB
		// L3 per socket). Linux numbers the first thread of every core of
		// every socket first, then the second threads; core IDs come from the
		// die and are not contiguous (the parts are cut-down 10-core dies).
		dir:    "xeon-2s-smt",
		vendor: "GenuineIntel", model: "Intel(R) Xeon(R) CPU E5-2637 v4 @ 3.50GHz",
		packages: 2, coresPerPkg: 4, threadsPerCore: 2,
		cpuOf:     func(p, c, t int) int { return t*8 + p*4 + c },
		coreID:    func(c int) int { return []int{0, 2, 8, 10}[c] },
		newKernel: true,
		caches: []cache{
			{1, "Data", "32K", 64, 1}, {1, "Instruction", "32K", 64, 1},
			{2, "Unified", "256K", 64, 1}, {3, "Unified", "15360K", 64, 4},
		},
		nodeOf:    func(p, c int) int { return p },
		memKB:     []int64{32827228, 33026476},
		distances: [][]int{{10, 21}, {21, 10}},
	},
	{
		// Four Opteron 6174 (Magny-Cours): each package is two six-core dies,
		// each die its own NUMA node with a 6 MB L3 (5118 KB usable, the
		// rest holds the HT Assist probe filter). No SMT. A 2.6.32 kernel:
		// core_id runs 0-5 on each die, so two cores of one package share
		// each core_id, and only thread_siblings_list tells cores apart.
		// 128 GB, 16 GB per node; distances as numactl shows on 4P G34 boxes.
		dir:    "opteron-4s-6174",
		vendor: "AuthenticAMD", model: "AMD Opteron(tm) Processor 6174",
		packages: 4, coresPerPkg: 12, threadsPerCore: 1,
		cpuOf:  func(p, c, t int) int { return p*12 + c },
		coreID: func(c int) int { return c % 6 },
		caches: []cache{
			{1, "Data", "64K", 64, 1}, {1, "Instruction", "64K", 64, 1},
			{2, "Unified", "512K", 64, 1}, {3, "Unified", "5118K", 64, 6},
		},
		nodeOf: func(p, c int) int { return p*2 + c/6 },
		memKB: []int64{16513276, 16777216, 16777216, 16777216,
			16777216, 16777216, 16777216, 16760832},
		distances: [][]int{
			{10, 16, 16, 22, 16, 22, 16, 22},
			{16, 10, 22, 16, 22, 16, 22, 16},
			{16, 22, 10, 16, 16, 22, 16, 22},
			{22, 16, 16, 10, 22, 16, 22, 16},
			{16, 22, 16, 22, 10, 16, 16, 22},
			{22, 16, 22, 16, 16, 10, 22, 16},
			{16, 22, 16, 22, 16, 22, 10, 16},
			{22, 16, 22, 16, 22, 16, 16, 10},
		},
	},
}

func write(root string, m machine) error {
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	files := map[string]string{}
	put := func(name, content string) { files[name] = content + "\n" }

	ncpu := m.packages * m.coresPerPkg * m.threadsPerCore
	all := make([]int, ncpu)
	for i := range all {
		all[i] = i
	}
	put("sys/devices/system/cpu/online", hwtopo.NewCPUSet(all...).String())
	put("proc/cpuinfo", fmt.Sprintf("processor\t: 0\nvendor_id\t: %s\nmodel name\t: %s", m.vendor, m.model))

	nodeCPUs := map[int][]int{}
	for p := range m.packages {
		for c := range m.coresPerPkg {
			var threads []int
			for t := range m.threadsPerCore {
				threads = append(threads, m.cpuOf(p, c, t))
			}
			siblings := hwtopo.NewCPUSet(threads...).String()
			n := m.nodeOf(p, c)
			nodeCPUs[n] = append(nodeCPUs[n], threads...)
			for _, cpu := range threads {
				dir := fmt.Sprintf("sys/devices/system/cpu/cpu%d/", cpu)
				put(dir+"topology/physical_package_id", fmt.Sprint(p))
				put(dir+"topology/core_id", fmt.Sprint(m.coreID(c)))
				put(dir+"topology/thread_siblings_list", siblings)
				if m.newKernel {
					put(dir+"topology/core_cpus_list", siblings)
				}
				for i, k := range m.caches {
					first := c / k.coresShare * k.coresShare
					var shared []int
					for cc := first; cc < first+k.coresShare; cc++ {
						for t := range m.threadsPerCore {
							shared = append(shared, m.cpuOf(p, cc, t))
						}
					}
					idx := fmt.Sprintf("%scache/index%d/", dir, i)
					put(idx+"level", fmt.Sprint(k.level))
					put(idx+"type", k.typ)
					put(idx+"size", k.size)
					put(idx+"coherency_line_size", fmt.Sprint(k.line))
					put(idx+"shared_cpu_list", hwtopo.NewCPUSet(shared...).String())
				}
			}
		}
	}

	var nodes []int
	for n := range m.memKB {
		nodes = append(nodes, n)
		dir := fmt.Sprintf("sys/devices/system/node/node%d/", n)
		put(dir+"cpulist", hwtopo.NewCPUSet(nodeCPUs[n]...).String())
		var d []string
		for _, v := range m.distances[n] {
			d = append(d, fmt.Sprint(v))
		}
		put(dir+"distance", strings.Join(d, " "))
		put(dir+"meminfo", fmt.Sprintf("Node %d MemTotal:       %d kB\nNode %d MemFree:        %d kB",
			n, m.memKB[n], n, m.memKB[n]*9/10))
	}
	put("sys/devices/system/node/online", hwtopo.NewCPUSet(nodes...).String())
	put("sys/devices/system/node/possible", hwtopo.NewCPUSet(nodes...).String())

	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("%s: %d files\n", root, len(files))
	return nil
}
