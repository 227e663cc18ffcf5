package shm

import "testing"

// The segment must grow linearly with the ranks of a host: nothing in it may
// be sized per pair of ranks times a buffer (64 ranks would make that
// gigabytes). Beyond 16 ranks the bytes per rank stay constant.
func TestLayoutGrowsLinearly(t *testing.T) {
	perRank := func(n int) int64 {
		l, err := NewLayout(n, DefaultCellsPerRank)
		if err != nil {
			t.Fatal(err)
		}
		if l.Size%4096 != 0 || l.cellOff >= l.Size || l.slotOff >= l.cellOff {
			t.Fatalf("n=%d: layout %+v", n, l)
		}
		return l.Size / int64(n)
	}
	// The collective scratch halves hold 32 KiB per rank up to 8 ranks
	// (collScratch): 8 slots of 2 x 260 KiB, 4.1 MiB of address space at 16
	// ranks, 260 KiB per rank; only the pages a call writes are touched.
	base := perRank(16)
	if base > 640<<10 {
		t.Errorf("16 ranks: %d bytes per rank, want at most 640 KiB", base)
	}
	for _, n := range []int{17, 64, 255, 1024} {
		if got := perRank(n); got > base+4096 {
			t.Errorf("%d ranks: %d bytes per rank, more than the %d of 16 ranks", n, got, base)
		}
	}
	if _, err := NewLayout(0, DefaultCellsPerRank); err == nil {
		t.Error("NewLayout(0 ranks): no error")
	}
	if _, err := NewLayout(4, 1); err == nil {
		t.Error("NewLayout(1 cell per rank): no error")
	}
}
