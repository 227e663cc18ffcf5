package systest

import (
	"io"

	"fmt"
	"github.com/gompi/gompi/benches/internal/report"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/benches/internal/params"
	"github.com/gompi/gompi/benches/internal/plot"
	"github.com/gompi/gompi/hwtopo"
)

// Test 3: N threads (locked OS threads) each write their own block at
// once, N = 1 … cores, in three placements:
//   - none: no binding, the OS places the threads;
//   - scatter: bound by socket (hwtopo --map-by socket): first core of
//     package 0, first core of package 1, …;
//   - compact: bound by core (--map-by core): package 0's cores first.
//
// Placement is verified, not assumed: every thread records the CPUs it
// found itself on (getcpu(2)) between chunks of its writing, and after the
// run the NUMA node of each page of its block is read back (move_pages(2)).
// Both are shown beside the timing.

// placement says where one thread ran and where its pages are.
type placement struct {
	planned hwtopo.CPUSet // empty: unbound
	seen    map[int]int   // CPU → chunks written there
	nodes   map[int]int   // NUMA node → pages (-1: not known)
}

func (p placement) seenSet() hwtopo.CPUSet {
	var s []int
	for c := range p.seen {
		s = append(s, c)
	}
	return hwtopo.NewCPUSet(s...)
}

// team is n writers, each on its own locked OS thread, bound by plan.
type team struct {
	start  []chan uint64
	wg     sync.WaitGroup
	place  []placement
	blocks [][]byte
	mu     sync.Mutex
	err    error
}

const chunk = 1 << 20 // bytes written between two looks at the CPU

func newTeam(n int, block int64, plan *hwtopo.Plan) (*team, error) {
	t := &team{start: make([]chan uint64, n), place: make([]placement, n), blocks: make([][]byte, n)}
	var ready sync.WaitGroup
	ready.Add(n)
	for i := range n {
		t.start[i] = make(chan uint64)
		t.place[i] = placement{seen: map[int]int{}, nodes: map[int]int{}}
		if plan != nil && plan.BindTo != hwtopo.BindNone {
			t.place[i].planned = plan.Slots[i].CPUs
		}
		go t.writer(i, block, plan, &ready)
	}
	ready.Wait()
	if t.err != nil {
		t.close()
		return nil, t.err
	}
	return t, nil
}

func (t *team) fail(err error) {
	t.mu.Lock()
	if t.err == nil {
		t.err = err
	}
	t.mu.Unlock()
}

func (t *team) writer(i int, block int64, plan *hwtopo.Plan, ready *sync.WaitGroup) {
	// The thread stays locked and exits with its goroutine: its binding
	// must not pass to other goroutines.
	lockThread()
	if plan != nil {
		if err := plan.BindThread(i); err != nil {
			t.fail(err)
		}
	}
	b, err := unix.Mmap(-1, 0, int(block), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.fail(fmt.Errorf("mapping %s: %w", params.FormatSize(block), err))
		ready.Done()
		for range t.start[i] {
			t.wg.Done()
		}
		return
	}
	clear(b) // first touch by this thread: local pages under the default policy
	t.blocks[i] = b
	w := unsafeWords(b)
	ready.Done()
	for v := range t.start[i] {
		seen := t.place[i].seen
		for off := 0; off < len(w); off += chunk / 8 {
			storeWords(w[off:min(len(w), off+chunk/8)], v)
			seen[currentCPU()]++
		}
		t.wg.Done()
	}
}

// run starts every writer and returns when the last is done.
func (t *team) run(v uint64) time.Duration {
	t.wg.Add(len(t.start))
	t0 := time.Now()
	for _, c := range t.start {
		c <- v
	}
	t.wg.Wait()
	return time.Since(t0)
}

// readPages fills each placement's page nodes; it reports whether the
// kernel could say.
func (t *team) readPages() error {
	for i, b := range t.blocks {
		if b == nil {
			continue
		}
		nodes, err := hwtopo.PageNodes(b)
		if err != nil {
			return err
		}
		for _, n := range nodes {
			t.place[i].nodes[n]++
		}
	}
	return nil
}

func (t *team) close() {
	for _, c := range t.start {
		close(c)
	}
	for _, b := range t.blocks {
		if b != nil {
			unix.Munmap(b)
		}
	}
}

func modePlan(topo *hwtopo.Topology, mode string, n int) (*hwtopo.Plan, error) {
	switch mode {
	case "scatter":
		return topo.Plan(n, hwtopo.MapBySocket, hwtopo.BindCore)
	case "compact":
		return topo.Plan(n, hwtopo.MapByCore, hwtopo.BindCore)
	}
	return nil, nil
}

