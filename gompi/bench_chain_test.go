//go:build !mpi && !mpich

package gompi_test

import "testing"

// BenchmarkChainExscan times Exscan and Scan by the single-copy chain on 4
// and 8 in-process ranks, 256 KiB and 1 MiB of float32 (sum), each call
// followed by a barrier.
func BenchmarkChainExscan(b *testing.B) {
	for _, op := range []string{"exscan", "scan"} {
		for _, n := range []int{4, 8} {
			for _, size := range []int{256 << 10, 1 << 20} {
				b.Run(op+"/n="+itoa(n)+"/"+itoa(size>>10)+"KiB", func(b *testing.B) {
					benchReduction(b, n, size, op, "chain")
				})
			}
		}
	}
}
