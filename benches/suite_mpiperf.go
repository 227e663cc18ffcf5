package main

import (
	"os"
	"strings"

	"github.com/gompi/gompi/benches/mpiperf"
	"github.com/gompi/gompi/gompi"
)

func init() {
	register("mpiperf", "collectives, nonblocking collectives and point-to-point timed by synchronized launch (run under golaunch)", runMpiperf)
}

func runMpiperf(args []string) error {
	cfg := mpiperf.DefaultConfig()
	fs := newFlags("mpiperf", "[flags]   (golaunch -n N benches mpiperf [flags])")
	finish := cfg.Flags(fs)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if err := finish(); err != nil {
		// The same mistake on every rank, said once, before a long run.
		return usageError(fs, err, false)
	}
	cfg.Command = strings.Join(append([]string{"benches", "mpiperf"}, args...), " ")
	if err := gompi.Init(); err != nil {
		return err
	}
	defer gompi.Finalize()
	err := mpiperf.Run(gompi.World(), cfg, os.Stdout, os.Stderr)
	if err != nil && gompi.World().Size() > 1 {
		// The other ranks may wait for this one forever: stop the job.
		os.Stderr.WriteString("benches mpiperf: " + err.Error() + "\n")
		gompi.Abort(1)
	}
	return err
}
