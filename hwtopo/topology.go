// Package hwtopo describes the machine — packages, cores, hardware threads,
// caches, NUMA nodes with their memory and distances — and binds threads,
// processes and memory to parts of it.
//
// The description comes from Linux sysfs, read below a root directory so that
// a snapshot of another machine's files (testdata/) reads the same way as
// this machine's, or from CPUID through cpuid/v2 where sysfs is not there.
// Nothing is guessed: what the files do not say stays empty, and what the
// kernel refuses is reported with an error wrapping ErrNotSupported.
package hwtopo

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Topology is one machine. The slices are ordered: CPUs by number, Packages
// by ID, Cores by package then first CPU, Caches by level (highest first),
// then type, then first CPU, Nodes by ID. A Topology is read-only after Load
// and safe to share.
type Topology struct {
	Root   string // the root directory read ("/" for this machine), "" for CPUID
	Source string // "sysfs" or "cpuid"
	Vendor string // "GenuineIntel", "AuthenticAMD" …, "" when unknown
	Model  string // the processor's model name, "" when unknown

	Online  CPUSet // online logical CPUs
	Allowed CPUSet // CPUs this process may run on; Online for a snapshot

	CPUs     []CPU
	Cores    []Core
	Packages []Package
	Caches   []Cache

	// NUMA says whether the kernel describes NUMA nodes. When false, Nodes
	// and Distances are empty and memory binding is not supported.
	NUMA      bool
	Nodes     []Node
	Distances [][]int // Distances[i][j]: ACPI SLIT distance from Nodes[i] to Nodes[j] (10 = local)

	MemTotal int64 // bytes of memory: the sum over nodes, or /proc/meminfo without NUMA
}

// CPU is one logical processor (a hardware thread, hwloc's PU).
type CPU struct {
	ID      int // the OS number, as in /sys/devices/system/cpu/cpuN
	Package int // physical package ID
	Core    int // index into Topology.Cores
	CoreID  int // the kernel's core_id: unique only within a package, and not even there on some AMD parts
	Node    int // NUMA node ID, -1 without NUMA
}

// Core is one physical core and its hardware threads.
type Core struct {
	Package int    // physical package ID
	CoreID  int    // the kernel's core_id of its first CPU
	CPUs    CPUSet // its hardware threads
	Node    int    // NUMA node ID, -1 without NUMA
}

// Package is one socket.
type Package struct {
	ID    int
	CPUs  CPUSet
	Cores []int  // indexes into Topology.Cores
	Nodes CPUSet // NUMA node IDs with CPUs in this package
}

// CacheType says what a cache holds.
type CacheType string

// Cache types as sysfs names them.
const (
	Data        CacheType = "Data"
	Instruction CacheType = "Instruction"
	Unified     CacheType = "Unified"
)

// Cache is one cache instance.
type Cache struct {
	Level    int
	Type     CacheType
	Size     int64  // bytes
	LineSize int    // bytes
	CPUs     CPUSet // the CPUs that share it
}

// Name is the short name lstopo uses: "L1d", "L1i", "L2", "L3".
func (c Cache) Name() string {
	switch c.Type {
	case Data:
		return fmt.Sprintf("L%dd", c.Level)
	case Instruction:
		return fmt.Sprintf("L%di", c.Level)
	}
	return fmt.Sprintf("L%d", c.Level)
}

// Node is one NUMA node.
type Node struct {
	ID       int
	CPUs     CPUSet // empty for a memory-only node
	MemTotal int64  // bytes
}

// NumCores returns the number of physical cores.
func (t *Topology) NumCores() int { return len(t.Cores) }

// CPU returns the CPU with OS number id.
func (t *Topology) CPU(id int) (CPU, bool) {
	i, ok := slices.BinarySearchFunc(t.CPUs, id, func(c CPU, id int) int { return cmp.Compare(c.ID, id) })
	if !ok {
		return CPU{}, false
	}
	return t.CPUs[i], true
}

