package msu

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/gompi/gompi/benches/internal/params"
)

// flags is a suite's flag set as the suites build theirs.
type flags struct {
	fs           *pflag.FlagSet
	lo, hi, step params.Size
	reps         *int
	on           *bool
	o            Options
}

var letters = []Letter{{'m', "min"}, {'M', "max"}, {'s', "step"}, {'T', "reps"}, {'o', "output"}}

func newFlags() *flags {
	f := &flags{fs: pflag.NewFlagSet("suite", pflag.ContinueOnError), hi: 1 << 20}
	f.fs.Var(&f.lo, "min", "")
	f.fs.Var(&f.hi, "max", "")
	f.fs.Var(&f.step, "step", "")
	f.reps = f.fs.IntP("reps", "r", 10, "")
	f.on = f.fs.Bool("on", false, "")
	f.o.AddFlags(f.fs, true)
	return f
}

func TestParseArgs(t *testing.T) {
	for _, c := range []struct {
		args           []string
		lo, hi, step   int64
		reps           int
		output, format string
		on             bool
	}{
		// The original's examples.
		{args: []string{"m0", "M102400", "s1024", "otransfer.dat", "T10"}, hi: 102400, step: 1024, reps: 10, output: "transfer.dat", format: "text"},
		{args: []string{"T10", "m128", "M65536"}, lo: 128, hi: 65536, reps: 10, format: "text"},
		// Long flags, with values apart or after "=", sizes with suffixes.
		{args: []string{"--min", "1K", "--max=64K", "--reps", "3", "--format", "json"}, lo: 1024, hi: 65536, reps: 3, format: "json"},
		// Both at once: a flag's value ("csv", "4") is not taken for a letter; a bool flag takes none.
		{args: []string{"m8", "--format", "csv", "--on", "M1M", "-r", "4", "-o", "x.txt"}, lo: 8, hi: 1 << 20, reps: 4, output: "x.txt", format: "csv", on: true},
		// A long flag wins over its letter, whatever the order.
		{args: []string{"--reps", "7", "T100"}, hi: 1 << 20, reps: 7, format: "text"},
		// Values of the letters' flags go through the flag: suffixes work.
		{args: []string{"M2K", "oout,with=odd.name"}, hi: 2048, reps: 10, output: "out,with=odd.name", format: "text"},
	} {
		f := newFlags()
		if err := ParseArgs(f.fs, c.args, letters); err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		got := []any{int64(f.lo), int64(f.hi), int64(f.step), *f.reps, f.o.Output, f.o.Format.String(), *f.on}
		want := []any{c.lo, c.hi, c.step, c.reps, c.output, c.format, c.on}
		if !slices.Equal(got, want) {
			t.Errorf("%q: got %v, want %v", c.args, got, want)
		}
	}
}

func TestParseArgsErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string // in the message
	}{
		{[]string{"m0", "x5"}, []string{`"x5"`, `no parameter "x"`, "m<size> M<size> s<size> T<int> o<string>"}},
		{[]string{"mfoo"}, []string{`"mfoo"`, "--min", `bad size "foo"`}},
		{[]string{"T"}, []string{`"T"`, "needs a value", "T10"}},
		{[]string{"T1.5"}, []string{`"T1.5"`, "--reps"}},
		{[]string{"M-1"}, []string{`"M-1"`, "--max"}},
		{[]string{""}, []string{"empty argument"}},
		{[]string{"--nosuch"}, []string{"unknown flag: --nosuch"}},
		{[]string{"--reps", "many"}, []string{"--reps", "many"}},
		{[]string{"--format", "xml"}, []string{"xml", "text, csv or json"}},
		{[]string{"--", "m0"}, []string{"unexpected arguments", "m0"}},
	} {
		err := ParseArgs(newFlags().fs, c.args, letters)
		var u *UsageError
		if !errors.As(err, &u) {
			t.Errorf("%q: %v, want a UsageError", c.args, err)
			continue
		}
		if u.ExitCode() != 2 {
			t.Errorf("%q: exit code %d", c.args, u.ExitCode())
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %q does not say %q", c.args, err, w)
			}
		}
	}
	if err := ParseArgs(newFlags().fs, []string{"m0", "--help"}, letters); !errors.Is(err, pflag.ErrHelp) {
		t.Errorf("--help: %v", err)
	}
}

