// Package msu holds what the three suites of the MSU Research Computing
// Center's test suite share (benches transfer, nettest and mpitest; see
// spec/msu-suite.md): the original letter-value argument syntax, message
// size progressions, the options every suite has, and the small
// communicator interface the suites' procedures are written over, with an
// adapter to gompi and a recorder that writes down every call (which is how
// the tests check each procedure's message pattern).
package msu

import (
	"errors"
	"fmt"
	"github.com/gompi/gompi/benches/internal/outpath"
	"github.com/gompi/gompi/benches/internal/tty"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gompi/gompi/benches/internal/report"
	"github.com/gompi/gompi/gompi"
)

// MB is the unit of the suites' bandwidths, 2^20 bytes, as in the original:
// its example rows (1024 bytes at 3.906 MB/sec for 250 µs per message) only
// add up with it.
const MB = 1 << 20

// A UsageError is a mistake in the command line or in how the job was
// started (a wrong number of ranks). Every rank finds the same one; the
// command prints it once and exits with status 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ExitCode is the command's exit status for a usage error.
func (e *UsageError) ExitCode() int { return 2 }

// Usagef returns a UsageError.
func Usagef(format string, a ...any) error { return &UsageError{fmt.Sprintf(format, a...)} }

// CheckRanks returns a UsageError unless the job has between lo and hi ranks
// (hi < 0: no upper bound).
func CheckRanks(suite string, n, lo, hi int) error {
	switch {
	case hi == lo && n != lo:
		return Usagef("needs exactly %d ranks, not %d: run golaunch -n %d benches %s", lo, n, lo, suite)
	case n < lo:
		return Usagef("needs at least %d ranks, not %d: run golaunch -n %d benches %s", lo, n, lo, suite)
	case hi >= 0 && n > hi:
		return Usagef("needs at most %d ranks, not %d", hi, n)
	}
	return nil
}

// A Letter is a parameter of the original syntax: a letter and a value in
// one argument ("m1024", "otransfer.dat"), standing for a long flag.
type Letter struct {
	Letter byte
	Flag   string // the long flag it sets, without "--"
}

// ParseArgs parses args into fs. Arguments that start with "-" are flags
// (--min 1K, --format=csv, -h); every other argument is a parameter of the
// original syntax, a letter and its value with nothing between, in any order:
// its value is given to the letter's long flag, so it is checked as that
// flag's value would be. The letter arguments are applied first, so a long
// flag given as well wins. Mistakes are UsageErrors that name the argument;
// --help gives pflag.ErrHelp.
func ParseArgs(fs *pflag.FlagSet, args []string, letters []Letter) error {
	fs.SetOutput(io.Discard)
	var flags []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && a != "-" {
			flags = append(flags, a)
			if a == "--" {
				flags = append(flags, args[i+1:]...)
				break
			}
			if takesNext(fs, a) && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
			continue
		}
		if err := setLetter(fs, a, letters); err != nil {
			return err
		}
	}
	if err := fs.Parse(flags); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return Usagef("%v (see --help)", err)
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected arguments %q (see --help)", fs.Args())
	}
	return nil
}

// takesNext reports whether flag argument a ("--min", "-n") takes the next
// argument as its value.
func takesNext(fs *pflag.FlagSet, a string) bool {
	var f *pflag.Flag
	if name, ok := strings.CutPrefix(a, "--"); ok {
		if strings.Contains(name, "=") {
			return false
		}
		f = fs.Lookup(name)
	} else if len(a) == 2 {
		f = fs.ShorthandLookup(a[1:])
	}
	return f != nil && f.NoOptDefVal == ""
}

func setLetter(fs *pflag.FlagSet, a string, letters []Letter) error {
	if a == "" {
		return Usagef("an empty argument: parameters are a letter and a value, as in %s", example(fs, letters))
	}
	for _, l := range letters {
		if a[0] != l.Letter {
			continue
		}
		if len(a) == 1 {
			return Usagef("argument %q: %c needs a value right after it, as in %c%s", a, l.Letter, l.Letter, fs.Lookup(l.Flag).DefValue)
		}
		if err := fs.Set(l.Flag, a[1:]); err != nil {
			return Usagef("argument %q (%c, --%s): %v", a, l.Letter, l.Flag, err)
		}
		return nil
	}
	return Usagef("argument %q: no parameter %q here; the parameters are %s (see --help)", a, a[:1], example(fs, letters))
}

// example lists the letters as "m<size> M<size> T<int>".
func example(fs *pflag.FlagSet, letters []Letter) string {
	parts := make([]string, len(letters))
	for i, l := range letters {
		parts[i] = fmt.Sprintf("%c<%s>", l.Letter, fs.Lookup(l.Flag).Value.Type())
	}
	return strings.Join(parts, " ")
}

