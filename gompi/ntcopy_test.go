package gompi

import (
	"bytes"
	"testing"
)

// TestNTCopy: ntCopy copies as copy does, at every alignment of source and
// destination and at sizes around ntCopyMin and the 64-byte body.
func TestNTCopy(t *testing.T) {
	src := make([]byte, 3*ntCopyMin+200)
	for i := range src {
		src[i] = byte(i*7 + i>>8)
	}
	for _, n := range []int{0, 1, 63, ntCopyMin - 1, ntCopyMin, ntCopyMin + 1, ntCopyMin + 63, ntCopyMin + 64, 2*ntCopyMin + 17, 3 * ntCopyMin} {
		for _, doff := range []int{0, 1, 8, 15, 16, 33} {
			for _, soff := range []int{0, 3, 16} {
				dst := make([]byte, n+doff+64)
				want := bytes.Clone(dst)
				copy(want[doff:doff+n], src[soff:soff+n])
				ntCopy(dst[doff:doff+n], src[soff:soff+n])
				if !bytes.Equal(dst, want) {
					t.Fatalf("n %d, destination offset %d, source offset %d: wrong bytes", n, doff, soff)
				}
			}
		}
	}
	// Lengths that differ: the shorter one counts, as in copy.
	dst := make([]byte, ntCopyMin+100)
	ntCopy(dst, src[:ntCopyMin+50])
	if !bytes.Equal(dst[:ntCopyMin+50], src[:ntCopyMin+50]) || dst[ntCopyMin+50] != 0 {
		t.Fatal("a shorter source: wrong bytes")
	}
}
