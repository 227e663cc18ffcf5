package nettest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gompi/gompi/benches/internal/msu"
)

func TestTopologies(t *testing.T) {
	for _, c := range []struct {
		t        Topology
		p        int
		channels int
		nb       [][]int
	}{
		{Star, 4, 3, [][]int{{1, 2, 3}, {0}, {0}, {0}}},
		{Chaos, 4, 6, [][]int{{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}}},
		{Ring, 4, 4, [][]int{{1, 3}, {2, 0}, {3, 1}, {0, 2}}},
		{Ring, 3, 3, [][]int{{1, 2}, {2, 0}, {0, 1}}},
		{Chaos, 3, 3, [][]int{{1, 2}, {0, 2}, {0, 1}}},
	} {
		if got := c.t.Channels(c.p); got != c.channels {
			t.Errorf("%v, %d ranks: %d channels, want %d", c.t, c.p, got, c.channels)
		}
		// Every channel is counted once from each end.
		ends := 0
		for i := range c.p {
			nb := c.t.Neighbours(i, c.p)
			ends += len(nb)
			if !slices.Equal(nb, c.nb[i]) {
				t.Errorf("%v, %d ranks: rank %d has neighbours %v, want %v", c.t, c.p, i, nb, c.nb[i])
			}
		}
		if ends != 2*c.channels {
			t.Errorf("%v, %d ranks: %d channel ends for %d channels", c.t, c.p, ends, c.channels)
		}
	}
	var names []string
	for _, p := range Procedures {
		names = append(names, p.Name())
	}
	if want := []string{"Star", "Chaos", "Ring", "iStar", "iChaos", "iRing"}; !slices.Equal(names, want) {
		t.Errorf("procedures %v, want the original's columns %v", names, want)
	}
}

func isend(j int) string { return fmt.Sprintf("Isend(to %d, 16 B)", j) }
func irecv(j int) string { return fmt.Sprintf("Irecv(from %d, 16 B)", j) }

// wantExact is the exact pattern of the procedures whose order is fixed
// (spec section 2): every one but Chaos, whose answers follow the order in
// which messages arrive.
func wantExact(p Procedure, i, n int) []string {
	nb := p.Topology.Neighbours(i, n)
	var calls []string
	switch {
	case p.Bi || p.Topology == Star && i == 0:
		// Isend to every neighbour, Irecv from every neighbour, Waitall.
		var reqs []string
		for _, j := range nb {
			reqs = append(reqs, isend(j))
		}
		for _, j := range nb {
			reqs = append(reqs, irecv(j))
		}
		calls = append(reqs, "Waitall: "+strings.Join(reqs, ", "))
	case p.Topology == Star:
		calls = []string{"Recv(from 0, 16 B)", "Send(to 0, 16 B)"}
	case p.Topology == Ring:
		// Two phases: to the right and from the left, then back.
		r, l := (i+1)%n, (i-1+n)%n
		calls = []string{isend(r), irecv(l), "Waitall: " + isend(r) + ", " + irecv(l),
			isend(l), irecv(r), "Waitall: " + isend(l) + ", " + irecv(r)}
	default:
		return nil
	}
	return append(append([]string{"Barrier"}, calls...), "Barrier")
}

