package main

import (
	"errors"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gompi/gompi/benches/systest"
	"github.com/gompi/gompi/gompi"
)

func init() {
	register("systest", "the system test complex: threads, memory writes, placement, NUMA, messages, each judged by adaptive statistics", runSystest)
}

func runSystest(args []string) error {
	cfg := systest.DefaultConfig()
	fs := newFlags("systest", "[flags] [all|"+strings.Join(systest.Names(), "|")+"]...   (golaunch -n 2 benches systest for test 5 on two ranks)")
	fs.SetInterspersed(true)
	finish := cfg.Flags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil
		}
		return usageError(fs, err, true)
	}
	if err := finish(fs.Args()); err != nil {
		return usageError(fs, err, false)
	}
	cfg.Command = strings.Join(append([]string{"benches", "systest"}, args...), " ")
	var world systest.Comm
	if os.Getenv("GOMPI_RANK") != "" {
		if err := gompi.Init(); err != nil {
			return err
		}
		defer gompi.Finalize()
		if gompi.World().Size() >= 2 {
			world = comm{gompi.World()}
		}
	}
	err := systest.Run(cfg, world, os.Stdout, os.Stderr)
	if errors.Is(err, systest.ErrParam) {
		return usageError(fs, err, false) // every rank finds it before anything runs
	}
	if err != nil && world != nil {
		// The other rank may wait for this one forever: stop the job.
		os.Stderr.WriteString("benches systest: " + err.Error() + "\n")
		gompi.Abort(1)
	}
	return err
}

// comm adapts *gompi.Comm to systest.Comm.
type comm struct{ *gompi.Comm }

func (c comm) Recv(buf []byte, src, tag int) error {
	_, err := c.Comm.Recv(buf, src, tag)
	return err
}
