package main

import (
	"fmt"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// Both versions give exactly the sequential solve's grid, on any number of
// ranks, with strips of one row and of uneven sizes.
func TestJacobiMatchesSequential(t *testing.T) {
	for _, variant := range []string{"naive", "overlap"} {
		for _, ranks := range []int{1, 2, 3, 4, 7} {
			t.Run(fmt.Sprintf("%s/%d", variant, ranks), func(t *testing.T) {
				cfg := config{n: 13, iterations: 25, variant: variant}
				want := sequential(cfg.n, cfg.iterations)
				err := gompi.Run(ranks, func(w *gompi.Comm) error {
					s, err := solve(w, cfg)
					if err != nil {
						return err
					}
					full, err := s.collect(w)
					if err != nil || w.Rank() != 0 {
						return err
					}
					if d := maxDiff(full, want); d != 0 {
						return fmt.Errorf("differs from the sequential solve by %g", d)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestSequentialConverges(t *testing.T) {
	// The middle of the square tends to 1/4 (by symmetry: the sum of the
	// four problems with one hot edge is u = 1 everywhere).
	n := 15
	g := sequential(n, 2000)
	mid := g[(n/2+1)*(n+2)+n/2+1]
	if mid < 0.24 || mid > 0.26 {
		t.Errorf("centre %.4f, want about 0.25", mid)
	}
}
