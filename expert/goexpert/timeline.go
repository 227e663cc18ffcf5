package main

import (
	"bufio"
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
	t, err := trace.ReadDir(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "goexpert timeline:", err)
		return 1
	}
	switch *format {
	case "perfetto", "json":
		err = writeFile(*out, func(f *bufio.Writer) error { return trace.WritePerfetto(f, t) })
	case "otf2":
		err = trace.WriteOTF2(*out, t)
	case "svg":
		err = writeFile(*out, func(f *bufio.Writer) error { return trace.WriteSVG(f, t) })
	default:
		fmt.Fprintf(os.Stderr, "goexpert timeline: --format %q: want perfetto, otf2 or svg\n", *format)
		return 2
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "goexpert timeline:", err)
		return 1
	}
	summary(t)
	return 0
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
func summary(t *trace.Trace) {
	n := 0
	for _, rt := range t.Ranks {
		n += len(rt.Events)
	}
	c := t.Clock
	fmt.Fprintf(os.Stderr, "%d ranks, %d events, %d messages matched (%d sends and %d receives unmatched, %d incomplete)\n",
		len(t.Ranks), n, len(t.Messages), t.Match.UnmatchedSends, t.Match.UnmatchedRecvs, t.Match.Incomplete)
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
