package main

import (
	"fmt"

	"github.com/gompi/gompi/benches/transfer"
)

func init() {
	register("transfer", "MSU transfer test: R = 2NL/T and latency between 2 ranks, five ways (--test 1..5)", runTransfer)
	for _, t := range transfer.Tests {
		register(t.Name(), fmt.Sprintf("transfer --test %d: %s", t.Number, t.Summary), func(args []string) error {
			return runTransfer(append([]string{fmt.Sprintf("--test=%d", t.Number)}, args...))
		})
	}
}

func runTransfer(args []string) error { return runMSU(transfer.Main, args) }
