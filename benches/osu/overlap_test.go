//go:build !mpi && !mpich

package osu

import (
	"strings"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// TestRunOverlap runs the overlap benchmark over in-process ranks, for
// point-to-point and each nonblocking collective, and checks that every
// size yields one point with figures in range (the values themselves are
// timings and are not asserted).
func TestRunOverlap(t *testing.T) {
	for _, tt := range []struct {
		coll string
		n    int
	}{{"", 2}, {"iallreduce", 3}, {"ibcast", 2}, {"iallgather", 3}, {"ialltoall", 2}, {"ibarrier", 3}} {
		name := tt.coll
		if name == "" {
			name = "p2p"
		}
		t.Run(name, func(t *testing.T) {
			cfg := Config{Op: "overlap", Coll: tt.coll, Sizes: []int{8, 64 << 10}, Iters: 3, Skip: 1,
				ItersLarge: 3, SkipLarge: 1, LargeSize: 8192}
			var got []OverlapPoint
			err := gompi.Run(tt.n, func(c *gompi.Comm) error {
				return RunOverlap(c, cfg, func(p OverlapPoint) error {
					got = append(got, p) // rank 0 alone emits
					return nil
				})
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(cfg.Sizes) {
				t.Fatalf("%d points, want %d", len(got), len(cfg.Sizes))
			}
			want := tt.coll
			if want == "" {
				want = "overlap"
			}
			for i, p := range got {
				if p.Op != want || p.N != tt.n || p.Size != cfg.Sizes[i] || p.Overlap < 0 || p.Overlap > 100 || p.Pure <= 0 {
					t.Errorf("point %d: %+v", i, p)
				}
			}
		})
	}
}

func TestRunOverlapRejects(t *testing.T) {
	for _, tt := range []struct {
		coll string
		n    int
		want string
	}{{"", 3, "even number"}, {"iscan", 2, "not one of"}} {
		err := gompi.Run(tt.n, func(c *gompi.Comm) error {
			return RunOverlap(c, Config{Coll: tt.coll, Sizes: []int{8}, Iters: 1}, func(OverlapPoint) error { return nil })
		})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("coll %q n=%d: error %v, want one saying %q", tt.coll, tt.n, err, tt.want)
		}
	}
}
