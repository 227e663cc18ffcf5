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
	for _, n := range []int{1, 2, 3, 4} {
		for _, size := range []int{0, 100, collNowMin - 1, collNowMin, 3 << 20} {
			src := make([]byte, size)
			for i := range src {
				src[i] = byte(i*7 + n)
			}
			want := make([]byte, cmaRecSize)
			publishBuf(want, src)
			for range 3 {
				rec := make([]byte, cmaRecSize)
				publishBufN(rec, src, n)
				if !bytes.Equal(rec, want) {
					t.Fatalf("n %d, %d bytes: record %x, want %x", n, size, rec, want)
				}
			}
			b := peerBuf(want)
			dst := make([]byte, size)
			if err := b.read(dst, 0); err != nil {
				t.Skipf("process_vm_readv refused here: %v", err)
			}
			if !bytes.Equal(dst, src) {
				t.Fatalf("n %d, %d bytes: read back differs", n, size)
			}
		}
	}
}
