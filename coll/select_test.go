package coll_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/coll/sim"
)

// onRank0 runs f on rank 0 of an n-rank world whose other ranks do nothing.
// f runs on the rank's goroutine, so it reports with t.Error, not t.Fatal.
func onRank0(t *testing.T, n int, f func(c coll.Comm)) {
	t.Helper()
	sim.New(n, sim.Options{}).Run(func(c coll.Comm) error {
		if c.Rank() == 0 {
			f(c)
		}
		return nil
	})
}

func TestSelectDefaultTable(t *testing.T) {
	for _, tc := range []struct {
		op       coll.Operation
		n, bytes int
		want     string
	}{
		{coll.OpBarrier, 64, 0, "dissemination"},
		{coll.OpBcast, 64, 1024, "binomial"},
		{coll.OpBcast, 4, 1 << 20, "binomial"},
		{coll.OpBcast, 64, 1 << 20, "scatter_allgather"},
		{coll.OpAllreduce, 16, 8, "recursive_doubling"},
		{coll.OpAllreduce, 16, 64 << 10, "rabenseifner"},
		{coll.OpAllreduce, 16, 64 << 20, "ring"},
		{coll.OpAllgather, 16, 100, "bruck"},
		{coll.OpAlltoall, 16, 1 << 20, "pairwise"},
		{coll.OpReduceScatter, 16, 1 << 20, "ring"},
	} {
		if got := coll.Select(tc.op, tc.n, tc.bytes); got != tc.want {
			t.Errorf("Select(%s, %d, %d) = %q, want %q", tc.op, tc.n, tc.bytes, got, tc.want)
		}
	}
	for _, op := range coll.Operations() { // the table names only registered algorithms
		for _, r := range coll.Table(op) {
			for _, name := range r.Use {
				if _, err := coll.Lookup(op, name); err != nil {
					t.Errorf("table of %s: %v", op, err)
				}
			}
		}
	}
}

// chooser is a communicator with its own algorithm preferences.
type chooser struct {
	coll.Comm
	pick string
}

func (c chooser) ChooseAlgorithm(coll.Operation, int, int) string { return c.pick }

func TestOverrides(t *testing.T) {
	// The overrides are read once; read them again after t.Setenv's
	// cleanups (registered later, so run earlier) have restored them.
	t.Cleanup(coll.ReadEnvironment)
	onRank0(t, 4, func(c coll.Comm) {
		a := &coll.Args{Recv: make([]byte, 10)}
		choose := func(c coll.Comm, opts ...coll.Option) string {
			name, err := coll.Choose(c, coll.OpBcast, a, opts...)
			if err != nil {
				t.Error(err) // not Fatal: this runs on a rank's goroutine
			}
			return name
		}
		if got := choose(c); got != "binomial" {
			t.Errorf("table: %s", got)
		}
		t.Setenv("GOMPI_COLL_BCAST", "chain")
		coll.ReadEnvironment()
		if got := choose(c); got != "chain" {
			t.Errorf("environment: %s, want chain", got)
		}
		if got := choose(chooser{c, "linear"}); got != "linear" {
			t.Errorf("communicator over environment: %s, want linear", got)
		}
		if got := choose(chooser{c, ""}); got != "chain" {
			t.Errorf("communicator without preference: %s, want the environment's chain", got)
		}
		if got := choose(chooser{c, "linear"}, coll.WithAlgorithm("scatter_allgather")); got != "scatter_allgather" {
			t.Errorf("call over communicator: %s", got)
		}
		t.Setenv("GOMPI_COLL_BCAST", "fastest")
		coll.ReadEnvironment()
		_, err := coll.Choose(c, coll.OpBcast, a)
		if !errors.Is(err, coll.ErrUnknownAlgorithm) || !strings.Contains(err.Error(), "GOMPI_COLL_BCAST") ||
			!strings.Contains(err.Error(), "valid: binomial, linear, chain, scatter_allgather") {
			t.Errorf("unknown name in the environment: %v", err)
		}
		if coll.EnvVar(coll.OpReduceScatterBlock) != "GOMPI_COLL_REDUCE_SCATTER_BLOCK" {
			t.Errorf("EnvVar: %s", coll.EnvVar(coll.OpReduceScatterBlock))
		}
	})
}

