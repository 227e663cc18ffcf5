package main

import "github.com/gompi/gompi/benches/mpitest"

func init() {
	register("mpitest", "MSU basic operations: timer read, Barrier, reductions, p2p constructs, corrected t = t2-t1-DT-DB, 2+ ranks", func(args []string) error {
		return runMSU(mpitest.Main, args)
	})
}
