//go:build !mpi && !mpich

package gompi

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestChainArriveFirstDupFree: the chain arrives at its step before it
// reads the lower ranks' lines (shmcoll_scan.go, "Arriving first"). On
// communicators made by Dup and freed again (a slot taken back and handed
// out anew), with Scan and Exscan back to back and a rank that is late now
// and then (so that fast ranks run ahead into the next calls while it still
// reads), every result matches the reference, with a non-commutative
// operator, in place and not.
func TestChainArriveFirstDupFree(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	rc := composeCase
	for _, n := range []int{3, 4, 5, 8} {
		err := Run(n, func(world *Comm) error {
			me := world.Rank()
			for d := range 3 {
				c, err := world.Dup()
				if err != nil {
					return err
				}
				for k := range 40 {
					if me == (k+d)%n && k%4 == 0 {
						time.Sleep(200 * time.Microsecond)
					}
					inclusive, inPlace := k%2 == 0, k%3 == 0
					m := 1 + (k*7)%20
					input := func(r, i int) affine { return rc.input(r+k+d, i+k) }
					src := make([]affine, m)
					for i := range src {
						src[i] = input(me, i)
					}
					out, send := make([]affine, m), src
					if inPlace {
						out, send = src, InPlace[affine]()
					}
					before := slices.Clone(out)
					call, hi := Scan[affine], me+1
					if !inclusive {
						call, hi = Exscan[affine], me
					}
					if err := call(c, send, out, rc.op, WithAlgorithm("chain")); err != nil {
						return err
					}
					exp := before
					if hi > 0 {
						exp = make([]affine, m)
						for i := range exp {
							acc := input(0, i)
							for r := 1; r < hi; r++ {
								acc = rc.apply(acc, input(r, i))
							}
							exp[i] = acc
						}
					}
					if !slices.Equal(out, exp) {
						return fmt.Errorf("dup %d call %d (inclusive %v, in place %v) on rank %d of %d: got %v, want %v",
							d, k, inclusive, inPlace, me, n, out[:min(m, 3)], exp[:min(m, 3)])
					}
				}
				if err := c.Free(); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
