package systest

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/benches/internal/params"
	"github.com/gompi/gompi/benches/internal/report"
	"github.com/gompi/gompi/hwtopo"
)

// Test 4: for every pair (i, j) of NUMA nodes, i = j included, a thread
// bound to node i's CPUs copies a block from memory on node i to memory on
// node j (mbind(2) through hwtopo.AllocOnNode); the matrix of bandwidths is
// printed beside the node graph. No root is needed. On a machine with one
// node (or none described) the matrix is 1×1, and the report says so.

// numaPair is one cell of the matrix.
type numaPair struct {
	Run, Mem int           // node IDs; -1 when the kernel describes no nodes
	CPUs     hwtopo.CPUSet // node Run's allowed CPUs
}

// planNUMA returns the pairs to measure: every node with an allowed CPU to
// run on, against every node (memory-only ones included) to write to, in
// node order. single is set when there is only one cell.
func planNUMA(t *hwtopo.Topology) (pairs []numaPair, single bool, err error) {
	if !t.NUMA || len(t.Nodes) <= 1 {
		node := -1
		if len(t.Nodes) == 1 {
			node = t.Nodes[0].ID
		}
		if len(t.Allowed) == 0 {
			return nil, false, errors.New("no CPU is allowed to this process")
		}
		return []numaPair{{node, node, t.Allowed}}, true, nil
	}
	for _, from := range t.Nodes {
		cpus := from.CPUs.Intersect(t.Allowed)
		if len(cpus) == 0 {
			continue
		}
		for _, to := range t.Nodes {
			pairs = append(pairs, numaPair{from.ID, to.ID, cpus})
		}
	}
	if len(pairs) == 0 {
		return nil, false, fmt.Errorf("no NUMA node has a CPU this process may use (allowed %s)", t.Allowed)
	}
	return pairs, len(pairs) == 1, nil
}

// nodeGraph describes the nodes as the seed's figure 3 does: cores per node,
// the nodes of each package, and the distances.
func nodeGraph(t *hwtopo.Topology) string {
	var b strings.Builder
	if !t.NUMA || len(t.Nodes) == 0 {
		fmt.Fprintf(&b, "the kernel describes no NUMA nodes: one memory for %d cores in %d package(s)\n", t.NumCores(), len(t.Packages))
		return b.String()
	}
	for _, n := range t.Nodes {
		cores := 0
		for _, c := range t.Cores {
			if c.Node == n.ID {
				cores++
			}
		}
		fmt.Fprintf(&b, "node %d: %d cores (CPUs %s), %s memory\n", n.ID, cores, orNone(n.CPUs.String()), memSize(n.MemTotal))
	}
	for _, p := range t.Packages {
		fmt.Fprintf(&b, "package %d: nodes %s\n", p.ID, orNone(p.Nodes.String()))
	}
	b.WriteString("distances:\n")
	tb := report.NewTable(append([]string{"node"}, nodeHeads(t)...)...)
	for i, n := range t.Nodes {
		row := []any{n.ID}
		for j := range t.Nodes {
			if i < len(t.Distances) && j < len(t.Distances[i]) {
				row = append(row, t.Distances[i][j])
			} else {
				row = append(row, nil)
			}
		}
		tb.Add(row...)
	}
	tb.Write(&b, report.Text)
	return b.String()
}

func nodeHeads(t *hwtopo.Topology) []string {
	var h []string
	for _, n := range t.Nodes {
		h = append(h, fmt.Sprint(n.ID))
	}
	return h
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func memSize(b int64) string {
	if b <= 0 {
		return "unknown"
	}
	return params.FormatSize(b/(1<<20)*(1<<20)) + "B"
}

func runNUMA(e *env) error {
	pairs, single, err := planNUMA(e.topo)
	if err != nil {
		return err
	}
	io.WriteString(e.out, nodeGraph(e.topo))
	if single {
		e.note("numa: this machine has one NUMA node, so the matrix is 1×1 (the planning of 2- and 4-node machines is tested on sysfs snapshots)")
		fmt.Fprintln(e.out, "one NUMA node: the matrix is 1×1")
	}
	size := e.cfg.NUMABlock
	cells := map[[2]int]Row{}
	for _, p := range pairs {
		r, err := e.numaCell(p, size)
		if err != nil {
			return err
		}
		cells[[2]int{p.Run, p.Mem}] = r
	}
	// The matrix: run on the row's node, memory on the column's.
	var from, to []int
	for _, p := range pairs {
		if len(from) == 0 || from[len(from)-1] != p.Run {
			from = append(from, p.Run)
		}
		if p.Run == pairs[0].Run {
			to = append(to, p.Mem)
		}
	}
	head := []string{"run\\mem"}
	for _, j := range to {
		head = append(head, fmt.Sprintf("node%d", j))
	}
	tb := report.NewTable(head...)
	for _, i := range from {
		row := []any{fmt.Sprintf("node%d", i)}
		for _, j := range to {
			r := cells[[2]int{i, j}]
			cell := fmt.Sprintf("%.2f GB/s", r.GBps())
			if !r.Res.OK() {
				cell += " (not accepted)"
			}
			row = append(row, cell)
		}
		tb.Add(row...)
	}
	fmt.Fprintf(e.out, "\ncopy bandwidth, %s blocks:\n", params.FormatSize(size))
	tb.Write(e.out, report.Text)
	return nil
}

// numaCell measures one pair: bound to the run node's CPUs, copy from a
// block on the run node into a block on the memory node.
func (e *env) numaCell(p numaPair, size int64) (Row, error) {
	done := make(chan struct{})
	var row Row
	var err error
	go func() {
		defer close(done)
		row, err = e.numaCellOnThread(p, size)
	}()
	<-done
	return row, err
}

func (e *env) numaCellOnThread(p numaPair, size int64) (Row, error) {
	lockThread() // this goroutine's thread ends with it, binding and all
	setting := fmt.Sprintf("run node%d mem node%d", p.Run, p.Mem)
	if p.Run < 0 {
		setting = "one memory"
	}
	if err := hwtopo.BindThread(p.CPUs); err != nil {
		return Row{}, err
	}
	alloc := func(node int) ([]byte, string, error) {
		if node >= 0 {
			b, err := hwtopo.AllocOnNode(int(size), node)
			if err == nil {
				return b, "", nil
			}
			if !errors.Is(err, hwtopo.ErrNotSupported) {
				return nil, "", err
			}
			e.note("numa: %v; memory placed by the kernel's default policy", err)
		}
		b, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		return b, "default policy", err
	}
	src, how, err := alloc(p.Run)
	if err != nil {
		return Row{}, err
	}
	defer unix.Munmap(src)
	dst, _, err := alloc(p.Mem)
	if err != nil {
		return Row{}, err
	}
	defer unix.Munmap(dst)
	for i := range src {
		src[i] = byte(i)
	}
	clear(dst)
	r, err := e.measure(Row{Test: "numa", Case: "copy " + params.FormatSize(size), Impl: "go-copy", Setting: setting, Bytes: float64(size)},
		func() (float64, error) {
			t0 := time.Now()
			copy(dst, src)
			return time.Since(t0).Seconds(), nil
		})
	if err != nil {
		return r, err
	}
	note := how
	if nodes, err := hwtopo.PageNodes(dst); err == nil {
		count := map[int]int{}
		for _, n := range nodes {
			count[n]++
		}
		note = strings.TrimSpace(note + " dst pages " + nodeShares(count, len(nodes)))
	} else {
		e.notePageErr(err)
	}
	e.rows[len(e.rows)-1].Note = note
	return e.rows[len(e.rows)-1], nil
}
