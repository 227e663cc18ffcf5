package gompi

import (
	"bytes"
	"testing"
)

// TestPublishBufN: on any number of ranks and at any size, publishBufN
// writes the record publishBuf writes; on two ranks a buffer of collNowMin
// or more, noted again and again (its pages collapsed in the caller at the
// second publish, where huge pages are on), still reads back unchanged.
func TestPublishBufN(t *testing.T) {
	checkPublishAsBuf(t, publishBufN, []int{1, 2, 3, 4}, []int{0, 100, collNowMin - 1, collNowMin, 3 << 20}, 7)
}

// checkPublishAsBuf checks that publish, on every n of ns and at every
// size, writes the record publishBuf writes, three times over (the pages
// collapsed where the rule says so), and that the buffer reads back
// unchanged through that record.
func checkPublishAsBuf(t *testing.T, publish func(rec, src []byte, n int), ns, sizes []int, seed int) {
	t.Helper()
	for _, n := range ns {
		for _, size := range sizes {
			src := make([]byte, size)
			for i := range src {
				src[i] = byte(i*seed + n)
			}
			want := make([]byte, cmaRecSize)
			publishBuf(want, src)
			for range 3 {
				rec := make([]byte, cmaRecSize)
				publish(rec, src, n)
				if !bytes.Equal(rec, want) {
					t.Fatalf("n %d, %d bytes: record %x, want %x", n, size, rec, want)
				}
			}
			dst := make([]byte, size)
			if err := peerBuf(want).read(dst, 0); err != nil {
				t.Skipf("process_vm_readv refused here: %v", err)
			}
			if !bytes.Equal(dst, src) {
				t.Fatalf("n %d, %d bytes: read back differs", n, size)
			}
		}
	}
}