func runMultiWrite(e *env) error {
	cores := e.topo.NumCores()
	block := e.cfg.ThreadBlock
	fmt.Fprintf(e.out, "threads 1 to %d, %s each; %d package(s); placement: CPUs each thread was seen on (getcpu) and nodes of its pages (move_pages)\n",
		cores, params.FormatSize(block), len(e.topo.Packages))
	if len(e.topo.Packages) < 2 {
		e.note("multiwrite: one package, so scatter (by socket) and compact (by core) place threads alike here")
	}
	vt := newPlacementTable()
	pagesKnown := true
	for _, mode := range e.cfg.Modes {
		for n := 1; n <= cores; n++ {
			plan, err := modePlan(e.topo, mode, n)
			if err != nil {
				return err
			}
			tm, err := newTeam(n, block, plan)
			if err != nil {
				return err
			}
			var v uint64
			_, err = e.measure(Row{Test: "multiwrite", Case: fmt.Sprintf("%d threads", n), Impl: "os-thread", Setting: mode,
				Bytes: float64(n) * float64(block)}, func() (float64, error) {
				v++
				return tm.run(v).Seconds(), nil
			})
			if err == nil {
				if perr := tm.readPages(); perr != nil {
					pagesKnown = false
					e.notePageErr(perr)
				}
				e.rows[len(e.rows)-1].Note = placementNote(tm.place)
				for i, p := range tm.place {
					vt.add(mode, n, i, p)
				}
			}
			tm.close()
			if err != nil {
				return err
			}
		}
	}
	if !pagesKnown {
		fmt.Fprintln(e.out, "(page nodes could not be read back here)")
	}
	fmt.Fprintln(e.out, "\nplacement as it happened:")
	vt.write(e.out)
	return e.multiPlot()
}

func (e *env) notePageErr(err error) {
	msg := fmt.Sprintf("page nodes not read back: %v", err)
	if !slices.Contains(e.notes, msg) {
		e.note("%s", msg)
	}
}

// placementNote sums the placement of a team up in a few words: the CPUs
// seen per thread, whether they kept to the plan, the nodes of the pages.
func placementNote(ps []placement) string {
	var cpus []string
	ok := true
	nodes := map[int]int{}
	total := 0
	for _, p := range ps {
		s := p.seenSet()
		cpus = append(cpus, s.String())
		if len(p.planned) > 0 && !s.SubsetOf(p.planned) {
			ok = false
		}
		for n, c := range p.nodes {
			nodes[n] += c
			total += c
		}
	}
	note := "cpus " + strings.Join(cpus, "|")
	if !ok {
		note += " OFF-PLAN"
	}
	if total > 0 {
		note += " pages " + nodeShares(nodes, total)
	}
	return note
}

func nodeShares(nodes map[int]int, total int) string {
	var keys []int
	for n := range nodes {
		keys = append(keys, n)
	}
	sort.Ints(keys)
	var parts []string
	for _, n := range keys {
		name := fmt.Sprintf("node%d", n)
		if n < 0 {
			name = "unknown"
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%%", name, 100*float64(nodes[n])/float64(total)))
	}
	return strings.Join(parts, ", ")
}

// placementTable lists every thread's planned and seen CPUs and pages.
type placementTable struct{ rows [][]string }

func newPlacementTable() *placementTable { return &placementTable{} }

func (t *placementTable) add(mode string, n, i int, p placement) {
	planned := p.planned.String()
	if planned == "" {
		planned = "unbound"
	}
	total := 0
	for _, c := range p.nodes {
		total += c
	}
	pages := "-"
	if total > 0 {
		pages = nodeShares(p.nodes, total)
	}
	verdict := "ok"
	if len(p.planned) > 0 && !p.seenSet().SubsetOf(p.planned) {
		verdict = "OFF-PLAN"
	}
	t.rows = append(t.rows, []string{mode, fmt.Sprint(n), fmt.Sprint(i), planned, p.seenSet().String(), pages, verdict})
}

func (t *placementTable) write(w io.Writer) {
	tb := newTextTable("mode", "threads", "thread", "planned", "cpus seen", "pages", "check")
	for _, r := range t.rows {
		tb.Add(anySlice(r)...)
	}
	tb.Write(w, report.Text)
}

func (e *env) multiPlot() error {
	if e.cfg.PlotDir == "" {
		return nil
	}
	p := &plot.Plot{Title: "Test 3: multi-thread write bandwidth", XLabel: "threads", YLabel: "GB/s (all threads)"}
	idx := map[string]int{}
	for _, r := range e.rows {
		if r.Test != "multiwrite" {
			continue
		}
		i, ok := idx[r.Setting]
		if !ok {
			i = len(p.Series)
			idx[r.Setting] = i
			p.Series = append(p.Series, plot.Series{Name: r.Setting})
		}
		var n float64
		fmt.Sscan(r.Case, &n)
		p.Series[i].X = append(p.Series[i].X, n)
		p.Series[i].Y = append(p.Series[i].Y, r.GBps())
	}
	if len(p.Series) == 0 {
		return nil
	}
	return e.writePlot("multiwrite.svg", p)
}
