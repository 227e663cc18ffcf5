package mpiperf

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi"
	"github.com/gompi/gompi/sync/clock"
)

// Kind is what an Op measures.
type Kind int

// Kinds of test.
const (
	Collective  Kind = iota // an MPI-2.2 collective, blocking
	Nonblocking             // its nonblocking form: Iop then Wait
	PointToPoint
	SelfTest // a wait pattern or the start spread: known true time
)

// Op is one test of the suite.
type Op struct {
	Name    string
	Kind    Kind
	Coll    coll.Operation // the collective (Collective, Nonblocking)
	Summary string
	// Sized says whether the message size matters (Barrier and the self
	// tests run once, at size 0).
	Sized bool
}

// Self tests and point-to-point tests.
const (
	OpSend        = "send"
	OpSendrecv    = "sendrecv"
	OpWaitNull    = "waitpattern_null"
	OpWaitUp      = "waitpattern_up"
	OpWaitDown    = "waitpattern_down"
	OpStartSpread = "start_spread"
)

var catalog = buildCatalog()

func buildCatalog() []Op {
	var ops []Op
	self := []Op{
		{Name: OpWaitNull, Kind: SelfTest, Summary: "each rank returns at once; true time 0"},
		{Name: OpWaitUp, Kind: SelfTest, Summary: "rank i busy-waits (i+1) µs; true time n µs"},
		{Name: OpWaitDown, Kind: SelfTest, Summary: "rank i busy-waits (n−i) µs; true time n µs"},
		{Name: OpStartSpread, Kind: SelfTest, Summary: "max − min start over ranks, on the global clock and on the host's counter"},
	}
	ops = append(ops, self...)
	for _, c := range coll.Operations() {
		ops = append(ops, Op{Name: string(c), Kind: Collective, Coll: c, Sized: c != coll.OpBarrier,
			Summary: "MPI_" + mpiName(c) + "; size: " + c.SizeMeaning()})
	}
	for _, c := range coll.Operations() {
		ops = append(ops, Op{Name: "i" + string(c), Kind: Nonblocking, Coll: c, Sized: c != coll.OpBarrier,
			Summary: "MPI_I" + strings.ToLower(mpiName(c)) + " + MPI_Wait"})
	}
	ops = append(ops,
		Op{Name: OpSend, Kind: PointToPoint, Sized: true, Summary: "rank 2i sends to rank 2i+1 (Send / Recv)"},
		Op{Name: OpSendrecv, Kind: PointToPoint, Sized: true, Summary: "every rank sends to i+1 and receives from i−1 (Sendrecv)"},
	)
	return ops
}

func mpiName(c coll.Operation) string {
	s := string(c)
	return strings.ToUpper(s[:1]) + s[1:]
}

// Ops lists every test, in the order a sweep runs them.
func Ops() []Op { return append([]Op(nil), catalog...) }

// Groups of tests --op accepts besides single names.
var groups = map[string]func(Op) bool{
	"all":         func(Op) bool { return true },
	"coll":        func(o Op) bool { return o.Kind == Collective },
	"nonblocking": func(o Op) bool { return o.Kind == Nonblocking },
	"p2p":         func(o Op) bool { return o.Kind == PointToPoint },
	"selftest":    func(o Op) bool { return o.Kind == SelfTest },
}

// ParseOps turns --op values (names, MPI names in any case, with '-' or '_',
// or the groups all, coll, nonblocking, p2p, selftest) into tests, in the
// order given, without repeats.
func ParseOps(names []string) ([]Op, error) {
	var out []Op
	seen := map[string]bool{}
	add := func(o Op) {
		if !seen[o.Name] {
			seen[o.Name] = true
			out = append(out, o)
		}
	}
	for _, raw := range names {
		name := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(raw)), "-", "_")
		name = strings.TrimPrefix(name, "mpi_")
		if name == "" {
			continue
		}
		if g, ok := groups[name]; ok {
			for _, o := range catalog {
				if g(o) {
					add(o)
				}
			}
			continue
		}
		found := false
		for _, o := range catalog {
			if o.Name == name {
				add(o)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown test %q; use a name of `benches mpiperf --list` or a group: %s",
				raw, strings.Join(groupNames(), ", "))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no test selected")
	}
	return out, nil
}

func groupNames() []string {
	var g []string
	for k := range groups {
		g = append(g, k)
	}
	sort.Strings(g)
	return g
}

// call is one prepared test on one rank: run performs one launch.
type call struct {
	run func() error
	// bytes is the size the test really moves per rank and peer (a
	// reduction's vector is rounded down to whole float32 elements).
	bytes int
}

// env is what a test is set up with.
type env struct {
	c     *gompi.Comm
	root  int
	size  int
	opts  []gompi.CollOption
	pool  *pool
	local clock.Source // the rank's local clock, for the wait patterns
	// compute, for nonblocking tests: seconds of computation between the
	// start and the wait (the overlap measurement).
	compute float64
}

