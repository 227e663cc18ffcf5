package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// mpirun's spellings. golaunch takes Open MPI's and MPICH's flags as a user's
// fingers type them: those that mean one of golaunch's flags are rewritten
// into it, those that have nothing to do here are accepted with a note, and
// those that ask for what golaunch does another way are refused with that
// way. docs/LAUNCH.md has the whole table; keep the two in step.

// aliases: mpirun's name of a flag → golaunch's.
var aliases = map[string]string{
	"-np": "--np", "-c": "--np",
	"-npernode": "--npernode", "-ppn": "--npernode",
	"-host": "--host", "-hosts": "--host",
	"-hostfile": "--hostfile", "-machinefile": "--hostfile", "--machinefile": "--hostfile", "-f": "--hostfile",
	"-wdir": "--wdir", "-wd": "--wdir", "--wd": "--wdir",
	"-l": "--tag-output", "-prepend-rank": "--tag-output", "-tag-output": "--tag-output",
	"-timestamp-output": "--timestamp-output", "-output-filename": "--output-filename",
	"-oversubscribe": "--oversubscribe", "-allow-run-as-root": "--allow-run-as-root",
	"-report-bindings": "--report-bindings", "-bind-to": "--bind-to", "-map-by": "--map-by",
	"-timeout": "--timeout", "-mca": "--mca", "--gmca": "--mca", "-gmca": "--mca",
}

// noted: flags accepted without effect, whether they take a value, and why
// nothing needs doing.
var noted = map[string]struct {
	value bool
	note  string
}{
	"--prefix":            {true, "golaunch needs no install prefix: it starts itself on the hosts at its own path"},
	"--display-map":       {false, "--report-bindings shows where the ranks run"},
	"-display-map":        {false, "--report-bindings shows where the ranks run"},
	"-genvall":            {false, "every rank gets golaunch's whole environment already"},
	"-envall":             {false, "every rank gets golaunch's whole environment already"},
	"--nooversubscribe":   {false, "golaunch never puts more ranks than slots on -H/--hostfile hosts unless --oversubscribe"},
	"-nooversubscribe":    {false, "golaunch never puts more ranks than slots on -H/--hostfile hosts unless --oversubscribe"},
	"--use-hwthread-cpus": {false, "golaunch counts every CPU the OS offers, hardware threads included"},
	"-q":                  {false, "golaunch prints only failures and what you ask for"},
	"--quiet":             {false, "golaunch prints only failures and what you ask for"},
}

// refused: flags golaunch does not take, and the gompi way instead.
var refused = map[string]string{
	"--app":                    "golaunch runs one program for every rank: branch on gompi.World().Rank() to give ranks different roles",
	":":                        "golaunch runs one program for every rank (no MPMD): branch on gompi.World().Rank() to give ranks different roles",
	"--preload-binary":         "put PROGRAM at the same path on every host (a shared file system, or copy it there first)",
	"-s":                       "put PROGRAM at the same path on every host (a shared file system, or copy it there first)",
	"--cpus-per-proc":          "use --bind-to socket, and -x GOMAXPROCS=N for the threads of a rank",
	"--cpus-per-rank":          "use --bind-to socket, and -x GOMAXPROCS=N for the threads of a rank",
	"--rank-by":                "ranks follow --map-by: slot or node between hosts, core or socket on one host",
	"--merge-stderr-to-stdout": "the ranks' stderr goes to golaunch's: run golaunch ... 2>&1",
	"-launcher":                "use --launch-agent CMD (ssh by default; e.g. --launch-agent 'ip netns exec')",
	"-bootstrap":               "use --launch-agent CMD (ssh by default; e.g. --launch-agent 'ip netns exec')",
	"--launch-agent-exec":      "use --launch-agent CMD",
}

// mpirunArgs rewrites mpirun's spellings in args into golaunch's, up to
// PROGRAM (the first argument that is not a flag or a flag's value):
// aliases become golaunch's flags, --mca NAME VALUE and MPICH's -genv NAME
// VALUE (two values) become --mca=NAME=VALUE and -x NAME=VALUE, Open MPI's
// --timeout SECONDS gets its unit. It returns a note for each flag accepted
// without effect, and an error for a refused one.
func mpirunArgs(fs *pflag.FlagSet, args []string) (out, notes []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if msg, ok := refused[a]; ok {
			return nil, nil, fmt.Errorf("%s is not supported: %s (see docs/LAUNCH.md)", a, msg)
		}
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			// PROGRAM: the rest is its own, unless it is mpirun's MPMD form
			// (PROG ARGS : -n N PROG2 ...).
			for j := i + 1; j+1 < len(args); j++ {
				if args[j] == ":" && (args[j+1] == "-n" || args[j+1] == "-np" || args[j+1] == "--np") {
					return nil, nil, fmt.Errorf(": is not supported: %s (see docs/LAUNCH.md)", refused[":"])
				}
			}
			return append(out, args[i:]...), notes, nil
		}
		name, value, hasValue := strings.Cut(a, "=")
		if n, ok := noted[name]; ok {
			if n.value && !hasValue {
				i++
			}
			notes = append(notes, fmt.Sprintf("%s accepted and ignored: %s", name, n.note))
			continue
		}
		if canon, ok := aliases[name]; ok {
			name = canon
		}
		switch name {
		case "--mca", "-genv", "-env":
			// Two values: NAME VALUE (or NAME=VALUE in one argument).
			if !hasValue {
				if i+1 >= len(args) {
					return nil, nil, fmt.Errorf("%s needs NAME VALUE", a)
				}
				value = args[i+1]
				i++
				if !strings.Contains(value, "=") {
					if i+1 >= len(args) {
						return nil, nil, fmt.Errorf("%s needs NAME VALUE", a)
					}
					value += "=" + args[i+1]
					i++
				}
			}
			if name == "--mca" {
				out = append(out, "--mca="+value)
				notes = append(notes, fmt.Sprintf("--mca %s accepted and ignored: gompi has no MCA parameters; its settings are GOMPI_* variables (-x) and golaunch's flags", strings.Replace(value, "=", " ", 1)))
			} else {
				out = append(out, "--env="+value)
			}
			continue
		}
		if hasValue {
			if name == "--timeout" && isDigits(value) {
				value += "s" // Open MPI's --timeout is in seconds
			}
			out = append(out, name+"="+value)
			continue
		}
		out = append(out, name)
		if takesValue(fs, name) && i+1 < len(args) {
			i++
			v := args[i]
			if name == "--timeout" && isDigits(v) {
				v += "s" // Open MPI's --timeout is in seconds
			}
			out = append(out, v)
		}
	}
	return out, notes, nil
}

// takesValue reports whether flag (as written: -x, --np) takes a value.
func takesValue(fs *pflag.FlagSet, flag string) bool {
	var f *pflag.Flag
	if long, ok := strings.CutPrefix(flag, "--"); ok {
		f = fs.Lookup(long)
	} else if len(flag) == 2 {
		f = fs.ShorthandLookup(flag[1:])
	}
	return f != nil && f.NoOptDefVal == ""
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