// Distance returns the NUMA distance between node IDs a and b, and false if
// either is not a node.
func (t *Topology) Distance(a, b int) (int, bool) {
	i := slices.IndexFunc(t.Nodes, func(n Node) bool { return n.ID == a })
	j := slices.IndexFunc(t.Nodes, func(n Node) bool { return n.ID == b })
	if i < 0 || j < 0 || i >= len(t.Distances) || j >= len(t.Distances[i]) {
		return 0, false
	}
	return t.Distances[i][j], true
}

// Load reads the topology from the sysfs and procfs files below root: "/"
// for this machine, or a snapshot directory holding sys/devices/system/...
// and proc/cpuinfo. Allowed is set to Online; Discover fills it from the
// process's affinity.
func Load(root string) (*Topology, error) {
	t, err := LoadFS(os.DirFS(root))
	if err != nil {
		return nil, err
	}
	t.Root = root
	return t, nil
}

const (
	cpuDir  = "sys/devices/system/cpu"
	nodeDir = "sys/devices/system/node"
)

// LoadFS is Load over a file system whose root stands for "/".
func LoadFS(fsys fs.FS) (*Topology, error) {
	r := reader{fsys: fsys}
	return r.load()
}

func (r *reader) load() (*Topology, error) {
	t := &Topology{Source: "sysfs"}
	online, err := r.cpuList(cpuDir + "/online")
	if err != nil {
		return nil, fmt.Errorf("hwtopo: no CPU list in sysfs: %w", err)
	}
	t.Online, t.Allowed = online, online
	t.Vendor, t.Model = r.cpuinfo()

	// CPUs, and cores grouped by the set of hardware threads they share.
	coreOf := map[string]int{}
	for _, id := range online {
		dir := fmt.Sprintf("%s/cpu%d/topology/", cpuDir, id)
		c := CPU{ID: id, Node: -1}
		if c.Package, err = r.int(dir + "physical_package_id"); err != nil {
			return nil, err
		}
		if c.CoreID, err = r.int(dir + "core_id"); err != nil {
			return nil, err
		}
		// core_cpus_list (Linux 5.5+), else thread_siblings_list; both name
		// the threads of one core. core_id alone is not enough: AMD
		// Magny-Cours repeats core IDs 0-5 on both dies of a package.
		sib, err := r.cpuList(dir + "core_cpus_list")
		if err != nil {
			if sib, err = r.cpuList(dir + "thread_siblings_list"); err != nil {
				return nil, err
			}
		}
		sib = sib.Intersect(online)
		key := sib.String()
		if !sib.Contains(id) {
			return nil, fmt.Errorf("hwtopo: cpu%d is not among its own core's threads %q", id, key)
		}
		ci, ok := coreOf[key]
		if !ok {
			ci = len(t.Cores)
			coreOf[key] = ci
			t.Cores = append(t.Cores, Core{Package: c.Package, CoreID: c.CoreID, CPUs: sib, Node: -1})
		}
		c.Core = ci
		t.CPUs = append(t.CPUs, c)
	}

	if err := r.caches(t); err != nil {
		return nil, err
	}
	if err := r.nodes(t); err != nil {
		return nil, err
	}
	t.order()
	return t, nil
}