// LetterUsage describes the original syntax for a suite's --help.
func LetterUsage(fs *pflag.FlagSet, letters []Letter) string {
	var b strings.Builder
	b.WriteString("The original syntax works too: parameters are a letter and its value in one argument,\nin any order:\n")
	for _, l := range letters {
		fmt.Fprintf(&b, "  %-12s is --%s\n", fmt.Sprintf("%c<%s>", l.Letter, fs.Lookup(l.Flag).Value.Type()), l.Flag)
	}
	return b.String()
}

// Options are the flags every suite has.
type Options struct {
	Format report.Format
	Output string // append the results to this file instead of writing them to stdout
	Plot   string // draw MB/s against size into this SVG file
	Timer  string // the clock Wtime reads
}

// AddFlags defines the options' flags in fs; --plot only when plot is set.
func (o *Options) AddFlags(fs *pflag.FlagSet, plot bool) {
	fs.Var(&o.Format, "format", "output: text (the original's table), csv or json (one object per line)")
	fs.StringVarP(&o.Output, "output", "o", "", "append the results to this file instead of writing them to stdout")
	if plot {
		fs.StringVar(&o.Plot, "plot", "", "also draw MB/sec against message size, log-log, into this SVG file")
	}
	fs.StringVar(&o.Timer, "timer", "", "clock for Wtime: monotonic, tsc or realtime (default: GOMPI_TIMER, else monotonic)")
}

// SetTimer applies --timer.
func (o *Options) SetTimer() error {
	if o.Timer == "" {
		return nil
	}
	if err := gompi.SetTimer(o.Timer); err != nil {
		return Usagef("--timer %s: %v", o.Timer, err)
	}
	return nil
}

// Write writes the results with write: to stdout, or appended to the
// --output file (created if need be).
func (o *Options) Write(stdout io.Writer, write func(w io.Writer) error) error {
	if o.Output == "" {
		return write(stdout)
	}
	f, err := os.OpenFile(o.Output, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// IO is where a suite writes: results to Stdout, reports to Stderr, and
// progress lines to Progress (nil: none).
type IO struct {
	Stdout, Stderr, Progress io.Writer
}

// StdIO writes to the process's stdout and stderr, with progress on stderr
// only for rank 0 and only when stderr is a terminal (under golaunch: when
// golaunch's is).
func StdIO(rank int) IO {
	io := IO{Stdout: os.Stdout, Stderr: os.Stderr}
	if tty.Is(os.Stderr) && rank == 0 {
		io.Progress = os.Stderr
	}
	return io
}

// Progressf overwrites the progress line, if there is one.
func (io IO) Progressf(format string, a ...any) {
	if io.Progress != nil {
		fmt.Fprintf(io.Progress, "\r\033[K"+format, a...)
	}
}

// ProgressDone clears the progress line.
func (io IO) ProgressDone() {
	if io.Progress != nil {
		fmt.Fprint(io.Progress, "\r\033[K")
	}
}

// A Suite describes one of the three commands for Setup.
type Suite struct {
	Name        string   // transfer, nettest, mpitest
	Synopsis    string   // the usage line after "benches NAME"
	Description string   // a paragraph for --help
	Letters     []Letter // the original syntax
	MinRanks    int
	MaxRanks    int // < 0: no limit
}

// Setup prepares a run on every rank: it parses args into fs (see
// ParseArgs), checks the number of ranks and sets the timer. With --help it
// writes the help to stderr on rank 0 and reports help; every other problem
// is an error, the same on every rank.
func (s *Suite) Setup(world *gompi.Comm, fs *pflag.FlagSet, args []string, o *Options, stderr io.Writer) (help bool, err error) {
	if err := ParseArgs(fs, args, s.Letters); err != nil {
		if !errors.Is(err, pflag.ErrHelp) {
			return false, err
		}
		if world.Rank() == 0 {
			fmt.Fprintf(stderr, "usage: benches %s %s\n\n%s\n\nflags:\n%s\n%s",
				s.Name, s.Synopsis, s.Description, fs.FlagUsages(), LetterUsage(fs, s.Letters))
		}
		return true, nil
	}
	if err := CheckRanks(s.Name, world.Size(), s.MinRanks, s.MaxRanks); err != nil {
		return false, err
	}
	// The files are written after the run: refuse now what could not be.
	for _, f := range []struct{ flag, path string }{{"--output", o.Output}, {"--plot", o.Plot}} {
		if err := outpath.Check(f.flag, f.path); err != nil {
			return false, Usagef("%v", err)
		}
	}
	return false, o.SetTimer()
}
