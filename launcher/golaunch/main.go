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
	_ "embed"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/gompi/gompi/hwtopo"
	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/launcher"
	"github.com/gompi/gompi/trace"
	"github.com/spf13/pflag"
)

const version = "0.1.0"

// completionBash is the bash completion of golaunch and benches.
//
//go:embed completion.bash
var completionBash string

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 1 && args[0] == "--agent" {
		// The remote part of a job on several hosts, started by the launch
		// agent: it speaks golaunch's protocol on stdin and stdout.
		return launcher.Agent(os.Stdin, os.Stdout, os.Stderr)
	}
	fs := pflag.NewFlagSet("golaunch", pflag.ContinueOnError)
	fs.SetInterspersed(false) // flags after PROGRAM belong to PROGRAM
	fs.SortFlags = false
	n := fs.IntP("np", "n", 0, "number of ranks to start (-np is accepted too); default 1, or every slot of -H/--hostfile")
	tag := fs.Bool("tag-output", false, "prefix every output line with [1,RANK]<stdout|stderr>:")
	var env []string
	fs.StringArrayVarP(&env, "env", "x", nil, "pass VAR (its value here) or VAR=VALUE to every rank; repeatable")
	timeout := fs.Duration("timeout", 0, "stop the whole job after this long (e.g. 30s, 5m); 0 means never")
	bindTo := hwtopo.BindNone
	fs.Var(&bindTo, "bind-to", "pin each rank to a core or a socket (none: let the OS place them); default none, core where ranks are twice the usable CPUs or more (below four times consecutive ranks share a core)")
	mapBy := hwtopo.MapByCore
	mapByArg := fs.String("map-by", "", "order in which ranks take cores: core (fill a socket first) or socket (round-robin);\nwith several hosts, in which they take hosts: slot (fill each host in turn) or node (round-robin)")
	report := fs.Bool("report-bindings", false, "print where each rank is placed before starting")
	hostList := fs.StringP("host", "H", "", "run on these hosts: HOST[:SLOTS],... (SLOTS default 1)")
	hostfile := fs.String("hostfile", "", "run on the hosts of this file: one \"HOST slots=N\" (Open MPI) or \"HOST:N\" (MPICH) a line")
	agent := fs.String("launch-agent", "ssh", "command that runs a command on a host: HOST and the agent's command follow it")
	transport := fs.String("transport", "", "auto (shared memory within a host, TCP between hosts) or tcp (TCP everywhere); default: $GOMPI_TRANSPORT, else auto")
	connectTimeout := fs.Duration("connect-timeout", 0, "bound on each step of connecting: an agent answering, a rank checking in, a connection (default 20s)")
	traceDir := fs.String("trace", "", "record every gompi call of every rank into DIR: one file per rank and a manifest\n(goexpert timeline DIR -o FILE makes a timeline); ranks started otherwise: set "+jobenv.Trace+"=DIR")
	oversubscribe := fs.Bool("oversubscribe", false, "allow more ranks than the slots of -H/--hostfile (on this host alone, ranks may always outnumber cores)")
	perNode := fs.IntP("npernode", "N", 0, "ranks per host: N on each host of -H/--hostfile; alone, N ranks on this host")
	wdir := fs.String("wdir", "", "the ranks' working directory (PROGRAM is found from golaunch's)")
	outputFilename := fs.String("output-filename", "", "also write each rank's output to DIR/1/rank.R/stdout and stderr (DIR:nocopy: only there)")
	timestamp := fs.Bool("timestamp-output", false, "prefix every output line with the time golaunch received it")
	fs.Bool("allow-run-as-root", false, "accepted for mpirun's sake: golaunch runs as root without it")
	var mca []string
	fs.StringArrayVar(&mca, "mca", nil, "NAME VALUE: accepted and ignored, with a note (gompi has no MCA parameters)")
	completion := fs.String("completion", "", "print the shell completion script of golaunch and benches: bash (source <(golaunch --completion bash))")
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, `usage: golaunch -n N [flags] PROGRAM [args...]

Starts N ranks of PROGRAM on this host, connected through shared memory, and
supervises them: if one fails, the others are stopped and golaunch says which
rank failed and how, quoting its last lines of stderr. PROGRAM is an
executable, a command in PATH (a bare name, as in a shell: benches), or a Go
package (./examples/hello) that is built once and then launched.

Inside a Slurm allocation (salloc, sbatch) the ranks run on its nodes, as
many as SLURM_TASKS_PER_NODE gives each, and the agents start through srun.
With -H or --hostfile the ranks run on those hosts: golaunch starts itself
there (golaunch --agent, through --launch-agent, ssh by default), and ranks
on different hosts talk over TCP. PROGRAM and golaunch must be at the same
path on every host.

flags:
%s
examples:
  golaunch -n 4 ./examples/hello
  golaunch -np 2 --tag-output ./examples/pingpong --format json
  golaunch -n 2 --bind-to core --report-bindings ./examples/pingpong
  golaunch -H nodeA:2,nodeB:2 ./examples/ring
  golaunch -H nsA:2,nsB:2 --launch-agent 'ip netns exec' ./examples/ring

mpirun's flags (Open MPI's and MPICH's spellings) work, are accepted with
a note, or are refused with the gompi way: see docs/LAUNCH.md.
`, fs.FlagUsages())
	}
	args, notes, err := mpirunArgs(fs, args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "golaunch: %v\n", err)
		return 2
	}
	for _, n := range notes {
		fmt.Fprintf(os.Stderr, "golaunch: note: %s\n", n)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(os.Stderr, "golaunch: %v (see golaunch --help)\n", err)
		return 2
	}
	switch *completion {
	case "":
	case "bash":
		fmt.Print(completionBash)
		return 0
	default:
		fmt.Fprintf(os.Stderr, "golaunch: --completion %q: only bash is provided\n", *completion)
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
	hosts, err := launcher.ParseHosts(*hostList, *hostfile)
	if err != nil {
		fmt.Fprintf(os.Stderr, "golaunch: %v\n", err)
		return 2
	}
	if len(hosts) == 0 {
		// Inside a Slurm allocation: its nodes, through srun (launcher/slurm.go).
		sh, sa, inSlurm, err := launcher.SlurmHosts()
		if err != nil {
			fmt.Fprintf(os.Stderr, "golaunch: %v\n", err)
			return 2
		}
		if inSlurm {
			hosts = sh
			if !fs.Changed("launch-agent") {
				*agent = strings.Join(sa, " ")
			}
		}
	}
	if fs.Changed("npernode") {
		if *perNode < 1 {
			fmt.Fprintf(os.Stderr, "golaunch: --npernode must be at least 1, not %d\n", *perNode)
			return 2
		}
		hosts = launcher.PerNode(hosts, *perNode)
		if len(hosts) == 0 && fs.Changed("np") && *n > *perNode && !*oversubscribe {
			fmt.Fprintf(os.Stderr, "golaunch: -n %d with --npernode %d and no -H: %d ranks on this one host; drop -N, or add --oversubscribe\n", *n, *perNode, *perNode)
			return 2
		}
	}
	if !fs.Changed("np") {
		*n = 1
		if len(hosts) == 0 && fs.Changed("npernode") {
			*n = *perNode
		}
		for i, h := range hosts {
			if i == 0 {
				*n = 0
			}
			*n += h.Slots
		}
	}
	if *n < 1 {
		fmt.Fprintf(os.Stderr, "golaunch: -n must be at least 1, not %d\n", *n)
		return 2
	}
	if *oversubscribe {
		hosts = launcher.Oversubscribe(hosts, *n)
	}
	hostMap := "slot"
	switch *mapByArg {
	case "", "slot", "node":
		if *mapByArg != "" {
			hostMap = *mapByArg
		}
	default:
		if err := mapBy.Set(*mapByArg); err != nil {
			fmt.Fprintf(os.Stderr, "golaunch: --map-by %q: want core, socket, slot or node\n", *mapByArg)
			return 2
		}
	}
	if *transport == "" {
		*transport = os.Getenv("GOMPI_TRANSPORT")
	}
	if *transport != "" && *transport != "auto" && *transport != "tcp" {
		fmt.Fprintf(os.Stderr, "golaunch: --transport %q: want auto or tcp\n", *transport)
		return 2
	}
	extra, err := envFlags(env)
	if err != nil {
		fmt.Fprintf(os.Stderr, "golaunch: %v\n", err)
		return 2
	}
	if *traceDir != "" {
		dir, err := trace.CheckDir(*traceDir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "golaunch: --trace: %v\n", err)
			return 2
		}
		extra = append(extra, jobenv.Trace+"="+dir)
	}
	topo, err := hwtopo.Discover()
	if err != nil {
		fmt.Fprintf(os.Stderr, "golaunch: reading the machine's topology: %v\n", err)
		return 1
	}
	if len(hosts) > 0 && bindTo != hwtopo.BindNone {
		fmt.Fprintln(os.Stderr, "golaunch: warning: --bind-to applies to ranks on this host only; ranks started through agents are not bound")
	}
	autoBind := !fs.Changed("bind-to") && len(hosts) == 0 && crowdedBinding(*n, launcher.UsableCPUs()) != hwtopo.BindNone // crowdbind.go
	if autoBind {
		bindTo = crowdedBinding(*n, launcher.UsableCPUs())
	}
	plan, err := topo.Plan(*n, mapBy, bindTo)
	if err != nil && autoBind {
		autoBind, bindTo = false, hwtopo.BindNone // the automatic binding is only an optimization
		plan, err = topo.Plan(*n, mapBy, bindTo)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "golaunch: placing %d ranks: %v\n", *n, err)
		return 2
	}
	if autoBind && crowdedBlocks(*n, launcher.UsableCPUs()) {
		inBlocks(plan) // crowdbind.go
	}
	if w := plan.Warning(); w != "" && bindTo != hwtopo.BindNone && !autoBind {
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
	if *wdir != "" {
		if st, err := os.Stat(*wdir); err != nil || !st.IsDir() {
			fmt.Fprintf(os.Stderr, "golaunch: --wdir %s: not a directory\n", *wdir)
			return 2
		}
	}

	cfg := launcher.Config{
		N: *n, Program: prog.Path, Args: rest[1:], Env: extra,
		TagOutput: *tag, Timeout: *timeout,
		TimestampOutput: *timestamp, OutputFilename: *outputFilename, Dir: *wdir,
		Oversubscribed: *n > launcher.UsableCPUs(),
		GOMAXPROCS:     max(1, launcher.UsableCPUs() / *n),
		Bind:           bindFunc(plan),
		Stdin:          os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Log: os.Stderr,
		Transport: *transport, ConnectTimeout: *connectTimeout,
		Hosts: hosts, MapBy: hostMap, LaunchAgent: strings.Fields(*agent),
	}
	for _, kv := range extra {
		if v, ok := strings.CutPrefix(kv, "GOMPI_TRANSPORT="); ok && !fs.Changed("transport") {
			cfg.Transport = v
		}
	}
	res, err := launcher.Run(context.Background(), cfg)
	if err != nil && res.Failure == "" {
		fmt.Fprintf(os.Stderr, "golaunch: %v\n", err)
		return 1
	}
	return res.ExitCode
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
