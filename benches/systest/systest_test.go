package systest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gompi/gompi/benches/internal/report"
	"github.com/gompi/gompi/hwtopo"
)

func fixture(t *testing.T, name string) *hwtopo.Topology {
	t.Helper()
	tp, err := hwtopo.Load(filepath.Join("..", "..", "hwtopo", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// fakeNUMA is the sysfs of a machine with pkgs packages of nodesPer nodes
// of coresPer single-thread cores each, plus memOnly nodes without CPUs;
// distances are 10 local, 16 within a package, 22 across, 30 to
// memory-only nodes.
func fakeNUMA(t *testing.T, pkgs, nodesPer, coresPer, memOnly int) *hwtopo.Topology {
	t.Helper()
	fs := fstest.MapFS{}
	put := func(path, s string) { fs[path] = &fstest.MapFile{Data: []byte(s + "\n")} }
	cpus := pkgs * nodesPer * coresPer
	nodes := pkgs*nodesPer + memOnly
	put("sys/devices/system/cpu/online", fmt.Sprintf("0-%d", cpus-1))
	put("sys/devices/system/node/online", fmt.Sprintf("0-%d", nodes-1))
	put("sys/devices/system/node/possible", fmt.Sprintf("0-%d", nodes-1))
	for c := range cpus {
		dir := fmt.Sprintf("sys/devices/system/cpu/cpu%d/topology/", c)
		put(dir+"physical_package_id", fmt.Sprint(c/(nodesPer*coresPer)))
		put(dir+"core_id", fmt.Sprint(c%(nodesPer*coresPer)))
		put(dir+"core_cpus_list", fmt.Sprint(c))
	}
	for n := range nodes {
		dir := fmt.Sprintf("sys/devices/system/node/node%d/", n)
		list := ""
		if n < pkgs*nodesPer {
			list = fmt.Sprintf("%d-%d", n*coresPer, (n+1)*coresPer-1)
		}
		put(dir+"cpulist", list)
		put(dir+"meminfo", fmt.Sprintf("Node %d MemTotal:       8388608 kB", n))
		var d []string
		for m := range nodes {
			switch {
			case m == n:
				d = append(d, "10")
			case m >= pkgs*nodesPer || n >= pkgs*nodesPer:
				d = append(d, "30")
			case m/nodesPer == n/nodesPer:
				d = append(d, "16")
			default:
				d = append(d, "22")
			}
		}
		put(dir+"distance", strings.Join(d, " "))
	}
	tp, err := hwtopo.LoadFS(fs)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func TestPlanNUMA(t *testing.T) {
	cases := []struct {
		name   string
		topo   *hwtopo.Topology
		pairs  int
		single bool
		runs   []int // nodes run on, in order
	}{
		{"xeon 2 sockets, 2 nodes", fixture(t, "xeon-2s-smt"), 4, false, []int{0, 1}},
		{"4 nodes on 2 packages", fakeNUMA(t, 2, 2, 4, 0), 16, false, []int{0, 1, 2, 3}},
		{"3 nodes with CPUs and a memory-only node", fakeNUMA(t, 1, 3, 2, 1), 12, false, []int{0, 1, 2}},
		{"opteron 4 sockets, 8 nodes", fixture(t, "opteron-4s-6174"), 64, false, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{"one node", fakeNUMA(t, 1, 1, 2, 0), 1, true, []int{0}},
	}
	for _, c := range cases {
		pairs, single, err := planNUMA(c.topo)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(pairs) != c.pairs || single != c.single {
			t.Errorf("%s: %d pairs (single %v), want %d (%v)", c.name, len(pairs), single, c.pairs, c.single)
			continue
		}
		// Every pair runs on its node's CPUs, and each run node meets
		// every node, itself included.
		var runs []int
		mems := map[int]map[int]bool{}
		for _, p := range pairs {
			if len(runs) == 0 || runs[len(runs)-1] != p.Run {
				runs = append(runs, p.Run)
			}
			if mems[p.Run] == nil {
				mems[p.Run] = map[int]bool{}
			}
			mems[p.Run][p.Mem] = true
			for _, cpu := range p.CPUs {
				if info, ok := c.topo.CPU(cpu); !ok || (c.topo.NUMA && info.Node != p.Run) {
					t.Errorf("%s: pair %d→%d runs on CPU %d of node %d", c.name, p.Run, p.Mem, cpu, info.Node)
				}
			}
		}
		if fmt.Sprint(runs) != fmt.Sprint(c.runs) {
			t.Errorf("%s: runs on nodes %v, want %v", c.name, runs, c.runs)
		}
		for r, m := range mems {
			if !m[r] || len(m) != len(c.topo.Nodes) && c.topo.NUMA && !single {
				t.Errorf("%s: node %d reaches %d nodes (itself: %v), want all %d", c.name, r, len(m), m[r], len(c.topo.Nodes))
			}
		}
	}
	// A process allowed no CPU of any node cannot run the test.
	tp := fakeNUMA(t, 1, 2, 2, 0)
	tp.Allowed = hwtopo.CPUSet{99}
	if _, _, err := planNUMA(tp); err == nil {
		t.Error("no allowed CPU: no error")
	}
}

func TestNodeGraph(t *testing.T) {
	g := nodeGraph(fakeNUMA(t, 2, 2, 4, 1))
	for _, want := range []string{"node 0: 4 cores (CPUs 0-3)", "node 4: 0 cores (CPUs none)", "package 1: nodes 2-3", "distances:"} {
		if !strings.Contains(g, want) {
			t.Errorf("node graph lacks %q:\n%s", want, g)
		}
	}
	if g := nodeGraph(fixture(t, "xeon-2s-smt")); !strings.Contains(g, "node 1: 4 cores (CPUs 4-7,12-15)") {
		t.Errorf("xeon node graph:\n%s", g)
	}
}

// The placement modes of test 3 on a two-socket machine: scatter alternates
// sockets, compact fills socket 0 first, none binds nothing.
func TestModePlan(t *testing.T) {
	tp := fixture(t, "xeon-2s-smt")
	pkgs := func(mode string, n int) string {
		p, err := modePlan(tp, mode, n)
		if err != nil {
			t.Fatal(err)
		}
		if p == nil {
			return "unbound"
		}
		var s []string
		for _, sl := range p.Slots {
			s = append(s, fmt.Sprint(sl.Package))
		}
		return strings.Join(s, ",")
	}
	for _, c := range []struct {
		mode string
		n    int
		want string
	}{
		{"scatter", 4, "0,1,0,1"},
		{"compact", 4, "0,0,0,0"},
		{"compact", 6, "0,0,0,0,1,1"},
		{"none", 4, "unbound"},
	} {
		if got := pkgs(c.mode, c.n); got != c.want {
			t.Errorf("%s %d threads: packages %s, want %s", c.mode, c.n, got, c.want)
		}
	}
}

func TestPlacementNote(t *testing.T) {
	ok := placement{planned: hwtopo.CPUSet{0}, seen: map[int]int{0: 5}, nodes: map[int]int{0: 10}}
	off := placement{planned: hwtopo.CPUSet{1}, seen: map[int]int{0: 2, 1: 3}, nodes: map[int]int{0: 5, 1: 5}}
	free := placement{seen: map[int]int{0: 1, 1: 1}, nodes: map[int]int{}}
	if n := placementNote([]placement{ok}); n != "cpus 0 pages node0 100%" {
		t.Errorf("note %q", n)
	}
	if n := placementNote([]placement{ok, off}); !strings.Contains(n, "OFF-PLAN") || !strings.Contains(n, "node0 75%, node1 25%") {
		t.Errorf("thread seen off its CPU: note %q, want OFF-PLAN and the page shares", n)
	}
	if n := placementNote([]placement{free}); strings.Contains(n, "OFF-PLAN") || n != "cpus 0-1" {
		t.Errorf("unbound thread: note %q", n)
	}
}

func TestConfigCheck(t *testing.T) {
	tp := fakeNUMA(t, 1, 1, 2, 0)
	cases := []struct {
		name string
		edit func(c *Config)
		ok   bool
	}{
		{"defaults", func(c *Config) {}, true},
		{"quick", func(c *Config) { c.quick(func(string) bool { return false }) }, true},
		{"more memory than exists", func(c *Config) { c.MaxBlock = 64 << 30 }, false},
		{"thread blocks beyond memory", func(c *Config) { c.ThreadBlock = 8 << 30 }, false},
		{"tiny block", func(c *Config) { c.MinBlock = 8 }, false},
		{"max below min", func(c *Config) { c.MinBlock, c.MaxBlock = 1<<20, 1<<10 }, false},
		{"load", func(c *Config) { c.Loads = []string{"most"} }, false},
		{"mode", func(c *Config) { c.Modes = []string{"spread"} }, false},
		{"waiters", func(c *Config) { c.Waiters = []int{-1} }, false},
		{"alpha", func(c *Config) { c.Judge.Alpha = 2 }, false},
		{"start", func(c *Config) { c.Rounds.Start = 0 }, false},
		{"netns", func(c *Config) { c.Netns = "maybe" }, false},
	}
	for _, c := range cases {
		cfg := DefaultConfig()
		c.edit(cfg)
		err := cfg.Check(tp, 8<<30)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrParam)) {
			t.Errorf("%s: err %v, want ok %v (and ErrParam when not)", c.name, err, c.ok)
		}
	}
	cfg := DefaultConfig()
	if err := cfg.setTests([]string{"memwrite,nosuch"}); !errors.Is(err, ErrParam) || !strings.Contains(err.Error(), "unknown test \"nosuch\"") {
		t.Errorf("unknown test: %v", err)
	}
	if err := cfg.setTests([]string{"numa", "threads"}); err != nil || fmt.Sprint(cfg.Tests) != "[threads numa]" {
		t.Errorf("tests %v (%v), want the seed's order", cfg.Tests, err)
	}
	if err := cfg.setTests([]string{"all"}); err != nil || len(cfg.Tests) != 5 {
		t.Errorf("all: %v %v", cfg.Tests, err)
	}
}

func TestHistogram(t *testing.T) {
	lo, hi, counts := histogram([]float64{1, 2, 2, 3, 10}, 3)
	if lo != 1 || hi != 10 || fmt.Sprint(counts) != "[4 0 1]" {
		t.Errorf("histogram: %v %v %v", lo, hi, counts)
	}
	if _, _, counts := histogram([]float64{5, 5}, 2); fmt.Sprint(counts) != "[0 2]" {
		t.Errorf("constant sample: %v", counts)
	}
}

// The short tests run end to end on this machine with tiny parameters:
// every row is either accepted by a named criterion or says it is not.
func TestRunSmall(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Format = report.JSON
	cfg.CC = "none"
	cfg.Quiet = true
	cfg.MinBlock, cfg.MaxBlock, cfg.BlockFactor = 1<<10, 64<<10, 8
	cfg.ThreadBlock, cfg.NUMABlock = 1<<20, 1<<20
	cfg.Rounds.Budget = 20e6 // 20ms
	cfg.Rounds.Start = 20
	cfg.PlotDir = t.TempDir()
	if err := cfg.setTests([]string{"memwrite,multiwrite,numa"}); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if err := Run(cfg, nil, &out, &errs); err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	rows := 0
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		rows++
		st, _ := r["accepted"].(string)
		if st != "pearson" && st != "spread" && st != "interval" && !strings.HasPrefix(st, "NOT accepted") {
			t.Errorf("row %v: status %q", r, st)
		}
		if r["cmd"] == nil || r["cpu"] == nil || r["date"] == nil {
			t.Errorf("row without provenance: %v", r)
		}
	}
	if rows < 5 {
		t.Errorf("%d rows, want memwrite, multiwrite and numa rows:\n%s", rows, out.String())
	}
	for _, name := range []string{"memwrite-time.svg", "memwrite-rate.svg", "multiwrite.svg"} {
		b, err := os.ReadFile(filepath.Join(cfg.PlotDir, name))
		if err != nil || !bytes.HasPrefix(b, []byte("<svg")) {
			t.Errorf("plot %s: %d bytes, %v", name, len(b), err)
		}
	}
}
