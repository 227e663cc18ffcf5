package mpitest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gompi/gompi/benches/internal/msu"
)

// want is what rank i does for each row (run twice after preparing it),
// with p its partner (-1: none): the collectives on every rank with root
// 0, the point-to-point rows between ranks 2k and 2k+1, the even one
// sending first.
func want(name string, i, p int) []string {
	twice := func(calls ...string) []string { return append(calls, calls...) }
	even := i%2 == 0
	pick := func(evenCalls, oddCalls []string) []string {
		switch {
		case p < 0:
			return nil
		case even:
			return evenCalls
		}
		return oddCalls
	}
	five := func(s string) []string { return []string{s, s, s, s, s} }
	join := func(ss []string) string { return strings.Join(ss, ", ") }
	to, from := func(b int) string { return fmt.Sprintf("(to %d, %d B)", p, b) }, func(b int) string { return fmt.Sprintf("(from %d, %d B)", p, b) }
	switch name {
	case "Global sum (Allreduce)":
		return twice("AllreduceSum(1)")
	case "10 global sums (Allreduce)":
		return twice("AllreduceSum(10)")
	case "Global sum (Reduce)":
		return twice("ReduceSum(root 0, 1)")
	case "10 Global sums (Reduce)":
		return twice("ReduceSum(root 0, 10)")
	case "Broadcast":
		return twice("Bcast(root 0, 4 B)")
	case "Gather":
		return twice("Gather(root 0, 4 B)")
	case "Iprobe":
		return twice("Iprobe(from -1)")
	case "Non-blocking vector send with wait":
		return pick(twice("Isend"+to(40), "Wait: Isend"+to(40)), twice("Recv"+from(40)))
	case "Blocking vector send":
		return pick(twice("Send"+to(40)), twice("Recv"+from(40)))
	case "SendRecv":
		return pick(twice(fmt.Sprintf("Sendrecv(to %d from %d, 4 B)", p, p)), twice(fmt.Sprintf("Sendrecv(to %d from %d, 4 B)", p, p)))
	case "Send and receive":
		return pick(twice("Send"+to(4), "Recv"+from(4)), twice("Recv"+from(4), "Send"+to(4)))
	case "signal sending":
		return pick(twice("Send"+to(0), "Recv"+from(0)), twice("Recv"+from(0), "Send"+to(0)))
	case "5 sends in one":
		s, r := five("SendInit"+to(4)), five("RecvInit"+from(4))
		return pick(append(s, twice("Startall: "+join(s), "Waitall: "+join(s))...),
			append(r, twice("Startall: "+join(r), "Waitall: "+join(r))...))
	case "5 sends":
		s, r := five("Isend"+to(4)), five("Irecv"+from(4))
		return pick(twice(append(s, "Waitall: "+join(s))...), twice(append(r, "Waitall: "+join(r))...))
	}
	panic("no row " + name)
}

