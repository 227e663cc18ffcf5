// Command goexpert reads the traces golaunch --trace writes: it finds
// performance problems with their cost, place and advice (report), and
// checks and lists the rules it uses (rules).
//
//	golaunch --trace t -n 4 ./examples/jacobi --variant naive
//	goexpert report t
//	goexpert report t --format json --rules mine.rules --svg t.svg
//	goexpert rules check mine.rules
//	goexpert rules list
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
)

// commands are goexpert's subcommands; each gets its own arguments and
// returns the process's exit status.
var commands = map[string]struct {
	run   func(args []string) int
	usage string
}{}

func main() {
	if len(os.Args) < 2 || os.Args[1] == "-h" || os.Args[1] == "--help" || os.Args[1] == "help" {
		usage()
		if len(os.Args) < 2 {
			os.Exit(2)
		}
		return
	}
	c, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "goexpert: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	os.Exit(c.run(os.Args[2:]))
}

func usage() {
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("usage: goexpert <command> [arguments]\n\ncommands:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  %-10s %s\n", n, commands[n].usage)
	}
	fmt.Fprint(os.Stderr, b.String())
}