// checkChaos checks rank i's uni-directional Chaos: Isend to every j > i,
// Irecv from every j != i, then Waitany for each receive, and right after
// a message from j < i has come, an Isend to j; a Waitall of the sends.
func checkChaos(calls []string, i, n int) error {
	var want []string
	for j := i + 1; j < n; j++ {
		want = append(want, isend(j))
	}
	for j := range n {
		if j != i {
			want = append(want, irecv(j))
		}
	}
	want = append([]string{"Barrier"}, want...)
	if len(calls) < len(want) || !slices.Equal(calls[:len(want)], want) {
		return fmt.Errorf("starts %q, want %q", calls, want)
	}
	rest := calls[len(want):]
	sends := want[1 : n-i]
	seen := map[int]bool{}
	for len(seen) < n-1 {
		var j int
		if len(rest) == 0 {
			return fmt.Errorf("only %d Waitany", len(seen))
		}
		if _, err := fmt.Sscanf(rest[0], "Waitany: Irecv(from %d, 16 B)", &j); err != nil || seen[j] {
			return fmt.Errorf("%q where a Waitany for a new receive should be", rest[0])
		}
		seen[j] = true
		rest = rest[1:]
		if j < i {
			if len(rest) == 0 || rest[0] != isend(j) {
				return fmt.Errorf("the message from %d is not answered at once: %q", j, rest)
			}
			sends = append(sends, rest[0])
			rest = rest[1:]
		}
	}
	if end := []string{"Waitall: " + strings.Join(sends, ", "), "Barrier"}; !slices.Equal(rest, end) {
		return fmt.Errorf("ends %q, want %q", rest, end)
	}
	return nil
}

