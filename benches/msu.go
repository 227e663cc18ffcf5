package main

import (
	"errors"

	"github.com/gompi/gompi/benches/internal/msu"
	"github.com/gompi/gompi/gompi"
)

// runMSU runs one of the MSU suites (transfer, nettest, mpitest) as a rank
// of the job: Init, the suite's Main, Finalize. A usage error is the same on
// every rank, so only rank 0 reports it; the others exit with the same
// status without a word.
func runMSU(main func(*gompi.Comm, []string, msu.IO) error, args []string) error {
	if err := gompi.Init(); err != nil {
		return err
	}
	world := gompi.World()
	err := main(world, args, msu.StdIO(world.Rank()))
	if ferr := gompi.Finalize(); err == nil {
		err = ferr
	}
	var usage *msu.UsageError
	if world.Rank() != 0 && errors.As(err, &usage) {
		return errUsage
	}
	return err
}