// order sorts cores and caches into their documented order, renumbers the
// CPUs' core indexes, and builds the packages.
func (t *Topology) order() {
	perm := make([]int, len(t.Cores)) // perm[new] = old index
	for i := range perm {
		perm[i] = i
	}
	slices.SortFunc(perm, func(i, j int) int {
		a, b := t.Cores[i], t.Cores[j]
		return cmp.Or(cmp.Compare(a.Package, b.Package), cmp.Compare(a.CPUs[0], b.CPUs[0]))
	})
	sorted := make([]Core, len(perm))
	newIndex := make([]int, len(perm))
	for n, o := range perm {
		sorted[n], newIndex[o] = t.Cores[o], n
	}
	t.Cores = sorted
	for i := range t.CPUs {
		t.CPUs[i].Core = newIndex[t.CPUs[i].Core]
	}
	slices.SortFunc(t.Caches, func(a, b Cache) int {
		return cmp.Or(cmp.Compare(b.Level, a.Level), cmp.Compare(a.Type, b.Type), cmp.Compare(a.CPUs[0], b.CPUs[0]))
	})
	t.Packages = nil
	for i, c := range t.Cores {
		if len(t.Packages) == 0 || t.Packages[len(t.Packages)-1].ID != c.Package {
			t.Packages = append(t.Packages, Package{ID: c.Package})
		}
		p := &t.Packages[len(t.Packages)-1]
		p.CPUs = p.CPUs.Union(c.CPUs)
		p.Cores = append(p.Cores, i)
		if c.Node >= 0 {
			p.Nodes = p.Nodes.Union(CPUSet{c.Node})
		}
	}
}

// caches reads cpuN/cache/indexM for every CPU and keeps one Cache per
// distinct (level, type, sharing CPUs).
func (r *reader) caches(t *Topology) error {
	seen := map[string]bool{}
	for _, id := range t.Online {
		dir := fmt.Sprintf("%s/cpu%d/cache", cpuDir, id)
		ents, err := fs.ReadDir(r.fsys, dir)
		if err != nil {
			continue // no cache information for this CPU (some VMs, arm64 boards)
		}
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), "index") {
				continue
			}
			d := dir + "/" + e.Name() + "/"
			var c Cache
			var err error
			if c.Level, err = r.int(d + "level"); err != nil {
				return err
			}
			typ, err := r.string(d + "type")
			if err != nil {
				return err
			}
			c.Type = CacheType(typ)
			if c.Size, err = r.size(d + "size"); err != nil {
				return err
			}
			if c.LineSize, err = r.int(d + "coherency_line_size"); err != nil {
				return err
			}
			if c.CPUs, err = r.cpuList(d + "shared_cpu_list"); err != nil {
				return err
			}
			c.CPUs = c.CPUs.Intersect(t.Online)
			key := fmt.Sprintf("%d %s %s", c.Level, c.Type, c.CPUs)
			if !seen[key] && len(c.CPUs) > 0 {
				seen[key] = true
				t.Caches = append(t.Caches, c)
			}
		}
	}
	return nil
}

// nodes reads the NUMA nodes, their CPUs, memory and distances.
func (r *reader) nodes(t *Topology) error {
	online, err := r.cpuList(nodeDir + "/online")
	if err != nil {
		// No NUMA in this kernel: say so, and take the memory size from
		// /proc/meminfo.
		t.MemTotal, _ = r.meminfo("proc/meminfo", "MemTotal:")
		return nil
	}
	t.NUMA = true
	for _, id := range online {
		dir := fmt.Sprintf("%s/node%d/", nodeDir, id)
		n := Node{ID: id}
		if n.CPUs, err = r.cpuList(dir + "cpulist"); err != nil {
			return err
		}
		n.CPUs = n.CPUs.Intersect(t.Online)
		if n.MemTotal, err = r.meminfo(dir+"meminfo", fmt.Sprintf("Node %d MemTotal:", id)); err != nil {
			return err
		}
		s, err := r.string(dir + "distance")
		if err != nil {
			return err
		}
		var row []int
		for f := range strings.FieldsSeq(s) {
			d, err := strconv.Atoi(f)
			if err != nil {
				return fmt.Errorf("hwtopo: %sdistance: %q is not a number", dir, f)
			}
			row = append(row, d)
		}
		t.Nodes = append(t.Nodes, n)
		t.Distances = append(t.Distances, row)
		t.MemTotal += n.MemTotal
		for i, c := range t.CPUs {
			if n.CPUs.Contains(c.ID) {
				t.CPUs[i].Node = id
				t.Cores[c.Core].Node = id
			}
		}
	}
	// The distance rows list every possible node; keep the online ones.
	possible, err := r.cpuList(nodeDir + "/possible")
	if err != nil {
		possible = online
	}
	for i, row := range t.Distances {
		if len(row) != len(possible) {
			return fmt.Errorf("hwtopo: node%d/distance has %d entries for %d possible nodes", t.Nodes[i].ID, len(row), len(possible))
		}
		var kept []int
		for j, d := range row {
			if online.Contains(possible[j]) {
				kept = append(kept, d)
			}
		}
		t.Distances[i] = kept
	}
	return nil
}

