//go:build !mpi && !mpich

package osu

import (
	"testing"
	"time"

	"github.com/gompi/gompi/gompi"
)

// TestRunWarmUp: with WarmupMS every rank keeps making untimed calls until
// rank 0 has seen that long pass, all ranks stop together (no call left
// unmatched), and each size still yields one point.
func TestRunWarmUp(t *testing.T) {
	for _, op := range []string{"barrier", "allreduce", "bcast"} {
		for _, n := range []int{1, 2, 3} {
			cfg := Config{Op: op, Sizes: []int{8, 64}, Iters: 3, Skip: 1, ItersLarge: 3, SkipLarge: 1,
				LargeSize: 8192, WarmupMS: 20}
			var points int
			start := time.Now()
			err := gompi.Run(n, func(c *gompi.Comm) error {
				return Run(c, cfg, func(Point) error { points++; return nil })
			})
			if err != nil {
				t.Fatalf("%s n=%d: %v", op, n, err)
			}
			want := 2
			if op == "barrier" {
				want = 1
			}
			if points != want {
				t.Errorf("%s n=%d: %d points, want %d", op, n, points, want)
			}
			// A lower bound only: the warm-up cannot end before rank 0's
			// clock has passed WarmupMS.
			if d := time.Since(start); d < 20*time.Millisecond {
				t.Errorf("%s n=%d: the run took %v, shorter than its 20 ms warm-up", op, n, d)
			}
		}
	}
}
