package coll_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/coll/sim"
)

// TestMismatch gives one rank a different size from the others (larger or
// smaller, the root or not) and requires, of every algorithm: no hang (the
// simulator's deadlock detector and the harness's timeout would report it),
// no panic, and an error that says so on at least one rank: ErrMismatch where
// a message was shorter than expected, the transport's truncation where it
// was longer. Segments of 16 bytes make the pipelined chain send streams of
// different lengths.
func TestMismatch(t *testing.T) {
	const m = 64
	eachAlgorithm(t, func(t *testing.T, alg coll.Algorithm) {
		op := alg.Op
		for _, n := range []int{2, 3, 5, 8} {
			for _, odd := range []int{0, n - 1} {
				for _, delta := range []int{4 * n, -4 * n} {
					what := fmt.Sprintf("n=%d, rank %d has %d bytes, the others %d", n, odd, m+delta, m)
					errs := runRanks(n, func(c coll.Comm) error {
						size := m
						if c.Rank() == odd {
							size += delta
						}
						a := sim.ExampleArgs(op, n, c.Rank(), size, 0)
						return coll.Call(c, op, a, coll.WithAlgorithm(alg.Name), coll.WithSegmentSize(16))
					})
					seen := false
					for r, err := range errs {
						switch {
						case err == nil:
						case errors.Is(err, coll.ErrMismatch) || errors.Is(err, sim.ErrTruncate):
							seen = true
						default:
							t.Errorf("%s: rank %d: unexpected error %v", what, r, err)
						}
					}
					if !seen {
						t.Errorf("%s: no rank noticed", what)
					}
				}
			}
		}
	})
}