// TestRefuseNonCommutative: an algorithm that cannot keep rank order refuses
// a non-commutative op when named, and selection passes over it.
func TestRefuseNonCommutative(t *testing.T) {
	matmul := coll.NewOp("matmul", false, matMul)
	onRank0(t, 8, func(c coll.Comm) {
		for _, alg := range builtins {
			if !alg.Commutative {
				continue
			}
			a := sim.ExampleArgs(alg.Op, 8, 0, 5<<20, 0) // past every table threshold
			a.Op = matmul
			_, err := coll.Choose(c, alg.Op, a, coll.WithAlgorithm(alg.Name))
			if !errors.Is(err, coll.ErrNotApplicable) {
				t.Errorf("%s/%s with a non-commutative op: %v", alg.Op, alg.Name, err)
			}
			name, err := coll.Choose(c, alg.Op, a)
			if err != nil {
				t.Error(err) // not Fatal: this runs on a rank's goroutine
				continue
			}
			if got, _ := coll.Lookup(alg.Op, name); got.Commutative {
				t.Errorf("%s selects %s for a non-commutative op", alg.Op, name)
			}
		}
	})
}

func TestArgumentErrors(t *testing.T) {
	onRank0(t, 4, func(c coll.Comm) {
		for _, tc := range []struct {
			what string
			err  error
		}{
			{"root out of range", coll.Bcast(c, nil, 4)},
			{"gather recv too small", coll.Gather(c, make([]byte, 3), make([]byte, 11), 0)},
			{"allreduce without op", coll.Allreduce(c, make([]byte, 4), make([]byte, 4), coll.Op{})},
			{"odd bytes for int32", coll.Allreduce(c, make([]byte, 6), make([]byte, 6), coll.Sum[int32]())},
			{"send and recv differ", coll.Allreduce(c, make([]byte, 8), make([]byte, 4), coll.Sum[int32]())},
			{"negative count", coll.Gatherv(c, nil, make([]byte, 8), []int{1, -1, 1, 1}, []int{0, 1, 2, 3}, 0)},
			{"block out of the buffer", coll.Allgatherv(c, make([]byte, 2), make([]byte, 8), []int{2, 2, 2, 2}, []int{0, 2, 4, 7})},
			{"reduce_scatter count not whole elements", coll.ReduceScatter(c, make([]byte, 16), make([]byte, 2), []int{2, 6, 4, 4}, coll.Sum[int32]())},
		} {
			var e *coll.Error
			if !errors.Is(tc.err, coll.ErrArg) || !errors.As(tc.err, &e) || e.Rank != 0 || e.Peer != -1 {
				t.Errorf("%s: %v", tc.what, tc.err)
			}
		}
		err := coll.Bcast(c, nil, 0, coll.WithAlgorithm("nope"))
		if !errors.Is(err, coll.ErrUnknownAlgorithm) {
			t.Errorf("unknown algorithm: %v", err)
		}
	})
}

// TestRegister plays the runtime adding a shared-memory barrier that only
// some communicators can use, and preferring it where they can.
func TestRegister(t *testing.T) {
	type shared struct{ coll.Comm }
	ran := 0
	futex := coll.Algorithm{
		Op: coll.OpBarrier, Name: "test_futex", Summary: "a barrier for ranks that share memory",
		Available: func(c coll.Comm, _ *coll.Args) bool { _, ok := c.(shared); return ok },
		Run: func(c coll.Comm, _ *coll.Args) error {
			ran++
			return coll.Barrier(c.(shared).Comm, coll.WithAlgorithm("dissemination"))
		},
	}
	if err := coll.Register(futex); err != nil {
		t.Fatal(err)
	}
	if err := coll.Register(futex); !errors.Is(err, coll.ErrArg) {
		t.Errorf("second registration: %v", err)
	}
	old := coll.Table(coll.OpBarrier)
	defer coll.SetTable(coll.OpBarrier, old)
	rules := coll.Table(coll.OpBarrier)
	for i := range rules {
		rules[i].Use = append([]string{"test_futex"}, rules[i].Use...)
	}
	if err := coll.SetTable(coll.OpBarrier, rules); err != nil {
		t.Fatal(err)
	}
	onRank0(t, 1, func(c coll.Comm) {
		if err := coll.Barrier(shared{c}); err != nil || ran != 1 {
			t.Errorf("preferred and available: err %v, ran %d times", err, ran)
		}
		if err := coll.Barrier(c); err != nil || ran != 1 {
			t.Errorf("preferred, not available: err %v, ran %d times", err, ran)
		}
		if err := coll.Barrier(c, coll.WithAlgorithm("test_futex")); !errors.Is(err, coll.ErrNotApplicable) {
			t.Errorf("named but not available: %v", err)
		}
	})
	if err := coll.SetTable(coll.OpBarrier, []coll.Rule{{MaxRanks: 8, Use: []string{"linear"}}}); !errors.Is(err, coll.ErrArg) {
		t.Errorf("table without a catch-all rule: %v", err)
	}
	if err := coll.SetTable(coll.OpBarrier, []coll.Rule{{Use: []string{"nope"}}}); !errors.Is(err, coll.ErrUnknownAlgorithm) {
		t.Errorf("table with an unknown name: %v", err)
	}
}

