package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/coll/sim"
)

func init() {
	register("coll-algorithms", "list every collective algorithm with its idea and α–β cost, or the selection table", runCollAlgorithms)
}

func runCollAlgorithms(args []string) error {
	fs := pflag.NewFlagSet("coll-algorithms", pflag.ContinueOnError)
	fs.SortFlags = false
	opName := fs.String("op", "", "only this operation")
	selection := fs.Bool("selection", false, "print the selection table instead (max 0: no limit)")
	format := fs.String("format", "text", "output: text, csv or json")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: benches coll-algorithms [--op OP] [--selection] [--format text|csv|json]")
		fmt.Fprintln(os.Stderr)
		fs.PrintDefaults()
	}
	if done, err := parseFlags(fs, args); done || err != nil {
		return err
	}
	ops := coll.Operations()
	if *opName != "" {
		op, err := coll.ParseOperation(*opName)
		if err != nil {
			return err
		}
		ops = []coll.Operation{op}
	}
	if *selection && *format == "text" {
		return sim.WriteSelectionTable(os.Stdout, ops...)
	}
	header := []string{"operation", "algorithm", "summary", "cost", "constraints", "commutative_only"}
	var rows [][]string
	if *selection {
		header = []string{"operation", "max_ranks", "max_bytes", "algorithms", "min_ranks", "min_bytes"}
	}
	for _, op := range ops {
		if *selection {
			for _, r := range coll.Table(op) {
				rows = append(rows, []string{string(op), strconv.Itoa(r.MaxRanks), strconv.Itoa(r.MaxBytes), strings.Join(r.Use, " "),
					strconv.Itoa(r.MinRanks), strconv.Itoa(r.MinBytes)})
			}
			continue
		}
		for _, a := range coll.Algorithms(op) {
			rows = append(rows, []string{string(op), a.Name, a.Summary, a.Cost.Formula, a.Constraints, fmt.Sprint(a.Commutative)})
		}
	}
	if *format != "text" {
		return writeRows(*format, header, rows)
	}
	w := tabwriter.NewWriter(os.Stdout, 2, 8, 2, ' ', 0)
	last := ""
	for _, r := range rows {
		if r[0] != last {
			last = r[0]
			fmt.Fprintf(w, "\n%s\t(m: %s; override with %s=NAME)\n", r[0], coll.Operation(r[0]).SizeMeaning(), coll.EnvVar(coll.Operation(r[0])))
		}
		fmt.Fprintf(w, "  %s\t%s\n", r[1], r[2])
		fmt.Fprintf(w, "  \tcost: %s\n", r[3])
		if r[4] != "" {
			fmt.Fprintf(w, "  \twhen: %s\n", r[4])
		}
	}
	return w.Flush()
}

// writeRows writes a table for programs: csv with a header line, or json as
// an array of objects keyed by the header.
func writeRows(format string, header []string, rows [][]string) error {
	switch format {
	case "csv":
		w := csv.NewWriter(os.Stdout)
		w.Write(header)
		w.WriteAll(rows)
		return w.Error()
	case "json":
		out := make([]map[string]string, len(rows))
		for i, row := range rows {
			out[i] = map[string]string{}
			for j, h := range header {
				out[i][h] = row[j]
			}
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return fmt.Errorf("--format %q: want text, csv or json", format)
}
