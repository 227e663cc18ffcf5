package hwtopo

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gompi/gompi/internal/golden"
)

func load(t *testing.T, name string) *Topology {
	t.Helper()
	tp, err := Load(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("Load(%s): %v", name, err)
	}
	return tp
}

func cs(list string) CPUSet {
	s, err := ParseCPUList(list)
	if err != nil {
		panic(err)
	}
	return s
}

// want is the exact topology a snapshot must give.
type want struct {
	vendor, model string
	online        string
	packages      []string // CPUs of each package, in ID order
	pkgNodes      []string // NUMA nodes of each package
	cores         []string // CPUs of each core, in order
	coreIDs       []int
	caches        map[string][]string // cache name → CPUs of each instance, in order
	cacheSizes    map[string]int64
	nodes         []string // CPUs of each node
	nodeMemKB     []int64
	distances     [][]int
}

var snapshots = map[string]want{
	"epyc-2vcpu-kvm": {
		vendor: "AuthenticAMD", model: "AMD EPYC",
		online:   "0-1",
		packages: []string{"0-1"}, pkgNodes: []string{"0"},
		cores:   []string{"0", "1"},
		coreIDs: []int{0, 1},
		caches: map[string][]string{
			"L3": {"0-1"}, "L2": {"0", "1"}, "L1d": {"0", "1"}, "L1i": {"0", "1"},
		},
		cacheSizes: map[string]int64{"L3": 32 << 20, "L2": 1 << 20, "L1d": 32 << 10, "L1i": 32 << 10},
		nodes:      []string{"0-1"},
		nodeMemKB:  []int64{4286680},
		distances:  [][]int{{10}},
	},
	"xeon-2s-smt": {
		vendor: "GenuineIntel", model: "Intel(R) Xeon(R) CPU E5-2637 v4 @ 3.50GHz",
		online:   "0-15",
		packages: []string{"0-3,8-11", "4-7,12-15"}, pkgNodes: []string{"0", "1"},
		cores:   []string{"0,8", "1,9", "2,10", "3,11", "4,12", "5,13", "6,14", "7,15"},
		coreIDs: []int{0, 2, 8, 10, 0, 2, 8, 10},
		caches: map[string][]string{
			"L3":  {"0-3,8-11", "4-7,12-15"},
			"L2":  {"0,8", "1,9", "2,10", "3,11", "4,12", "5,13", "6,14", "7,15"},
			"L1d": {"0,8", "1,9", "2,10", "3,11", "4,12", "5,13", "6,14", "7,15"},
			"L1i": {"0,8", "1,9", "2,10", "3,11", "4,12", "5,13", "6,14", "7,15"},
		},
		cacheSizes: map[string]int64{"L3": 15 << 20, "L2": 256 << 10, "L1d": 32 << 10, "L1i": 32 << 10},
		nodes:      []string{"0-3,8-11", "4-7,12-15"},
		nodeMemKB:  []int64{32827228, 33026476},
		distances:  [][]int{{10, 21}, {21, 10}},
	},
	"opteron-4s-6174": {
		vendor: "AuthenticAMD", model: "AMD Opteron(tm) Processor 6174",
		online:   "0-47",
		packages: []string{"0-11", "12-23", "24-35", "36-47"},
		pkgNodes: []string{"0-1", "2-3", "4-5", "6-7"},
		cores:    seq(48),
		coreIDs:  repeat([]int{0, 1, 2, 3, 4, 5}, 8),
		caches: map[string][]string{
			"L3":  {"0-5", "6-11", "12-17", "18-23", "24-29", "30-35", "36-41", "42-47"},
			"L2":  seq(48),
			"L1d": seq(48),
			"L1i": seq(48),
		},
		cacheSizes: map[string]int64{"L3": 5118 << 10, "L2": 512 << 10, "L1d": 64 << 10, "L1i": 64 << 10},
		nodes:      []string{"0-5", "6-11", "12-17", "18-23", "24-29", "30-35", "36-41", "42-47"},
		nodeMemKB:  []int64{16513276, 16777216, 16777216, 16777216, 16777216, 16777216, 16777216, 16760832},
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

func seq(n int) []string {
	var s []string
	for i := range n {
		s = append(s, CPUSet{i}.String())
	}
	return s
}

func repeat(x []int, n int) []int {
	var s []int
	for range n {
		s = append(s, x...)
	}
	return s
}

func TestLoadSnapshots(t *testing.T) {
	for name, w := range snapshots {
		t.Run(name, func(t *testing.T) {
			tp := load(t, name)
			if tp.Vendor != w.vendor || tp.Model != w.model || tp.Source != "sysfs" {
				t.Errorf("vendor %q model %q source %q", tp.Vendor, tp.Model, tp.Source)
			}
			if tp.Online.String() != w.online || !tp.Allowed.Equal(tp.Online) {
				t.Errorf("online %q allowed %q, want %q", tp.Online, tp.Allowed, w.online)
			}
			var pk, pn []string
			for _, p := range tp.Packages {
				pk = append(pk, p.CPUs.String())
				pn = append(pn, p.Nodes.String())
			}
			check(t, "packages", pk, w.packages)
			check(t, "package nodes", pn, w.pkgNodes)
			var cores []string
			var ids []int
			for _, c := range tp.Cores {
				cores = append(cores, c.CPUs.String())
				ids = append(ids, c.CoreID)
			}
			check(t, "cores", cores, w.cores)
			check(t, "core IDs", ids, w.coreIDs)
			caches := map[string][]string{}
			for _, c := range tp.Caches {
				caches[c.Name()] = append(caches[c.Name()], c.CPUs.String())
				if c.Size != w.cacheSizes[c.Name()] || c.LineSize != 64 {
					t.Errorf("%s on %s: size %d line %d, want %d 64", c.Name(), c.CPUs, c.Size, c.LineSize, w.cacheSizes[c.Name()])
				}
			}
			for k, v := range w.caches {
				check(t, "cache "+k, caches[k], v)
			}
			if len(caches) != len(w.caches) {
				t.Errorf("cache kinds %v, want %v", caches, w.caches)
			}
			var nodes []string
			var mem []int64
			var total int64
			for _, n := range tp.Nodes {
				nodes = append(nodes, n.CPUs.String())
				mem = append(mem, n.MemTotal>>10)
				total += n.MemTotal
			}
			check(t, "nodes", nodes, w.nodes)
			check(t, "node memory kB", mem, w.nodeMemKB)
			if !tp.NUMA || tp.MemTotal != total {
				t.Errorf("NUMA %v MemTotal %d, want true %d", tp.NUMA, tp.MemTotal, total)
			}
			for i, row := range w.distances {
				check(t, "distances", tp.Distances[i], row)
				for j, d := range row {
					if got, ok := tp.Distance(tp.Nodes[i].ID, tp.Nodes[j].ID); !ok || got != d {
						t.Errorf("Distance(%d, %d) = %d, %v; want %d", i, j, got, ok, d)
					}
				}
			}
			// Every CPU points at its core, package and node consistently.
			for _, c := range tp.CPUs {
				core := tp.Cores[c.Core]
				if !core.CPUs.Contains(c.ID) || core.Package != c.Package || core.Node != c.Node {
					t.Errorf("cpu%d: %+v, its core %+v", c.ID, c, core)
				}
				if got, ok := tp.CPU(c.ID); !ok || got != c {
					t.Errorf("CPU(%d) = %+v, %v", c.ID, got, ok)
				}
				if !slices.ContainsFunc(tp.Nodes, func(n Node) bool { return n.ID == c.Node && n.CPUs.Contains(c.ID) }) {
					t.Errorf("cpu%d: node %d does not list it", c.ID, c.Node)
				}
			}
			if _, ok := tp.CPU(4096); ok {
				t.Error("CPU(4096) found")
			}
			if _, ok := tp.Distance(0, 99); ok {
				t.Error("Distance to node 99 found")
			}
		})
	}
}

func check[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %v\nwant %v", what, got, want)
	}
}

// TestGolden compares the lstopo-style text and the SVG drawing of every
// snapshot with testdata/<name>.txt and .svg (go test -update rewrites them).
func TestGolden(t *testing.T) {
	for name := range snapshots {
		tp := load(t, name)
		for _, out := range []struct {
			ext   string
			write func(*Topology, *bytes.Buffer) error
		}{
			{".txt", func(tp *Topology, b *bytes.Buffer) error { return tp.WriteText(b) }},
			{".svg", func(tp *Topology, b *bytes.Buffer) error { return tp.WriteSVG(b) }},
		} {
			var b bytes.Buffer
			if err := out.write(tp, &b); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", name+out.ext), b.Bytes())
		}
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	for name := range snapshots {
		dst := t.TempDir()
		if err := Snapshot(filepath.Join("testdata", name), dst); err != nil {
			t.Fatal(err)
		}
		a, b := load(t, name), must(Load(dst))
		var ta, tb bytes.Buffer
		a.WriteText(&ta)
		b.WriteText(&tb)
		if ta.String() != tb.String() || a.Model != b.Model {
			t.Errorf("%s: the snapshot of the snapshot differs:\n%s\n%s", name, ta.String(), tb.String())
		}
	}
	if err := Snapshot(t.TempDir(), t.TempDir()); err == nil {
		t.Error("Snapshot of an empty directory: no error")
	}
}

func must(t *Topology, err error) *Topology {
	if err != nil {
		panic(err)
	}
	return t
}

// TestNoNUMA: a kernel without NUMA has no node directory; the topology says
// so and takes the memory size from /proc/meminfo.
func TestNoNUMA(t *testing.T) {
	dst := t.TempDir()
	if err := Snapshot(filepath.Join("testdata", "epyc-2vcpu-kvm"), dst); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dst, "sys/devices/system/node")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, "proc/meminfo"), []byte("MemTotal:        2048 kB\nMemFree: 1 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tp := must(Load(dst))
	if tp.NUMA || len(tp.Nodes) != 0 || tp.MemTotal != 2048<<10 || tp.CPUs[0].Node != -1 {
		t.Errorf("without NUMA: NUMA %v nodes %v mem %d cpu0 node %d", tp.NUMA, tp.Nodes, tp.MemTotal, tp.CPUs[0].Node)
	}
	var b bytes.Buffer
	tp.WriteText(&b)
	if want := "Machine (2048KB total)\n  Package L#0 + L3 L#0 (32MB)\n"; !bytes.HasPrefix(b.Bytes(), []byte(want)) {
		t.Errorf("text without NUMA:\n%s", b.String())
	}
}

func TestMemSize(t *testing.T) {
	cases := []struct {
		b    int64
		want string
	}{
		{32 << 10, "32KB"}, {5118 << 10, "5118KB"}, {10 << 20, "10MB"}, {4286680 << 10, "4186MB"},
		{10 << 30, "10GB"}, {16513276 << 10, "15GB"},
	}
	for _, c := range cases {
		if got := memSize(c.b); got != c.want {
			t.Errorf("memSize(%d) = %q, want %q", c.b, got, c.want)
		}
	}
}