// reader reads small text files below a root and remembers which ones, so
// that Snapshot can copy exactly those.
type reader struct {
	fsys fs.FS
	read []string
}

func (r *reader) string(name string) (string, error) {
	b, err := fs.ReadFile(r.fsys, name)
	if err != nil {
		return "", fmt.Errorf("hwtopo: %w", err)
	}
	r.read = append(r.read, name)
	return strings.TrimSpace(string(b)), nil
}

func (r *reader) int(name string) (int, error) {
	s, err := r.string(name)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("hwtopo: %s: %q is not a number", name, s)
	}
	return v, nil
}

func (r *reader) cpuList(name string) (CPUSet, error) {
	s, err := r.string(name)
	if err != nil {
		return nil, err
	}
	return ParseCPUList(s)
}

// size parses a sysfs cache size: "32K", "5118K", "16M", or bytes.
func (r *reader) size(name string) (int64, error) {
	s, err := r.string(name)
	if err != nil {
		return 0, err
	}
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult = 1 << 10
	case strings.HasSuffix(s, "M"):
		mult = 1 << 20
	case strings.HasSuffix(s, "G"):
		mult = 1 << 30
	}
	v, err := strconv.ParseInt(strings.TrimRight(s, "KMG"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("hwtopo: %s: bad size %q", name, s)
	}
	return v * mult, nil
}

// meminfo returns the value of the line starting with key (in kB in the
// file) in bytes.
func (r *reader) meminfo(name, key string) (int64, error) {
	s, err := r.string(name)
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(s) {
		if rest, ok := strings.CutPrefix(line, key); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return kb << 10, nil
				}
			}
		}
	}
	return 0, fmt.Errorf("hwtopo: %s has no %q line", name, key)
}

// cpuinfo returns the vendor and model name of the first processor in
// /proc/cpuinfo (x86 names both; elsewhere they may be empty).
func (r *reader) cpuinfo() (vendor, model string) {
	b, err := fs.ReadFile(r.fsys, "proc/cpuinfo")
	if err != nil {
		return "", ""
	}
	r.read = append(r.read, "proc/cpuinfo")
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() && (vendor == "" || model == "") {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "vendor_id":
			vendor = strings.TrimSpace(v)
		case "model name":
			model = strings.TrimSpace(v)
		}
	}
	return vendor, model
}

// Snapshot copies the files that Load reads below root into the directory
// dst, so that Load(dst) gives the same topology: a machine's description for
// a test or a bug report. It copies nothing if Load would fail.
func Snapshot(root, dst string) error {
	r := reader{fsys: os.DirFS(root)}
	if _, err := r.load(); err != nil {
		return err
	}
	for _, name := range r.read {
		b, err := fs.ReadFile(r.fsys, name)
		if err != nil {
			return fmt.Errorf("hwtopo: snapshot: %w", err)
		}
		out := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return fmt.Errorf("hwtopo: snapshot: %w", err)
		}
		if err := os.WriteFile(out, b, 0o644); err != nil {
			return fmt.Errorf("hwtopo: snapshot: %w", err)
		}
	}
	return nil
}

func sortCPUs(cpus []CPU) {
	slices.SortFunc(cpus, func(a, b CPU) int { return cmp.Compare(a.ID, b.ID) })
}