func TestPatterns(t *testing.T) {
	for _, n := range []int{2, 3, 4} {
		for _, row := range Rows {
			calls, err := msu.Record(n, func(c msu.Comm) error {
				construct, err := row.prepare(c, partner(c.Rank(), n))
				if err != nil {
					return err
				}
				for range 2 {
					if err := construct(); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Errorf("%s, %d ranks: %v", row.Name, n, err)
				continue
			}
			for i, got := range calls {
				if w := want(row.Name, i, partner(i, n)); !slices.Equal(got, w) {
					t.Errorf("%s, %d ranks, rank %d:\n%s\nwant:\n%s", row.Name, n, i, strings.Join(got, "\n"), strings.Join(w, "\n"))
				}
			}
		}
	}
}

func TestPartners(t *testing.T) {
	got := []int{partner(0, 5), partner(1, 5), partner(2, 5), partner(3, 5), partner(4, 5)}
	if !slices.Equal(got, []int{1, 0, 3, 2, -1}) {
		t.Errorf("partners on 5 ranks: %v", got)
	}
}

// Run times DT from t timer reads, DB and every row between Barriers (spec
// section 3), one warm-up run first.
func TestRun(t *testing.T) {
	var rs []Result
	calls, err := msu.Record(3, func(c msu.Comm) error {
		r, err := Run(c, Config{Reps: 2, FastReps: 5}, nil)
		if c.Rank() == 0 {
			rs = r
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{TimingName, BarrierName}
	for _, row := range Rows {
		names = append(names, row.Name)
	}
	for i, r := range rs {
		n := 2
		if i == 0 {
			n = 5
		}
		if r.Name != names[i] || len(r.Times) != n || len(r.Raw) != n {
			t.Errorf("result %d: %s with %d runs, want %s with %d", i, r.Name, len(r.Times), names[i], n)
		}
	}
	// Rank 2 has no partner: Barrier pairs, 3 runs each, around the
	// collectives, its Iprobe, and nothing for the point-to-point rows.
	var w []string
	w = append(w, repeat(3, "Barrier", "Barrier")...)
	for _, row := range Rows {
		calls := want(row.Name, 2, -1)
		w = append(w, repeat(3, append(append([]string{"Barrier"}, calls[:len(calls)/2]...), "Barrier")...)...)
	}
	if !slices.Equal(calls[2], w) {
		t.Errorf("rank 2:\n%s\nwant:\n%s", strings.Join(calls[2], "\n"), strings.Join(w, "\n"))
	}
}

func repeat(n int, calls ...string) []string {
	var out []string
	for range n {
		out = append(out, calls...)
	}
	return out
}

func TestCorrect(t *testing.T) {
	if got := Correct(10.0, 10.5, 0.1, 0.2); math.Abs(got-0.2) > 1e-12 {
		t.Errorf("Correct(t1 10, t2 10.5, DT 0.1, DB 0.2) = %g, want 0.2", got)
	}
}

func TestWriteText(t *testing.T) {
	var b strings.Builder
	rs := []Result{{Name: TimingName, Times: []float64{30e-6, 31e-6, 29e-6}}, {Name: BarrierName, Times: []float64{2914e-6}}}
	if err := WriteText(&b, rs); err != nil {
		t.Fatal(err)
	}
	if want := "    30.000  Timing\n  2914.000  Barrier\n"; b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestCommand(t *testing.T) {
	out, diag, errs := msu.RunMain(3, Main, "T3", "t100")
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2+len(Rows) || !strings.HasSuffix(lines[0], "  Timing") || !strings.HasSuffix(lines[15], "  signal sending") {
		t.Errorf("output:\n%s", out)
	}
	if !strings.Contains(diag, "3 runs per row") || !strings.Contains(diag, "100 timer reads") {
		t.Errorf("stderr: %s", diag)
	}
	out, _, errs = msu.RunMain(2, Main, "--reps", "1", "--fast-reps", "1", "--format", "json")
	if errs[0] != nil || !strings.HasPrefix(out, `{"name":"Timing","procs":2,"reps":1,"time_us":`) || !strings.Contains(out, `,"raw_us":`) {
		t.Errorf("json: %v\n%s", errs[0], out)
	}
	_, _, errs = msu.RunMain(1, Main)
	if !errors.As(errs[0], new(*msu.UsageError)) || !strings.Contains(errs[0].Error(), "needs at least 2 ranks, not 1") {
		t.Errorf("1 rank: %v", errs[0])
	}
	for _, args := range [][]string{{"t0"}, {"T-1"}, {"m1"}, {"Tx"}} {
		if _, _, errs := msu.RunMain(2, Main, args...); !errors.As(errs[0], new(*msu.UsageError)) || !strings.Contains(errs[0].Error(), args[0]) {
			t.Errorf("%q: %v, want a usage error naming it", args, errs[0])
		}
	}
}
