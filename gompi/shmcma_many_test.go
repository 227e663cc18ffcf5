//go:build !mpi && !mpich

package gompi

import (
	"fmt"
	"testing"
)

// TestCollManyWanted: the collapse before the publish on 3 to 8 ranks is
// for buffers of collNowMin up to collHugeMin only; two ranks are
// publishBufN's.
func TestCollManyWanted(t *testing.T) {
	if !collManyOn {
		t.Skip("GOMPI_COLL_HUGE_MANY=0")
	}
	cases := []struct {
		size, n int
		want    bool
	}{
		{collNowMin, 2, false}, {collNowMin, 3, true}, {collNowMin, 4, true}, {collNowMin, 8, true},
		{collNowMin, 9, false}, {collNowMin - 1, 4, false}, {collHugeMin - 1, 4, true},
		{collHugeMin, 4, false}, {0, 4, false}, {collNowMin, 1, false},
	}
	for _, c := range cases {
		if got := collManyWanted(c.size, c.n); got != c.want {
			t.Errorf("collManyWanted(%d, %d) = %v, want %v", c.size, c.n, got, c.want)
		}
	}
}

// TestPublishBufMany: publishBufMany writes the record publishBuf writes,
// and a buffer it collapsed (published again and again) reads back
// unchanged, on any number of ranks.
func TestPublishBufMany(t *testing.T) {
	checkPublishAsBuf(t, publishBufMany, []int{1, 2, 3, 4, 8, 9}, []int{0, 100, collNowMin - 1, collNowMin, 512 << 10, collHugeMin}, 5)
}

// TestHugeManyChainAndReductions: the chain (Scan, Exscan, pushed and
// pulled, in place and not) and the single-copy reductions (Allreduce,
// Reduce at every root, in place and not) with vectors of 256 KiB up to
// 1 MiB, whose buffers publishBufMany collapses at their second publish on
// 3 to 8 ranks, against the reference over several calls; 9 ranks, where
// it does not, beside them.
func TestHugeManyChainAndReductions(t *testing.T) {
	if refused() {
		t.Skip("this kernel refuses single-copy reads")
	}
	ranks := []int{3, 4, 5, 8, 9}
	if testing.Short() {
		ranks = []int{3, 4}
	}
	for _, n := range ranks {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			checkScans(t, n, 300<<10/4, 3, "chain", sumInt32)
			checkScans(t, n, (collHugeMin-1)/8, 2, "chain", maxFloat64)
			checkReductions(t, n, 260<<10/4, "cma", sumInt32)
		})
	}
}
