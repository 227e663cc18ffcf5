package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gompi/gompi/benches/internal/report"
	"github.com/gompi/gompi/hwtopo"
)

func init() {
	register("topo", "print the machine's topology like lstopo, draw it as SVG, plan rank placement", runTopo)
}

func runTopo(args []string) error {
	fs := newFlags("topo", "[flags]")
	format := report.Text
	fs.Var(&format, "format", "output format: text (lstopo-style tree), csv or json (one row per CPU, or per rank with --plan)")
	root := fs.String("root", "", "read sysfs below this directory (a snapshot) instead of this machine's")
	svg := fs.String("svg", "", "also draw the topology as SVG into this file")
	snapshot := fs.String("snapshot", "", "copy the sysfs files the topology is read from into this directory")
	plan := fs.Int("plan", 0, "print a placement plan for this many ranks")
	var mapBy hwtopo.MapBy
	var bindTo = hwtopo.BindCore
	fs.Var(&mapBy, "map-by", "placement order for --plan: core (compact) or socket (round-robin)")
	fs.Var(&bindTo, "bind-to", "binding for --plan: none, core or socket")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}

	var t *hwtopo.Topology
	var err error
	if *root != "" {
		t, err = hwtopo.Load(*root)
	} else {
		t, err = hwtopo.Discover()
	}
	if err != nil {
		return err
	}
	if *snapshot != "" {
		src := *root
		if src == "" {
			src = "/"
		}
		if err := hwtopo.Snapshot(src, *snapshot); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "snapshot of %s written to %s\n", src, *snapshot)
	}
	if *svg != "" {
		if err := writeFile(*svg, t.WriteSVG); err != nil {
			return err
		}
	}
	if *plan > 0 {
		p, err := t.Plan(*plan, mapBy, bindTo)
		if err != nil {
			return err
		}
		if w := p.Warning(); w != "" {
			fmt.Fprintf(os.Stderr, "warning: %s\n", w)
		}
		tb := report.NewTable("rank", "package", "core", "cpus", "sharing")
		for _, s := range p.Slots {
			cpus := s.CPUs.String()
			if cpus == "" {
				cpus = "unbound"
			}
			tb.Add(s.Rank, s.Package, s.Core, cpus, s.Sharing)
		}
		return tb.Write(os.Stdout, format)
	}
	if format != report.Text {
		tb := report.NewTable("cpu", "package", "core", "core_id", "node")
		for _, c := range t.CPUs {
			tb.Add(c.ID, c.Package, c.Core, c.CoreID, c.Node)
		}
		return tb.Write(os.Stdout, format)
	}
	if err := t.WriteText(os.Stdout); err != nil {
		return err
	}
	return writeSummary(t)
}

// writeSummary prints what the tree does not show: model, allowed CPUs, and
// the NUMA distance matrix as numactl --hardware does.
func writeSummary(t *hwtopo.Topology) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\nmodel: %s (%s); source: %s; online CPUs %s, allowed %s\n", t.Model, t.Vendor, t.Source, t.Online, t.Allowed)
	if !t.NUMA {
		b.WriteString("NUMA: the kernel describes no NUMA nodes; memory binding is not supported\n")
	} else {
		b.WriteString("node distances:\nnode")
		for _, n := range t.Nodes {
			fmt.Fprintf(&b, " %3d", n.ID)
		}
		b.WriteByte('\n')
		for i, n := range t.Nodes {
			fmt.Fprintf(&b, "%3d:", n.ID)
			for _, d := range t.Distances[i] {
				fmt.Fprintf(&b, " %3d", d)
			}
			b.WriteByte('\n')
		}
	}
	_, err := os.Stdout.WriteString(b.String())
	return err
}

// writeFile creates path and fills it with write.
func writeFile(path string, write func(w io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
