package core

import (
	"bytes"
	"testing"

	"github.com/gompi/gompi/internal/shm"
)

// TestFragCopier: whatever the copier chooses (both methods are taken on
// its way: plain and non-temporal first, then the probes), every fragment,
// whole or short, arrives intact; the averages are set and the choice
// follows them.
func TestFragCopier(t *testing.T) {
	var f fragCopier
	src := make([]byte, 3*shm.MaxPayload)
	for i := range src {
		src[i] = byte(i*13 + i>>9)
	}
	for round := range 3 * fragProbeEvery {
		for _, n := range []int{shm.MaxPayload, shm.MaxPayload - 1, 1, 200, shm.MaxPayload} {
			if round%7 == 3 {
				f.useNT = !f.useNT // both methods for the short ones too
			}
			s := src[round%97 : round%97+n]
			dst := make([]byte, shm.MaxPayload+64)
			d := dst[64 : 64+n]
			f.copy(d, s)
			if !bytes.Equal(d, s) || !bytes.Equal(dst[:64], make([]byte, 64)) || !bytes.Equal(dst[64+n:], make([]byte, len(dst)-64-n)) {
				t.Fatalf("round %d, %d bytes: wrong bytes", round, n)
			}
		}
	}
	if f.plain == 0 || f.nt == 0 {
		t.Fatalf("averages not both set: plain %d, nt %d", f.plain, f.nt)
	}
	f.plain, f.nt, f.n = 5*fragNTRatio, 5, 1
	f.copy(make([]byte, shm.MaxPayload), src[:shm.MaxPayload])
	if f.plain > fragNTRatio*f.nt && !f.useNT || f.plain <= fragNTRatio*f.nt && f.useNT {
		t.Fatalf("choice %v against averages plain %d, nt %d", f.useNT, f.plain, f.nt)
	}
}

// TestAvgTicks: the first sample sets the average, one outlier moves it by
// at most (4-1)/8 of itself, a lasting change is followed.
func TestAvgTicks(t *testing.T) {
	a := avgTicks(0, 100)
	if a != 100 {
		t.Fatalf("first sample: %d", a)
	}
	if b := avgTicks(a, 1<<19); b > a+3*a/8+1 {
		t.Fatalf("one outlier moved 100 to %d", b)
	}
	for range 40 {
		a = avgTicks(a, 2000)
	}
	if a < 1500 {
		t.Fatalf("a lasting 2000 reached only %d", a)
	}
	if avgTicks(1, 0) == 0 {
		t.Fatal("the average reached 0")
	}
}
