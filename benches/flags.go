package main

import (
	"errors"
	"fmt"
	"os"

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
func parseFlags(fs *pflag.FlagSet, args []string) (help bool, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return true, nil
		}
		fmt.Fprintf(os.Stderr, "benches %s: %v\n", fs.Name(), err)
		fs.Usage()
		return false, errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "benches %s: unexpected arguments %q\n", fs.Name(), fs.Args())
		fs.Usage()
		return false, errUsage
	}
	return false, nil
}
