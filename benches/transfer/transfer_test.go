package transfer

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gompi/gompi/benches/internal/msu"
	"github.com/gompi/gompi/gompi"
)

// fill returns buffers whose send buffer holds rank's pattern.
func fill(rank int, size int64) *Buffers {
	b := NewBuffers(size)
	for i := range b.send {
		b.send[i] = byte(rank*100 + i)
	}
	return b
}

// received checks that the last receive holds peer's pattern.
func received(b *Buffers, peer, size int, slot int) error {
	for i := range size {
		if b.recv[slot][i] != byte(peer*100+i) {
			return fmt.Errorf("byte %d received from rank %d is %d", i, peer, b.recv[slot][i])
		}
	}
	return nil
}

func repeat(n int, calls ...string) []string {
	var out []string
	for range n {
		out = append(out, calls...)
	}
	return out
}

// Each test's message pattern, per rank, for two exchanges of 8 bytes
// (spec section 1: rank 0 sends L bytes and rank 1 answers; the
// bi-directional tests start together after a synchronisation point), and
// the peer's bytes arrive.
func TestPatterns(t *testing.T) {
	for _, tc := range []struct {
		test int
		want func(rank, peer int) []string
	}{
		{1, func(rank, peer int) []string {
			if rank == 0 {
				return append([]string{"Barrier"}, repeat(2, "Send(to 1, 8 B)", "Recv(from 1, 8 B)")...)
			}
			return append([]string{"Barrier"}, repeat(2, "Recv(from 0, 8 B)", "Send(to 0, 8 B)")...)
		}},
		{2, func(rank, peer int) []string {
			return append([]string{"Barrier"}, repeat(2, fmt.Sprintf("Sendrecv(to %d from %d, 8 B)", peer, peer))...)
		}},
		{3, func(rank, peer int) []string {
			r, s := fmt.Sprintf("Irecv(from %d, 8 B)", peer), fmt.Sprintf("Isend(to %d, 8 B)", peer)
			return append([]string{"Barrier"}, repeat(2, r, s, "Waitall: "+r+", "+s)...)
		}},
		{4, func(rank, peer int) []string {
			// The receive of the next message is posted before each
			// ready-mode send; the first one before the Barrier.
			r, s := fmt.Sprintf("Irecv(from %d, 8 B)", peer), fmt.Sprintf("Rsend(to %d, 8 B)", peer)
			return []string{r, "Barrier", r, s, "Wait: " + r, s, "Wait: " + r}
		}},
		{5, func(rank, peer int) []string {
			r, s := fmt.Sprintf("RecvInit(from %d, 8 B)", peer), fmt.Sprintf("SendInit(to %d, 8 B)", peer)
			return append([]string{r, s, "Barrier"}, repeat(2, "Startall: "+r+", "+s, "Waitall: "+r+", "+s)...)
		}},
	} {
		calls, err := msu.Record(2, func(c msu.Comm) error {
			b := fill(c.Rank(), 8)
			if _, err := Measure(c, tc.test, 8, 2, b); err != nil {
				return err
			}
			// Test 4 receives alternately into its two buffers; the last
			// of two exchanges lands in the second.
			slot := 0
			if tc.test == 4 {
				slot = 1
			}
			return received(b, 1-c.Rank(), 8, slot)
		})
		if err != nil {
			t.Errorf("test %d: %v", tc.test, err)
			continue
		}
		for rank, got := range calls {
			if want := tc.want(rank, 1-rank); !slices.Equal(got, want) {
				t.Errorf("test %d, rank %d:\n%s\nwant:\n%s", tc.test, rank, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}

// Both ranks agree on the number of exchanges, found by doubling trials
// that rank 0 announces with a Bcast.
func TestIterations(t *testing.T) {
	var got [2]int
	calls, err := msu.Record(2, func(c msu.Comm) error {
		n, err := Iterations(c, 1, 0, NewBuffers(0), 1e-9)
		got[c.Rank()] = n
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != got[1] || got[0] < 1 {
		t.Errorf("ranks found %v exchanges", got)
	}
	// With a budget too small for any run, one trial of one exchange decides.
	want := []string{"Barrier", "Send(to 1, 0 B)", "Recv(from 1, 0 B)", "Bcast(root 0, 8 B)"}
	if !slices.Equal(calls[0], want) {
		t.Errorf("rank 0: %q, want %q", calls[0], want)
	}
}

func TestMeasureErrors(t *testing.T) {
	err := gompi.Run(2, func(c *gompi.Comm) error {
		if _, err := Measure(msu.Gompi(c), 6, 0, 1, NewBuffers(0)); err == nil || !strings.Contains(err.Error(), "no test 6") {
			return fmt.Errorf("test 6: %v", err)
		}
		if _, err := Measure(msu.Gompi(c), 1, 0, 0, NewBuffers(0)); err == nil {
			return errors.New("0 exchanges: no error")
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// R = 2NL/T in MB/sec with MB = 2^20: the original's sample row, 1024 bytes
// at 3.906 MB/sec when a message takes 250 µs.
func TestFormulas(t *testing.T) {
	if got := Bandwidth(1024, 1, 2*250e-6); math.Abs(got-3.906) > 5e-4 {
		t.Errorf("Bandwidth(1024 B, N=1, T=500 µs) = %g, want 3.906 as in the original", got)
	}
	if got := Bandwidth(3072, 100, 0.1); !near(got, 2*100*3072/0.1/(1<<20)) {
		t.Errorf("Bandwidth = %g", got)
	}
	if got := PerMessage(1000, 0.004); !near(got, 2e-6) {
		t.Errorf("PerMessage(1000, 4 ms) = %g, want 2 µs", got)
	}
	r := Result{Test: 1, Size: 1 << 20, Iters: 4, Times: []float64{0.008, 0.004, 0.016}}
	s := r.Stats()
	// Median run 8 ms for 4 exchanges of 1 MB each way: 1 ms a message,
	// 1000 MB/sec; the fastest run (4 ms) gives the most.
	want := Stats{Time: 1e-3, TimeMin: 0.5e-3, TimeMax: 2e-3, Rate: 1000, RateMin: 500, RateMax: 2000}
	for _, p := range [][2]float64{{s.Time, want.Time}, {s.TimeMin, want.TimeMin}, {s.TimeMax, want.TimeMax},
		{s.Rate, want.Rate}, {s.RateMin, want.RateMin}, {s.RateMax, want.RateMax}} {
		if !near(p[0], p[1]) {
			t.Errorf("Stats = %+v, want %+v", s, want)
			break
		}
	}
}

// synthetic returns results that follow T(L) = s + L/R exactly for each
// message, with runs 10 % either side of it.
func synthetic(test int, s, r float64, sizes ...int64) []Result {
	var rs []Result
	for _, L := range sizes {
		per := s + float64(L)/(r*(1<<20))
		T := 2 * 10 * per
		rs = append(rs, Result{Test: test, Size: L, Iters: 10, Times: []float64{0.9 * T, T, 1.1 * T}})
	}
	return rs
}

func TestFit(t *testing.T) {
	f, err := FitModel(synthetic(1, 2e-6, 1000, 0, 1024, 4096, 65536))
	if err != nil {
		t.Fatal(err)
	}
	if !near(f.Latency, 2e-6) || math.Abs(f.Bandwidth-1000) > 1e-6 || f.MinSize != 0 || f.MaxSize != 65536 {
		t.Errorf("fit %+v, want s = 2 µs, R = 1000 MB/sec", f)
	}
	line := f.String()
	for _, w := range []string{"s = 2.000 ± 0.000 microseconds", "R = 1000.0 ± 0.0 MB/sec", "over 4 sizes 0..65536"} {
		if !strings.Contains(line, w) {
			t.Errorf("%q does not say %q", line, w)
		}
	}
	// Time that does not grow with size has no R.
	flat := synthetic(1, 5e-6, math.Inf(1), 1, 2)
	if f, err := FitModel(flat); err != nil || !math.IsNaN(f.Bandwidth) || !strings.Contains(f.String(), "R not defined") {
		t.Errorf("flat: %+v, %v", f, err)
	}
	if _, err := FitModel(synthetic(1, 1e-6, 100, 64)); err == nil {
		t.Error("one size: no error")
	}
}

// The text is the original's: the header, the latency line for size 0,
// size and MB/sec, then (ours) the range and the fit.
func TestWriteText(t *testing.T) {
	var b strings.Builder
	if err := WriteText(&b, synthetic(1, 250e-6, 1e9, 0, 1024, 2048)); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"Size       Transfer (MB/sec)   [min .. max]\n" +
		"Latency: 250.000 microseconds   [225.000 .. 275.000]\n" +
		"1024              3.906       [3.551 .. 4.340]\n" +
		"2048              7.812       [7.102 .. 8.681]\n"
	got := b.String()
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "T(L) = s + L/R: s = 250.000") {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestTestList(t *testing.T) {
	for in, want := range map[string]testList{"3": {3}, "1,4": {1, 4}, "1..5": {1, 2, 3, 4, 5}, "2..3,5": {2, 3, 5}} {
		var l testList
		if err := l.Set(in); err != nil || !slices.Equal(l, want) {
			t.Errorf("%q: %v, %v", in, l, err)
		}
	}
	for _, in := range []string{"0", "6", "1..6", "3..1", "x", ""} {
		var l testList
		if err := l.Set(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// runMain runs Main on n in-process ranks.
func runMain(t *testing.T, n int, args ...string) (stdout, stderr string, errs []error) {
	return msu.RunMain(n, Main, args...)
}

func TestCommand(t *testing.T) {
	dir := t.TempDir()
	file, svg := filepath.Join(dir, "transfer.dat"), filepath.Join(dir, "t.svg")
	// The original syntax, twice into one file: o appends.
	for range 2 {
		if _, _, errs := runMain(t, 2, "m0", "M64", "s32", "T2", "--iters", "3", "--test", "4", "o"+file, "b4096"); errs[0] != nil || errs[1] != nil {
			t.Fatal(errs)
		}
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "Size       Transfer (MB/sec)"); n != 2 {
		t.Errorf("the file has %d tables, want 2:\n%s", n, b)
	}
	for _, w := range []string{"Latency: ", "\n32 ", "\n64 ", "T(L) = s + L/R"} {
		if !strings.Contains(string(b), w) {
			t.Errorf("the file does not have %q:\n%s", w, b)
		}
	}
	// Flags, two tests, JSON lines and a plot.
	out, diag, errs := runMain(t, 2, "--test", "1,5", "--min", "1", "--max", "4", "--reps", "2", "--iters", "2", "--format", "json", "--plot", svg)
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], `{"test":1,"size":1,"reps":2,"iters":2,"mbps":`) ||
		!strings.HasPrefix(lines[5], `{"test":5,"size":4,`) {
		t.Errorf("json:\n%s", out)
	}
	if !strings.Contains(diag, "transf1: T(L) = s + L/R") || !strings.Contains(diag, "transf5: T(L)") {
		t.Errorf("the fits are not on stderr:\n%s", diag)
	}
	if b, err := os.ReadFile(svg); err != nil || !bytes.HasPrefix(b, []byte("<svg")) || !bytes.Contains(b, []byte("transf5")) {
		t.Errorf("plot: %v\n%.200s", err, b)
	}
}

func TestCommandErrors(t *testing.T) {
	// A wrong number of ranks: the same usage error on every rank, at once.
	for _, n := range []int{1, 3} {
		_, _, errs := runMain(t, n, "--test", "1")
		for rank, err := range errs {
			var u *msu.UsageError
			if !errors.As(err, &u) || !strings.Contains(err.Error(), fmt.Sprintf("needs exactly 2 ranks, not %d", n)) {
				t.Errorf("%d ranks, rank %d: %v", n, rank, err)
			}
		}
	}
	for _, c := range []struct{ args, want []string }{
		{[]string{"s1024", "K2"}, []string{"exclude each other"}},
		{[]string{"m4096", "M1024"}, []string{"m4096", "M1024"}},
		{[]string{"T0"}, []string{"T (--reps)", "T0"}},
		{[]string{"K1"}, []string{"K1"}},
		{[]string{"q7"}, []string{`"q7"`}},
		{[]string{"--test", "9"}, []string{"bad test"}},
		{[]string{"--timer", "sundial"}, []string{"--timer sundial"}},
	} {
		_, _, errs := runMain(t, 2, c.args...)
		var u *msu.UsageError
		if !errors.As(errs[0], &u) {
			t.Errorf("%q: %v, want a usage error", c.args, errs[0])
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(errs[0].Error(), w) {
				t.Errorf("%q: %q does not say %q", c.args, errs[0], w)
			}
		}
	}
	if _, diag, errs := runMain(t, 2, "--help"); errs[0] != nil || !strings.Contains(diag, "m<size>      is --min") {
		t.Errorf("--help: %v\n%s", errs[0], diag)
	}
}
