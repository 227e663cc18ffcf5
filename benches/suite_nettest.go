package main

import "github.com/gompi/gompi/benches/nettest"

func init() {
	register("nettest", "MSU logical topologies: Star, Chaos, Ring, uni- and bi-directional, R(avg) = 2L/T on 3+ ranks", func(args []string) error {
		return runMSU(nettest.Main, args)
	})
}