// spin busy-waits d seconds on clk.
func spin(clk clock.Source, d float64) {
	end := clk.Now() + d
	for clk.Now() < end {
	}
}

// elem is the element of the reductions: MPI_FLOAT, as IMB uses.
const elem = 4

var sumOp = gompi.Sum[float32]()

// setup prepares op on this rank.
func setup(op Op, e env) (call, error) {
	switch op.Kind {
	case SelfTest:
		return setupSelf(op, e), nil
	case PointToPoint:
		return setupP2P(op, e), nil
	}
	return setupColl(op, e)
}

func setupSelf(op Op, e env) call {
	n, me := e.c.Size(), e.c.Rank()
	var wait float64
	switch op.Name {
	case OpWaitUp:
		wait = float64(me+1) * 1e-6
	case OpWaitDown:
		wait = float64(n-me) * 1e-6
	default:
		return call{run: func() error { return nil }}
	}
	clk := e.local
	return call{run: func() error { spin(clk, wait); return nil }}
}

func setupP2P(op Op, e env) call {
	n, me, m := e.c.Size(), e.c.Rank(), e.size
	if op.Name == OpSendrecv {
		right, left := (me+1)%n, (me-1+n)%n
		return call{bytes: m, run: func() error {
			s, r := e.pool.next(m), e.pool.next(m)
			_, err := e.c.Sendrecv(s, right, 0, r, left, 0)
			return err
		}}
	}
	switch {
	case me%2 == 0 && me+1 < n:
		return call{bytes: m, run: func() error { return e.c.Send(e.pool.next(m), me+1, 0) }}
	case me%2 == 1:
		return call{bytes: m, run: func() error {
			_, err := e.c.Recv(e.pool.next(m), me-1, 0)
			return err
		}}
	}
	return call{bytes: m, run: func() error { return nil }} // the odd rank out
}

// layout is the buffers and counts of one collective call on one rank.
type layout struct {
	send, recv       int // bytes; -1: nil (not read on this rank)
	scounts, sdispls []int
	rcounts, rdispls []int
	bytes            int
}

func even(n, m int) (counts, displs []int) {
	counts, displs = make([]int, n), make([]int, n)
	for i := range n {
		counts[i], displs[i] = m, i*m
	}
	return
}

