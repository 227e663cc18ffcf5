package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/coll/sim"
)

func init() {
	register("explain", "print (or draw) the message schedule of a collective algorithm, with its α–β cost", runExplain)
}

// runExplain runs one collective algorithm on simulated ranks and prints its
// schedule round by round, its cost formula and the formula's value.
func runExplain(args []string) error {
	fs := pflag.NewFlagSet("explain", pflag.ContinueOnError)
	fs.SortFlags = false
	opName := fs.String("op", "", "collective operation: "+opList())
	alg := fs.String("alg", "", "algorithm (default: the one selection picks; benches coll-algorithms lists them)")
	n := fs.IntP("ranks", "n", 8, "number of ranks")
	size := fs.Int("size", 1024, "size in bytes: the message, vector or block, as benches coll-algorithms says per operation (a multiple of 4 for reductions, which sum int32)")
	root := fs.Int("root", 0, "root of rooted operations")
	segment := fs.Int("segment", 0, "segment size in bytes of pipelined algorithms (0: their default)")
	svg := fs.String("svg", "", "also draw the schedule as SVG into this file")
	alpha := fs.Float64("alpha", 1e-6, "α: seconds per message")
	beta := fs.Float64("beta", 1e-9, "β: seconds per byte sent")
	gamma := fs.Float64("gamma", 1e-10, "γ: seconds per byte reduced")
	format := fs.String("format", "text", "output: text, or the messages as csv or json")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: benches explain --op OP [--alg NAME] [-n RANKS] [--size BYTES] [--root R] [--svg FILE]")
		fmt.Fprintln(os.Stderr, "\nPrints the message schedule of a collective algorithm run on simulated ranks.")
		fmt.Fprintln(os.Stderr, "Example: benches explain --op bcast --alg binomial -n 8 --size 1024")
		fmt.Fprintln(os.Stderr)
		fs.PrintDefaults()
	}
	if done, err := parseFlags(fs, args); done || err != nil {
		return err
	}
	if *opName == "" {
		fs.Usage()
		return errUsage
	}
	op, err := coll.ParseOperation(*opName)
	if err != nil {
		return err
	}
	if *n < 1 {
		return fmt.Errorf("-n %d: need at least one rank", *n)
	}
	e, err := sim.Explain(sim.Call{Op: op, Algorithm: *alg, Ranks: *n, Bytes: *size, Root: *root, SegmentSize: *segment})
	if err != nil {
		return err
	}
	if *svg != "" {
		f, err := os.Create(*svg)
		if err != nil {
			return err
		}
		title := fmt.Sprintf("%s/%s, %d ranks, %d bytes", op, e.Algorithm.Name, *n, *size)
		if err := e.Schedule.WriteSVG(f, title); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	a, b, g := e.Terms()
	model := a**alpha + b**beta + g**gamma
	switch *format {
	case "text":
		if err := e.WriteText(os.Stdout); err != nil {
			return err
		}
		fmt.Printf("model: %s = %s with α = %s, β = %s/B, γ = %s/B\n",
			sim.FormatTerms(a, b, g), seconds(model), seconds(*alpha), seconds(*beta), seconds(*gamma))
		return nil
	case "csv", "json":
		rows := make([][]string, len(e.Schedule.Messages))
		for i, m := range e.Schedule.Messages {
			rows[i] = []string{strconv.Itoa(m.Round), strconv.Itoa(m.From), strconv.Itoa(m.To), strconv.Itoa(m.Bytes), strconv.Itoa(m.Tag)}
		}
		return writeRows(*format, []string{"round", "from", "to", "bytes", "tag"}, rows)
	}
	return fmt.Errorf("--format %q: want text, csv or json", *format)
}

// seconds formats a time in s, ms, µs or ns.
func seconds(t float64) string {
	switch {
	case t == 0:
		return "0"
	case t >= 1:
		return fmt.Sprintf("%.4g s", t)
	case t >= 1e-3:
		return fmt.Sprintf("%.4g ms", t*1e3)
	case t >= 1e-6:
		return fmt.Sprintf("%.4g µs", t*1e6)
	}
	return fmt.Sprintf("%.4g ns", t*1e9)
}

func opList() string {
	s := ""
	for i, op := range coll.Operations() {
		if i > 0 {
			s += ", "
		}
		s += string(op)
	}
	return s
}