// Every procedure on 3, 4 and 5 ranks: who sends what to whom, in which
// order, and each neighbour's bytes arrive.
func TestPatterns(t *testing.T) {
	for _, n := range []int{3, 4, 5} {
		for _, p := range Procedures {
			calls, err := msu.Record(n, func(c msu.Comm) error {
				b := NewBuffers(c.Rank(), n, 16)
				for j := range b.send {
					for k := range b.send[j] {
						b.send[j][k] = byte(10*c.Rank() + j + k)
					}
				}
				if _, err := Measure(c, p, 16, b); err != nil {
					return err
				}
				for _, j := range p.Topology.Neighbours(c.Rank(), n) {
					for k, v := range b.recv[j][:16] {
						if v != byte(10*j+c.Rank()+k) {
							return fmt.Errorf("rank %d: byte %d from %d is %d", c.Rank(), k, j, v)
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Errorf("%s, %d ranks: %v", p.Name(), n, err)
				continue
			}
			for i, got := range calls {
				if p == (Procedure{Chaos, false}) {
					if err := checkChaos(got, i, n); err != nil {
						t.Errorf("Chaos, %d ranks, rank %d: %v", n, i, err)
					}
				} else if want := wantExact(p, i, n); !slices.Equal(got, want) {
					t.Errorf("%s, %d ranks, rank %d:\n%s\nwant:\n%s", p.Name(), n, i, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
		}
	}
}

func TestCheckChaosFails(t *testing.T) {
	// The checker catches an answer sent before its message came.
	bad := []string{"Barrier", irecv(0), irecv(2), "Waitany: " + irecv(2), isend(0), "Waitany: " + irecv(0), "Waitall: " + isend(0), "Barrier"}
	if checkChaos(bad, 1, 3) == nil {
		t.Error("checkChaos passed an answer before its message")
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

func TestFormulas(t *testing.T) {
	const L, T = 1024, 1e-3
	// R(avg) = 2L/T; R(total) = 2·L·N(P)/T; R(avg) = R(total)/N(P).
	if got := Avg(L, T); !near(got, 2*1024/1e-3/(1<<20)) {
		t.Errorf("Avg = %g", got)
	}
	for _, topo := range []Topology{Star, Chaos, Ring} {
		n := topo.Channels(6)
		if !near(Avg(L, T), Total(L, n, T)/float64(n)) {
			t.Errorf("%v: R(avg) is not R(total)/N(P)", topo)
		}
	}
	// The centre of a Star on 5 ranks moves 2·L·4 bytes.
	r := Result{Procedure: Procedure{Star, false}, Size: L, Procs: 5}
	if got := LocalRate.Of(r, T); !near(got, Local(L, 4, T)) || !near(got, 4*Avg(L, T)) {
		t.Errorf("R(local) of the Star's centre = %g", got)
	}
	if got := TotalRate.Of(Result{Procedure: Procedure{Chaos, true}, Size: L, Procs: 5}, T); !near(got, 10*Avg(L, T)) {
		t.Errorf("R(total) of Chaos on 5 ranks = %g, want 10 channels' worth", got)
	}
}

func TestParseRates(t *testing.T) {
	if got, err := ParseRates("avg"); err != nil || len(got) != 0 {
		t.Errorf("avg: %v, %v", got, err)
	}
	if got, err := ParseRates("local,total,local"); err != nil || !slices.Equal(got, []Rate{LocalRate, TotalRate}) {
		t.Errorf("local,total: %v, %v", got, err)
	}
	if _, err := ParseRates("peak"); err == nil {
		t.Error("peak: no error")
	}
}

// results makes a result per procedure and size, each run taking T(L).
func results(procs int, T func(p Procedure, L int64) float64, sizes ...int64) []Result {
	var rs []Result
	for _, L := range sizes {
		for _, p := range Procedures {
			t := T(p, L)
			rs = append(rs, Result{Procedure: p, Size: L, Procs: procs, Times: []float64{t, 2 * t, 0.5 * t}})
		}
	}
	return rs
}

func TestWriteText(t *testing.T) {
	// Each procedure i (0..5) moves 1 MB a channel in (i+1) ms.
	rs := results(4, func(p Procedure, L int64) float64 {
		if L == 0 {
			return 5e-6
		}
		return float64(L) / (1 << 20) * 1e-3 * float64(slices.Index(Procedures, p)+1)
	}, 0, 1<<20)
	var b strings.Builder
	if err := WriteText(&b, rs, nil); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"Size            Star     Chaos      Ring     iStar    iChaos     iRing\n" +
		"0 (usec)       5.000     5.000     5.000     5.000     5.000     5.000\n" +
		"1048576     2000.000  1000.000   666.667   500.000   400.000   333.333\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteText(&b, rs, []Rate{TotalRate}); err != nil {
		t.Fatal(err)
	}
	// R(total) on 4 ranks: Star 3 channels, Chaos 6, Ring 4.
	if !strings.Contains(b.String(), "R(avg) per channel, MB/sec\n") ||
		!strings.Contains(b.String(), "R(total) of all channels, MB/sec\nSize") ||
		!strings.Contains(b.String(), "1048576     6000.000  6000.000  2666.667  1500.000  2400.000  1333.333\n") {
		t.Errorf("with R(total):\n%s", b.String())
	}
}

func TestCommand(t *testing.T) {
	out, diag, errs := msu.RunMain(3, Main, "m8", "M16", "T2", "--rates", "total,local", "--format", "csv")
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1+2*6 || lines[0] != "test,procs,size,reps,time_us,time_min_us,time_max_us,mbps,mbps_min,mbps_max,total_mbps,local_mbps" ||
		!strings.HasPrefix(lines[1], "Star,3,8,2,") || !strings.HasPrefix(lines[12], "iRing,3,16,2,") {
		t.Errorf("csv:\n%s", out)
	}
	if !strings.Contains(diag, "# nettest: 3 ranks, 2 runs") {
		t.Errorf("stderr: %s", diag)
	}
	out, _, errs = msu.RunMain(4, Main, "m1K", "M1K", "T1")
	if errs[0] != nil || !strings.HasPrefix(out, "Size            Star") || !strings.Contains(out, "\n1024  ") {
		t.Errorf("text: %v\n%s", errs[0], out)
	}
	_, _, errs = msu.RunMain(2, Main)
	for rank, err := range errs {
		var u *msu.UsageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), "needs at least 3 ranks, not 2") {
			t.Errorf("2 ranks, rank %d: %v", rank, err)
		}
	}
	for _, args := range [][]string{{"s8"}, {"T0"}, {"--rates", "peak"}, {"M1", "m2"}} {
		if _, _, errs := msu.RunMain(3, Main, args...); !errors.As(errs[0], new(*msu.UsageError)) {
			t.Errorf("%q: %v, want a usage error", args, errs[0])
		}
	}
}