// layoutOf sizes the buffers of op for message size m (the meaning of
// coll.Operation.SizeMeaning; the v and w forms use m for every rank).
func layoutOf(op coll.Operation, n, me, root, m int) layout {
	isRoot := me == root
	rootOnly := func(b int) int {
		if isRoot {
			return b
		}
		return -1
	}
	red := m / elem * elem
	switch op {
	case coll.OpBarrier:
		return layout{send: -1, recv: -1}
	case coll.OpBcast:
		return layout{send: -1, recv: m, bytes: m}
	case coll.OpGather:
		return layout{send: m, recv: rootOnly(n * m), bytes: m}
	case coll.OpGatherv:
		c, d := even(n, m)
		return layout{send: m, recv: rootOnly(n * m), rcounts: c, rdispls: d, bytes: m}
	case coll.OpScatter:
		return layout{send: rootOnly(n * m), recv: m, bytes: m}
	case coll.OpScatterv:
		c, d := even(n, m)
		return layout{send: rootOnly(n * m), recv: m, scounts: c, sdispls: d, bytes: m}
	case coll.OpAllgather:
		return layout{send: m, recv: n * m, bytes: m}
	case coll.OpAllgatherv:
		c, d := even(n, m)
		return layout{send: m, recv: n * m, rcounts: c, rdispls: d, bytes: m}
	case coll.OpAlltoall:
		return layout{send: n * m, recv: n * m, bytes: m}
	case coll.OpAlltoallv, coll.OpAlltoallw:
		c, d := even(n, m)
		return layout{send: n * m, recv: n * m, scounts: c, sdispls: d, rcounts: c, rdispls: d, bytes: m}
	case coll.OpReduce:
		return layout{send: red, recv: rootOnly(red), bytes: red}
	case coll.OpAllreduce, coll.OpScan, coll.OpExscan:
		return layout{send: red, recv: red, bytes: red}
	case coll.OpReduceScatter:
		els := red / elem
		c := make([]int, n)
		for i := range n {
			c[i] = (els/n + b2i(i < els%n)) * elem
		}
		return layout{send: red, recv: c[me], rcounts: c, bytes: red}
	case coll.OpReduceScatterBlock:
		block := red / elem / n * elem
		return layout{send: n * block, recv: block, bytes: n * block}
	}
	panic("mpiperf: no layout for " + string(op))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func setupColl(op Op, e env) (call, error) {
	n, me := e.c.Size(), e.c.Rank()
	l := layoutOf(op.Coll, n, me, e.root, e.size)
	buf := func(b int) []byte {
		if b < 0 {
			return nil
		}
		return e.pool.next(b)
	}
	c, root, opts := e.c, e.root, e.opts
	if op.Kind == Nonblocking {
		return call{bytes: l.bytes, run: func() error {
			r, err := start(c, op.Coll, buf(l.send), buf(l.recv), l, root, opts)
			if err != nil {
				return err
			}
			if e.compute > 0 {
				spin(e.local, e.compute)
			}
			_, err = r.Wait()
			return err
		}}, nil
	}
	return call{bytes: l.bytes, run: func() error {
		return blocking(c, op.Coll, buf(l.send), buf(l.recv), l, root, opts)
	}}, nil
}

// blocking calls collective op.
func blocking(c *gompi.Comm, op coll.Operation, s, r []byte, l layout, root int, o []gompi.CollOption) error {
	switch op {
	case coll.OpBarrier:
		return c.Barrier(o...)
	case coll.OpBcast:
		return c.Bcast(r, root, o...)
	case coll.OpGather:
		return c.Gather(s, r, root, o...)
	case coll.OpGatherv:
		return c.Gatherv(s, r, l.rcounts, l.rdispls, root, o...)
	case coll.OpScatter:
		return c.Scatter(s, r, root, o...)
	case coll.OpScatterv:
		return c.Scatterv(s, l.scounts, l.sdispls, r, root, o...)
	case coll.OpAllgather:
		return c.Allgather(s, r, o...)
	case coll.OpAllgatherv:
		return c.Allgatherv(s, r, l.rcounts, l.rdispls, o...)
	case coll.OpAlltoall:
		return c.Alltoall(s, r, o...)
	case coll.OpAlltoallv:
		return c.Alltoallv(s, l.scounts, l.sdispls, r, l.rcounts, l.rdispls, o...)
	case coll.OpAlltoallw:
		return c.Alltoallw(s, l.scounts, l.sdispls, r, l.rcounts, l.rdispls, o...)
	case coll.OpReduce:
		return c.Reduce(s, r, sumOp, root, o...)
	case coll.OpAllreduce:
		return c.Allreduce(s, r, sumOp, o...)
	case coll.OpReduceScatter:
		return c.ReduceScatter(s, r, l.rcounts, sumOp, o...)
	case coll.OpReduceScatterBlock:
		return c.ReduceScatterBlock(s, r, sumOp, o...)
	case coll.OpScan:
		return c.Scan(s, r, sumOp, o...)
	case coll.OpExscan:
		return c.Exscan(s, r, sumOp, o...)
	}
	return fmt.Errorf("mpiperf: no call for %s", op)
}

// start starts the nonblocking form of op.
func start(c *gompi.Comm, op coll.Operation, s, r []byte, l layout, root int, o []gompi.CollOption) (*gompi.Request, error) {
	switch op {
	case coll.OpBarrier:
		return c.Ibarrier(o...)
	case coll.OpBcast:
		return c.Ibcast(r, root, o...)
	case coll.OpGather:
		return c.Igather(s, r, root, o...)
	case coll.OpGatherv:
		return c.Igatherv(s, r, l.rcounts, l.rdispls, root, o...)
	case coll.OpScatter:
		return c.Iscatter(s, r, root, o...)
	case coll.OpScatterv:
		return c.Iscatterv(s, l.scounts, l.sdispls, r, root, o...)
	case coll.OpAllgather:
		return c.Iallgather(s, r, o...)
	case coll.OpAllgatherv:
		return c.Iallgatherv(s, r, l.rcounts, l.rdispls, o...)
	case coll.OpAlltoall:
		return c.Ialltoall(s, r, o...)
	case coll.OpAlltoallv:
		return c.Ialltoallv(s, l.scounts, l.sdispls, r, l.rcounts, l.rdispls, o...)
	case coll.OpAlltoallw:
		return c.Ialltoallw(s, l.scounts, l.sdispls, r, l.rcounts, l.rdispls, o...)
	case coll.OpReduce:
		return c.Ireduce(s, r, sumOp, root, o...)
	case coll.OpAllreduce:
		return c.Iallreduce(s, r, sumOp, o...)
	case coll.OpReduceScatter:
		return c.IreduceScatter(s, r, l.rcounts, sumOp, o...)
	case coll.OpReduceScatterBlock:
		return c.IreduceScatterBlock(s, r, sumOp, o...)
	case coll.OpScan:
		return c.Iscan(s, r, sumOp, o...)
	case coll.OpExscan:
		return c.Iexscan(s, r, sumOp, o...)
	}
	return nil, fmt.Errorf("mpiperf: no nonblocking call for %s", op)
}
