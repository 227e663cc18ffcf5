package shm

import (
	"bytes"
	"testing"
)

// TestCopyNT: CopyNT copies as copy does, at every alignment of source and
// destination, at sizes around the 64-byte body and a cell's payload, and
// with lengths that differ.
func TestCopyNT(t *testing.T) {
	src := make([]byte, 2*MaxPayload+200)
	for i := range src {
		src[i] = byte(i*7 + i>>8)
	}
	for _, n := range []int{0, 1, 15, 16, 17, 63, 64, 65, 79, 80, 127, 128, 1000, MaxPayload - 1, MaxPayload, MaxPayload + 1, 2 * MaxPayload} {
		for _, doff := range []int{0, 1, 8, 15, 16, 33, 64} {
			for _, soff := range []int{0, 3, 16} {
				dst := make([]byte, n+doff+64)
				want := bytes.Clone(dst)
				copy(want[doff:doff+n], src[soff:soff+n])
				if k := CopyNT(dst[doff:doff+n], src[soff:soff+n]); k != n {
					t.Fatalf("n %d: returned %d", n, k)
				}
				if !bytes.Equal(dst, want) {
					t.Fatalf("n %d, destination offset %d, source offset %d: wrong bytes", n, doff, soff)
				}
			}
		}
	}
	dst := make([]byte, 300)
	if k := CopyNT(dst, src[:250]); k != 250 || !bytes.Equal(dst[:250], src[:250]) || dst[250] != 0 {
		t.Fatal("a shorter source: wrong bytes or count")
	}
	if k := CopyNT(dst[:100], src); k != 100 || !bytes.Equal(dst[:100], src[:100]) {
		t.Fatal("a shorter destination: wrong bytes or count")
	}
}
