// Command benches runs the gompi benchmark suites.
//
//	benches SUITE [arguments]
//
// Each suite is a package under benches/ with its own flags; `benches` alone
// lists them. Suites that need several ranks run under golaunch, e.g.
//
//	golaunch -n 8 benches mpiperf
package main

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"text/tabwriter"
	"time"
)

// A suite is one benchmark program: its name on the command line, a one-line
// summary for the listing, and its entry point (arguments after the name).
type suite struct {
	name    string
	summary string
	run     func(args []string) error
}

// suites is the registry; each suite adds itself in a file of this package
// (suite_<name>.go) so that suites can be added without touching this file.
var suites []suite

func register(name, summary string, run func(args []string) error) {
	suites = append(suites, suite{name, summary, run})
}

// errUsage marks an error already explained to the user: exit 2, no extra text.
var errUsage = errors.New("usage")

func main() {
	sort.Slice(suites, func(i, j int) bool { return suites[i].name < suites[j].name })
	if len(os.Args) < 2 || os.Args[1] == "-h" || os.Args[1] == "--help" || os.Args[1] == "help" {
		listSuites()
		if len(os.Args) < 2 {
			os.Exit(2)
		}
		return
	}
	name := os.Args[1]
	for _, s := range suites {
		if s.name == name {
			if err := s.run(os.Args[2:]); err != nil {
				switch {
				case exitCode(err) == 2 && notFirstRank():
					// Every rank made the same mistake and rank 0 says
					// it: let it, before a launcher stops the job
					// because this rank ended first.
					time.Sleep(2 * time.Second)
				case !errors.Is(err, errUsage):
					fmt.Fprintf(os.Stderr, "benches %s: %v\n", name, err)
				}
				os.Exit(exitCode(err))
			}
			return
		}
	}
	if notFirstRank() {
		time.Sleep(2 * time.Second) // rank 0 says it (see above)
	} else {
		fmt.Fprintf(os.Stderr, "benches: unknown suite %q\n\n", name)
		listSuites()
	}
	os.Exit(2)
}

func exitCode(err error) int {
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	if errors.Is(err, errUsage) {
		return 2
	}
	return 1
}

func listSuites() {
	fmt.Fprintln(os.Stderr, "usage: benches SUITE [arguments]   (benches SUITE --help for its flags)")
	fmt.Fprintln(os.Stderr, "\nsuites:")
	w := tabwriter.NewWriter(os.Stderr, 2, 8, 2, ' ', 0)
	for _, s := range suites {
		fmt.Fprintf(w, "  %s\t%s\n", s.name, s.summary)
	}
	w.Flush()
}