// TestCosts checks that every algorithm has a summary and a cost formula that
// evaluates to a time that does not shrink as the message grows.
func TestCosts(t *testing.T) {
	for _, alg := range builtins {
		if alg.Summary == "" || alg.Cost.Formula == "" || alg.Cost.Terms == nil {
			t.Errorf("%s/%s: missing summary or cost", alg.Op, alg.Name)
			continue
		}
		for _, p := range []int{1, 2, 6, 8, 17} {
			small := alg.Cost.Eval(p, 1024, 0, 1e-6, 1e-9, 1e-10)
			large := alg.Cost.Eval(p, 1<<20, 0, 1e-6, 1e-9, 1e-10)
			if small < 0 || large < small {
				t.Errorf("%s/%s p=%d: cost %g for 1 KiB, %g for 1 MiB", alg.Op, alg.Name, p, small, large)
			}
		}
	}
}

// TestRuleBounds: rules with lower and upper bounds, and a rule whose
// algorithm cannot run a call passing it on to the next rule that matches
// ("fits where it fits, else mid between its bounds, else binomial").
func TestRuleBounds(t *testing.T) {
	for _, alg := range []coll.Algorithm{
		{Op: coll.OpBcast, Name: "test_fits", Summary: "runs messages of at most 100 bytes",
			Available: func(_ coll.Comm, a *coll.Args) bool { return len(a.Recv) <= 100 },
			Run: func(c coll.Comm, a *coll.Args) error {
				return coll.Bcast(c, a.Recv, a.Root, coll.WithAlgorithm("linear"))
			}},
		{Op: coll.OpBcast, Name: "test_mid", Summary: "runs anything",
			Run: func(c coll.Comm, a *coll.Args) error {
				return coll.Bcast(c, a.Recv, a.Root, coll.WithAlgorithm("linear"))
			}},
	} {
		if err := coll.Register(alg); err != nil {
			t.Fatal(err)
		}
	}
	old := coll.Table(coll.OpBcast)
	defer coll.SetTable(coll.OpBcast, old)
	rules := []coll.Rule{
		{Use: []string{"test_fits"}},
		{MinRanks: 3, MaxRanks: 8, MinBytes: 200, MaxBytes: 400, Use: []string{"test_mid"}},
		{Use: []string{"binomial"}},
	}
	if err := coll.SetTable(coll.OpBcast, rules); err != nil {
		t.Fatal(err)
	}
	if got := coll.Table(coll.OpBcast); len(got) != 3 || got[1].MinRanks != 3 || got[1].MinBytes != 200 || got[1].MaxBytes != 400 {
		t.Errorf("Table gives %+v", got)
	}
	for _, tc := range []struct {
		n, bytes int
		want     string
	}{
		{4, 50, "test_fits"}, {4, 100, "test_fits"}, {4, 101, "binomial"}, {4, 199, "binomial"},
		{4, 200, "test_mid"}, {4, 400, "test_mid"}, {4, 401, "binomial"}, {3, 300, "test_mid"},
		{8, 300, "test_mid"}, {2, 300, "binomial"}, {9, 300, "binomial"},
	} {
		onRank0(t, tc.n, func(c coll.Comm) {
			got, err := coll.Choose(c, coll.OpBcast, &coll.Args{Recv: make([]byte, tc.bytes)})
			if err != nil || got != tc.want {
				t.Errorf("%d ranks, %d bytes: chose %q (%v), want %q", tc.n, tc.bytes, got, err, tc.want)
			}
		})
	}
	// Select gives the first choice of the first rule that matches, without
	// asking whether it can run.
	if got := coll.Select(coll.OpBcast, 4, 300); got != "test_fits" {
		t.Errorf("Select: %q", got)
	}
	if !rules[1].Matches(3, 200) || rules[1].Matches(3, 199) || rules[1].Matches(2, 300) || rules[1].Matches(4, 401) {
		t.Error("Rule.Matches disagrees with the bounds")
	}
	for _, bad := range [][]coll.Rule{
		{{MinBytes: 10, Use: []string{"linear"}}},
		{{MinRanks: 2, Use: []string{"linear"}}},
		{{MinBytes: 500, MaxBytes: 400, Use: []string{"linear"}}, {Use: []string{"linear"}}},
		{{MinRanks: 5, MaxRanks: 4, Use: []string{"linear"}}, {Use: []string{"linear"}}},
		{{MinBytes: -1, Use: []string{"linear"}}, {Use: []string{"linear"}}},
	} {
		if err := coll.SetTable(coll.OpBcast, bad); !errors.Is(err, coll.ErrArg) {
			t.Errorf("SetTable(%+v): %v", bad, err)
		}
	}
}
