package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/gompi/gompi/expert"
	"github.com/spf13/pflag"
)

func init() {
	commands["report"] = struct {
		run   func([]string) int
		usage string
	}{runReport, "find performance problems in a trace: cost, call sites, advice, predicted gain"}
}

func runReport(args []string) int {
	fs := pflag.NewFlagSet("goexpert report", pflag.ContinueOnError)
	format := fs.String("format", "text", "text or json")
	rules := fs.StringArray("rules", nil, "a rule file to add to the knowledge base (repeatable)")
	noKB := fs.Bool("no-kb", false, "use only the --rules files, not the shipped knowledge base")
	svg := fs.String("svg", "", "also draw where each rank's time went into this SVG file")
	top := fs.Int("top", 5, "call sites listed per problem (text)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: goexpert report DIR [flags]\n\nDIR is a trace directory written by golaunch --trace DIR.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(os.Stderr, "goexpert report: --format %q: expected text or json\n", *format)
		return 2
	}
	rs, err := expert.LoadRules(*noKB, *rules...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "goexpert report:", err)
		return 1
	}
	t, raw, err := expert.ReadTrace(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "goexpert report:", err)
		return 1
	}
	rep := expert.BuildReport(rs, t)
	rep.Notes = expert.TraceNotes(raw)
	if *svg != "" {
		f, err := os.Create(*svg)
		if err == nil {
			err = rep.WriteSVG(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "goexpert report:", err)
			return 1
		}
	}
	w := bufio.NewWriter(os.Stdout)
	if *format == "json" {
		err = rep.WriteJSON(w)
	} else {
		err = rep.WriteText(w, *top)
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "goexpert report:", err)
		return 1
	}
	return 0
}
