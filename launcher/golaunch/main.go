// Command golaunch starts the ranks of a gompi job and supervises them.
//
//	golaunch -n N [flags] PROGRAM [args...]
//
// PROGRAM is an executable, a command in PATH, or a Go package
// (./examples/hello), which is built once and then launched. See
// golaunch --help.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/gompi/gompi/hwtopo"
	"github.com/gompi/gompi/launcher"
	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"
)

const version = "0.1.0"

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := pflag.NewFlagSet("golaunch", pflag.ContinueOnError)
	fs.SetInterspersed(false) // flags after PROGRAM belong to PROGRAM
	fs.SortFlags = false
	n := fs.IntP("np", "n", 1, "number of ranks to start (-np is accepted too)")
	tag := fs.Bool("tag-output", false, "prefix every output line with [1,RANK]<stdout|stderr>:")
	var env []string
	fs.StringArrayVarP(&env, "env", "x", nil, "pass VAR (its value here) or VAR=VALUE to every rank; repeatable")
	timeout := fs.Duration("timeout", 0, "stop the whole job after this long (e.g. 30s, 5m); 0 means never")
	bindTo := hwtopo.BindNone
	fs.Var(&bindTo, "bind-to", "pin each rank to a core or a socket (none: let the OS place them)")
	mapBy := hwtopo.MapByCore
	fs.Var(&mapBy, "map-by", "order in which ranks take cores: core (fill a socket first) or socket (round-robin)")
	report := fs.Bool("report-bindings", false, "print where each rank is placed before starting")
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, `usage: golaunch -n N [flags] PROGRAM [args...]

Starts N ranks of PROGRAM on this host, connected through shared memory, and
supervises them: if one fails, the others are stopped and golaunch says which
rank failed and how. PROGRAM is an executable, a command in PATH, or a Go
package (./examples/hello) that is built once and then launched.

flags:
%s
examples:
  golaunch -n 4 ./examples/hello
  golaunch -np 2 --tag-output ./examples/pingpong --format json
  golaunch -n 2 --bind-to core --report-bindings ./examples/pingpong
`, fs.FlagUsages())
	}
	if err := fs.Parse(normalizeArgs(args)); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(os.Stderr, "golaunch: %v (see golaunch --help)\n", err)
		return 2
	}
	if *showVersion {
		fmt.Printf("golaunch (gompi) %s, %s %s/%s\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return 0
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fmt.Fprintln(os.Stderr, "golaunch: no program to run (see golaunch --help)")
		return 2
	}
	if *n < 1 {
		fmt.Fprintf(os.Stderr, "golaunch: -n must be at least 1, not %d\n", *n)
		return 2
	}
	extra, err := envFlags(env)
	if err != nil {
		fmt.Fprintf(os.Stderr, "golaunch: %v\n", err)
		return 2
	}
	topo, err := hwtopo.Discover()
	if err != nil {
		fmt.Fprintf(os.Stderr, "golaunch: reading the machine's topology: %v\n", err)
		return 1
	}
	plan, err := topo.Plan(*n, mapBy, bindTo)
	if err != nil {
		fmt.Fprintf(os.Stderr, "golaunch: placing %d ranks: %v\n", *n, err)
		return 2
	}
	if w := plan.Warning(); w != "" && bindTo != hwtopo.BindNone {
		fmt.Fprintf(os.Stderr, "golaunch: warning: %s\n", w)
	}
	if *report {
		plan.WriteText(os.Stderr)
	}
	prog, err := launcher.Resolve(rest[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "golaunch: %v\n", err)
		return 2
	}
	defer prog.Close()

	cfg := launcher.Config{
		N: *n, Program: prog.Path, Args: rest[1:], Env: extra,
		TagOutput: *tag, Timeout: *timeout,
		Oversubscribed: *n > usableCPUs(),
		GOMAXPROCS:     max(1, usableCPUs() / *n),
		Bind:           bindFunc(plan),
		Stdin:          os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Log: os.Stderr,
	}
	res, err := launcher.Run(context.Background(), cfg)
	if err != nil && res.Failure == "" {
		fmt.Fprintf(os.Stderr, "golaunch: %v\n", err)
		return 1
	}
	return res.ExitCode
}

// normalizeArgs rewrites mpirun's single-dash -np into --np, up to PROGRAM.
func normalizeArgs(args []string) []string {
	out := append([]string(nil), args...)
	takesValue := map[string]bool{"-n": true, "--np": true, "-x": true, "--env": true, "--timeout": true, "-np": true}
	for i := 0; i < len(out); i++ {
		a := out[i]
		switch {
		case a == "-np":
			out[i] = "--np"
		case strings.HasPrefix(a, "-np="):
			out[i] = "--np=" + a[len("-np="):]
		case a == "--":
			return out
		case !strings.HasPrefix(a, "-"):
			return out // PROGRAM: the rest is its own
		}
		if takesValue[out[i]] && !strings.Contains(out[i], "=") {
			i++
		}
	}
	return out
}

// envFlags turns -x arguments into NAME=VALUE.
func envFlags(xs []string) ([]string, error) {
	var out []string
	for _, x := range xs {
		name, _, hasValue := strings.Cut(x, "=")
		if name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("-x %q: expected VAR or VAR=VALUE", x)
		}
		if hasValue {
			out = append(out, x)
			continue
		}
		if v, ok := os.LookupEnv(name); ok {
			out = append(out, name+"="+v)
		}
	}
	return out, nil
}

// usableCPUs counts the CPUs this process may run on.
func usableCPUs() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err == nil && set.Count() > 0 {
		return set.Count()
	}
	return runtime.NumCPU()
}

// bindFunc binds the calling thread by the plan; nil when nothing is bound.
func bindFunc(plan *hwtopo.Plan) func(rank int) (bool, error) {
	if plan.BindTo == hwtopo.BindNone {
		return nil
	}
	return func(rank int) (bool, error) {
		if err := plan.BindThread(rank); err != nil {
			return false, err
		}
		return true, nil
	}
}
