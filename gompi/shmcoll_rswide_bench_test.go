//go:build !mpi && !mpich

package gompi_test

import (
	"testing"

	"github.com/gompi/gompi/gompi"
)

// BenchmarkPairRS: the two-rank reduce-scatters of float32 sums as the osu
// benchmark calls them (size = the whole vector; 512 B: 256-byte parts),
// on two in-process ranks, default selection; "loop" puts a Barrier after
// every call as the osu loop does ("bare": back to back). ns per call (and
// barrier).
func BenchmarkPairRS(b *testing.B) {
	for _, size := range []int{64, 256, 512} {
		k := size / 4
		for _, op := range []string{"rs", "rsb"} {
			for _, loop := range []string{"bare", "loop"} {
				b.Run(op+"/"+itoa(size)+"/"+loop, func(b *testing.B) {
					err := gompi.Run(2, func(c *gompi.Comm) error {
						send, recv := make([]float32, k), make([]float32, k/2)
						for i := range send {
							send[i] = float32(i)
						}
						counts, sum := []int{k / 2, k / 2}, gompi.Sum[float32]()
						if c.Rank() == 0 {
							b.ResetTimer()
						}
						for i := 0; i < b.N; i++ {
							var err error
							if op == "rs" {
								err = gompi.ReduceScatter(c, send, recv, counts, sum)
							} else {
								err = gompi.ReduceScatterBlock(c, send, recv, sum)
							}
							if err != nil {
								return err
							}
							if loop == "loop" {
								if err := c.Barrier(); err != nil {
									return err
								}
							}
						}
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				})
			}
		}
	}
}
