package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/gompi/gompi/expert"
	"github.com/gompi/gompi/expert/lang"
	"github.com/spf13/pflag"
)

func init() {
	commands["rules"] = struct {
		run   func([]string) int
		usage string
	}{runRules, "check rule files (rules check FILE...), list the knowledge base (rules list [--source])"}
}

func runRules(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: goexpert rules check FILE... | goexpert rules list [--source]")
		return 2
	}
	switch args[0] {
	case "check":
		fs := pflag.NewFlagSet("goexpert rules check", pflag.ContinueOnError)
		noKB := fs.Bool("no-kb", false, "check the files alone, without the knowledge base's event types")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		if fs.NArg() == 0 {
			fmt.Fprintln(os.Stderr, "usage: goexpert rules check FILE...")
			return 2
		}
		rs, err := expert.LoadRules(*noKB, fs.Args()...)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		n := 0
		for _, p := range rs.Problems {
			for _, f := range fs.Args() {
				if p.Pos.File == f {
					n++
				}
			}
		}
		fmt.Printf("ok: %s (%d problems of their own; %d in all with the knowledge base)\n", strings.Join(fs.Args(), ", "), n, len(rs.Problems))
		return 0
	case "list":
		fs := pflag.NewFlagSet("goexpert rules list", pflag.ContinueOnError)
		source := fs.Bool("source", false, "print the rule files themselves")
		rules := fs.StringArray("rules", nil, "a rule file to list with the knowledge base")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		if *source {
			names, src := expert.KnowledgeBase()
			for _, n := range names {
				fmt.Printf("# ---- %s\n%s\n", n, src[n])
			}
			return 0
		}
		rs, err := expert.LoadRules(false, *rules...)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		listRules(rs)
		return 0
	}
	fmt.Fprintf(os.Stderr, "goexpert rules: unknown subcommand %q: expected check or list\n", args[0])
	return 2
}

func listRules(rs *lang.Rules) {
	fmt.Println("Problems:")
	for _, p := range rs.Problems {
		fmt.Printf("  %-36s for %-22s %s\n", p.Name, p.For, p.Pos)
	}
	fmt.Println("\nComposite events:")
	for _, c := range rs.Composites {
		var ms []string
		for _, m := range c.Members {
			s := m.Type + " as " + m.Name
			if m.All {
				s = "all " + s
			}
			if m.Shared {
				s = "shared " + s
			}
			ms = append(ms, s)
		}
		fmt.Printf("  %-22s member(%s)  %s\n", c.Name, strings.Join(ms, ", "), c.Pos)
	}
	fmt.Println("\nSimple events (tracing rules):")
	for _, e := range rs.Events {
		fmt.Printf("  %-14s for %s  %s\n", e.Name, strings.Join(e.Routines, ", "), e.Pos)
	}
}
