package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gompi/gompi/internal/jobenv"
	"github.com/spf13/pflag"
)

// newFlags returns a flag set for suite name whose usage starts with line.
func newFlags(name, line string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: benches %s %s\n\n", name, line)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args; help is not an error, a bad flag is a usage error.
// Under golaunch or mpirun every rank parses the same arguments: only the
// first says what is wrong, or prints the help.
func parseFlags(fs *pflag.FlagSet, args []string) (help bool, err error) {
	if notFirstRank() {
		fs.SetOutput(io.Discard)
		fs.Usage = func() {}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return true, nil
		}
		return false, usageError(fs, err, true)
	}
	if fs.NArg() > 0 {
		return false, usageError(fs, fmt.Errorf("unexpected arguments %q", fs.Args()), true)
	}
	return false, nil
}

// usageError says err (and the usage of fs, if asked) on the first rank,
// and returns errUsage (exit status 2).
func usageError(fs *pflag.FlagSet, err error, usage bool) error {
	if notFirstRank() {
		return errUsage
	}
	fmt.Fprintf(os.Stderr, "benches %s: %v\n", fs.Name(), err)
	if usage {
		fs.Usage()
	} else {
		fmt.Fprintf(os.Stderr, "(benches %s --help lists the flags)\n", fs.Name())
	}
	return errUsage
}

// notFirstRank reports whether this process is a rank other than 0 of a
// job started by golaunch or mpirun (known before Init from the
// environment): messages that every rank would print alike are left to
// rank 0.
func notFirstRank() bool {
	for _, v := range []string{jobenv.Rank, "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"} {
		if r, ok := os.LookupEnv(v); ok {
			return r != "0"
		}
	}
	return false
}
