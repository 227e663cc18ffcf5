package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gompi/gompi/trace"
	"github.com/spf13/pflag"
)

func init() {
	commands["timeline"] = struct {
		run   func([]string) int
		usage string
	}{runTimeline, "export a trace as a timeline: Perfetto/Chrome JSON or OTF2"}
}

func runTimeline(args []string) int {
	fs := pflag.NewFlagSet("goexpert timeline", pflag.ContinueOnError)
	out := fs.StringP("output", "o", "", "the file to write (required); a name ending in .otf2 writes an OTF2 archive")
	inMemory := fs.Bool("in-memory", false, "read the whole trace into memory before writing (as the SVG always does); the default streams\nPerfetto and OTF2 with memory that does not grow with the trace's length")
	format := fs.String("format", "", "perfetto (Chrome/Perfetto trace-event JSON), otf2, or svg (a picture, for small traces);\ndefault: from the name of -o (.otf2, .svg), else perfetto")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, `usage: goexpert timeline DIR -o FILE [--format perfetto|otf2|svg]

DIR is a trace directory written by golaunch --trace DIR (or GOMPI_TRACE=DIR).
Perfetto JSON opens in https://ui.perfetto.dev or chrome://tracing. OTF2
(FILE.otf2, the anchor, with FILE.def and FILE/) opens in Vampir and reads
back with otf2-print (Debian: otf2-tools) or python3-otf2.`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 || *out == "" {
		fs.Usage()
		return 2
	}
	if *format == "" {
		*format = "perfetto"
		if strings.HasSuffix(*out, ".otf2") {
			*format = "otf2"
		} else if strings.HasSuffix(*out, ".svg") {
			*format = "svg"
		}
	}
	var sum trace.Summary
	switch *format {
	case "perfetto", "json", "otf2":
	case "svg":
		*inMemory = true
	default:
		fmt.Fprintf(os.Stderr, "goexpert timeline: --format %q: want perfetto, otf2 or svg\n", *format)
		return 2
	}
	var err error
	if !*inMemory {
		sum, err = streamed(fs.Arg(0), *format, *out)
		if errors.Is(err, trace.ErrUnordered) {
			fmt.Fprintf(os.Stderr, "goexpert timeline: %v; reading it into memory instead\n", err)
			*inMemory = true
		}
	}
	if *inMemory {
		sum, err = readAll(fs.Arg(0), *format, *out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "goexpert timeline:", err)
		return 1
	}
	summary(sum)
	return 0
}

// streamed exports with trace.OpenStream: memory bounded by what is in
// flight, not by the length of the trace.
func streamed(dir, format, out string) (trace.Summary, error) {
	s, err := trace.OpenStream(dir)
	if err != nil {
		return trace.Summary{}, err
	}
	if format == "otf2" {
		err = s.WriteOTF2(out)
	} else {
		err = writeFile(out, func(f *bufio.Writer) error { return s.WritePerfetto(f) })
	}
	return s.Summary(), err
}

// readAll exports with trace.ReadDir, which holds every event.
func readAll(dir, format, out string) (trace.Summary, error) {
	t, err := trace.ReadDir(dir)
	if err != nil {
		return trace.Summary{}, err
	}
	switch format {
	case "otf2":
		err = trace.WriteOTF2(out, t)
	case "svg":
		err = writeFile(out, func(f *bufio.Writer) error { return trace.WriteSVG(f, t) })
	default:
		err = writeFile(out, func(f *bufio.Writer) error { return trace.WritePerfetto(f, t) })
	}
	return t.Summary(), err
}

func writeFile(path string, write func(*bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := write(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// summary tells on stderr what the trace holds and what the reader did to it.
func summary(t trace.Summary) {
	c := t.Clock
	fmt.Fprintf(os.Stderr, "%d ranks, %d events, %d messages matched (%d sends and %d receives unmatched, %d incomplete)\n",
		t.Ranks, t.Events, t.Messages, t.Match.UnmatchedSends, t.Match.UnmatchedRecvs, t.Match.Incomplete)
	fmt.Fprintf(os.Stderr, "clocks (%s): offsets to rank 0 within %.3g µs", t.Manifest.Clock, c.MaxErr*1e6)
	if c.NoDrift > 0 {
		fmt.Fprintf(os.Stderr, " at their measurement, growing with time for %d ranks without a drift estimate", c.NoDrift)
	}
	fmt.Fprintf(os.Stderr, "; repair moved %d events (%d receives that ended before their send began), at most %.3g µs\n",
		c.Moved, c.Violations, c.MaxShift*1e6)
	if t.Dropped > 0 {
		fmt.Fprintf(os.Stderr, "warning: %d records were dropped while tracing\n", t.Dropped)
	}
}
