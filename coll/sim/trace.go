package sim

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gompi/gompi/coll"
)

// Call describes one collective call to trace.
type Call struct {
	Op          coll.Operation
	Algorithm   string // "" lets selection choose
	Ranks       int
	Bytes       int // the size of the call, as Operation.SizeMeaning says
	Root        int
	SegmentSize int // 0: the algorithm's default
}

// ExampleArgs are rank's arguments of a call of op on n ranks with size m
// (as Operation.SizeMeaning says): zeroed buffers, equal counts, and a sum
// over int32 for reductions (m must then be a multiple of 4; Reduce_scatter
// splits m into n parts of whole elements, Reduce_scatter_block rounds the
// block m/n down to whole elements).
func ExampleArgs(op coll.Operation, n, rank, m, root int) *coll.Args {
	a := &coll.Args{Root: root}
	counts := func(c int) ([]int, []int) {
		cs, ds := make([]int, n), make([]int, n)
		for i := range n {
			cs[i], ds[i] = c, i*c
		}
		return cs, ds
	}
	switch op {
	case coll.OpBcast:
		a.Recv = make([]byte, m)
	case coll.OpReduce, coll.OpAllreduce, coll.OpScan, coll.OpExscan:
		a.Send, a.Recv = make([]byte, m), make([]byte, m)
	case coll.OpGather, coll.OpGatherv:
		a.Send, a.Recv = make([]byte, m), make([]byte, n*m)
		a.RecvCounts, a.RecvDispls = counts(m)
	case coll.OpScatter, coll.OpScatterv:
		a.Send, a.Recv = make([]byte, n*m), make([]byte, m)
		a.SendCounts, a.SendDispls = counts(m)
	case coll.OpAllgather, coll.OpAllgatherv:
		a.Send, a.Recv = make([]byte, m), make([]byte, n*m)
		a.RecvCounts, a.RecvDispls = counts(m)
	case coll.OpAlltoall, coll.OpAlltoallv, coll.OpAlltoallw:
		a.Send, a.Recv = make([]byte, n*m), make([]byte, n*m)
		a.SendCounts, a.SendDispls = counts(m)
		a.RecvCounts, a.RecvDispls = counts(m)
	case coll.OpReduceScatter:
		a.RecvCounts = make([]int, n)
		for i := range n {
			a.RecvCounts[i] = (m/4/n + boolInt(i < m/4%n)) * 4
		}
		a.Send, a.Recv = make([]byte, m), make([]byte, a.RecvCounts[rank])
	case coll.OpReduceScatterBlock:
		block := m / n / 4 * 4
		a.Send, a.Recv = make([]byte, n*block), make([]byte, block)
	}
	if op.Reduction() {
		a.Op = coll.Sum[int32]()
	}
	if rank != root { // only the root has the buffer of all blocks
		switch op {
		case coll.OpGather, coll.OpGatherv:
			a.Recv = nil
		case coll.OpScatter, coll.OpScatterv:
			a.Send = nil
		}
	}
	return a
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Trace runs the call on a recording world of simulated ranks and returns
// its schedule and the algorithm that ran.
func Trace(c Call) (*Schedule, coll.Algorithm, error) {
	if c.Ranks < 1 {
		return nil, coll.Algorithm{}, fmt.Errorf("%w: %d ranks", coll.ErrArg, c.Ranks)
	}
	w := New(c.Ranks, Options{Record: true, Timeout: time.Minute})
	var opts []coll.Option
	if c.Algorithm != "" {
		if _, err := coll.Lookup(c.Op, c.Algorithm); err != nil {
			return nil, coll.Algorithm{}, err
		}
		opts = append(opts, coll.WithAlgorithm(c.Algorithm))
	}
	if c.SegmentSize > 0 {
		opts = append(opts, coll.WithSegmentSize(c.SegmentSize))
	}
	var chosen string
	errs := w.Run(func(cm coll.Comm) error {
		a := ExampleArgs(c.Op, c.Ranks, cm.Rank(), c.Bytes, c.Root)
		if cm.Rank() == 0 {
			name, err := coll.Choose(cm, c.Op, a, opts...)
			if err != nil {
				return err
			}
			chosen = name
		}
		return coll.Call(cm, c.Op, a, opts...)
	})
	for _, err := range errs { // the ranks usually all report the same problem: say it once
		if err != nil {
			return nil, coll.Algorithm{}, err
		}
	}
	alg, err := coll.Lookup(c.Op, chosen)
	return w.Schedule(), alg, err
}

// Explanation is a traced call with what there is to say about it.
type Explanation struct {
	Call      Call
	Algorithm coll.Algorithm
	Schedule  *Schedule
}

// Explain traces the call.
func Explain(c Call) (*Explanation, error) {
	s, alg, err := Trace(c)
	if err != nil {
		return nil, err
	}
	return &Explanation{c, alg, s}, nil
}

// Terms are the coefficients of α, β and γ in the cost of the call.
func (e *Explanation) Terms() (alpha, beta, gamma float64) {
	if e.Algorithm.Cost.Terms == nil {
		return 0, 0, 0
	}
	return e.Algorithm.Cost.Terms(e.Call.Ranks, e.Call.Bytes, e.Call.SegmentSize)
}

// WriteText writes a header (the call, the algorithm's idea, its cost
// formula and terms) and the schedule.
func (e *Explanation) WriteText(w io.Writer) error {
	c := e.Call
	head := fmt.Sprintf("# %s/%s: %d ranks, %d bytes (%s)", c.Op, e.Algorithm.Name, c.Ranks, c.Bytes, c.Op.SizeMeaning())
	if c.Op.Rooted() {
		head += fmt.Sprintf(", root %d", c.Root)
	}
	if c.SegmentSize > 0 {
		head += fmt.Sprintf(", segments of %d bytes", c.SegmentSize)
	}
	a, b, g := e.Terms()
	if _, err := fmt.Fprintf(w, "%s\n# %s\n# cost: %s\n#     = %s for p = %d, m = %d\n",
		head, e.Algorithm.Summary, e.Algorithm.Cost.Formula, FormatTerms(a, b, g), c.Ranks, c.Bytes); err != nil {
		return err
	}
	return e.Schedule.WriteText(w)
}

// FormatTerms writes a cost as "3α + 3072β + 1024γ", leaving out zero terms.
func FormatTerms(alpha, beta, gamma float64) string {
	var parts []string
	for _, t := range []struct {
		c    float64
		name string
	}{{alpha, "α"}, {beta, "β"}, {gamma, "γ"}} {
		if t.c != 0 {
			num := strings.TrimRight(strings.TrimRight(strconv.FormatFloat(t.c, 'f', 2, 64), "0"), ".")
			parts = append(parts, num+t.name)
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, " + ")
}