func TestCheckRanks(t *testing.T) {
	for _, c := range []struct {
		n, lo, hi int
		want      string
	}{
		{2, 2, 2, ""}, {4, 2, 2, "needs exactly 2 ranks, not 4"}, {1, 2, 2, "exactly 2 ranks, not 1"},
		{3, 3, -1, ""}, {64, 3, -1, ""}, {2, 3, -1, "needs at least 3 ranks, not 2: run golaunch -n 3 benches s"},
		{5, 2, 4, "at most 4 ranks, not 5"},
	} {
		err := CheckRanks("s", c.n, c.lo, c.hi)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckRanks(%d, %d..%d) = %v, want %q", c.n, c.lo, c.hi, err, c.want)
		}
	}
}

func TestSizes(t *testing.T) {
	for _, c := range []struct {
		lo, hi, step, factor int64
		want                 []int64
	}{
		{0, 4096, 1024, 2, []int64{0, 1024, 2048, 3072, 4096}}, // m0 M4096 s1024: the latency, then steps
		{1, 1024, 0, 2, []int64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}},
		{1, 1024, 0, 4, []int64{1, 4, 16, 64, 256, 1024}},
		{0, 8, 0, 2, []int64{0, 1, 2, 4, 8}},
		{128, 300, 0, 2, []int64{128, 256}},
		{0, 0, 0, 2, []int64{0}},
		{100, 100, 7, 2, []int64{100}},
	} {
		got, err := Sizes(c.lo, c.hi, c.step, c.factor)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Sizes(%d, %d, %d, %d) = %v, %v; want %v", c.lo, c.hi, c.step, c.factor, got, err, c.want)
		}
	}
	for _, c := range [][4]int64{{10, 5, 0, 2}, {1, 8, 0, 1}, {0, 1 << 40, 1, 2}} {
		if _, err := Sizes(c[0], c[1], c[2], c[3]); err == nil {
			t.Errorf("Sizes%v: no error", c)
		}
	}
}

// The recorder writes every call down as the rank made it, and Waitany and
// Waitall name the requests they complete; the calls still reach gompi.
func TestRecorder(t *testing.T) {
	calls, err := Record(2, func(c Comm) error {
		peer := 1 - c.Rank()
		out, in := []byte{byte(c.Rank())}, make([]byte, 1)
		r, err := c.Irecv(in, peer, 5)
		if err != nil {
			return err
		}
		s, err := c.Isend(out, peer, 5)
		if err != nil {
			return err
		}
		reqs := []Request{r, s}
		if _, err := c.Waitany(reqs[:1]); err != nil || reqs[0] != nil {
			return errors.Join(err, errors.New("Waitany left its request"))
		}
		if in[0] != byte(peer) {
			return errors.New("wrong message")
		}
		if err := c.Waitall(reqs); err != nil || reqs[1] != nil {
			return errors.Join(err, errors.New("Waitall left its request"))
		}
		ps, err := c.SendInit(out, peer, 6)
		if err != nil {
			return err
		}
		pr, err := c.RecvInit(in, peer, 6)
		if err != nil {
			return err
		}
		pers := []Request{pr, ps}
		if err := c.Startall(pers); err != nil {
			return err
		}
		if err := c.Waitall(pers); err != nil || pers[0] == nil {
			return errors.Join(err, errors.New("Waitall dropped a persistent request"))
		}
		return c.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Irecv(from 1, 1 B)", "Isend(to 1, 1 B)", "Waitany: Irecv(from 1, 1 B)", "Waitall: Isend(to 1, 1 B)",
		"SendInit(to 1, 1 B)", "RecvInit(from 1, 1 B)", "Startall: RecvInit(from 1, 1 B), SendInit(to 1, 1 B)",
		"Waitall: RecvInit(from 1, 1 B), SendInit(to 1, 1 B)", "Barrier",
	}
	if !slices.Equal(calls[0], want) {
		t.Errorf("rank 0:\n%s\nwant:\n%s", strings.Join(calls[0], "\n"), strings.Join(want, "\n"))
	}
}
