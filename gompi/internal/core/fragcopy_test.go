package core

import (
	"bytes"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/shm"
)

// TestFragCopier: whatever the copier chooses, every fragment, whole or
// short, arrives intact; the tick rate is taken after fragRateAfter, and the
// choice then follows the plain copy's average against the limit.
func TestFragCopier(t *testing.T) {
	var f fragCopier
	src := make([]byte, 3*shm.MaxPayload)
	for i := range src {
		src[i] = byte(i*13 + i>>9)
	}
	check := func(round int) {
		for _, n := range []int{shm.MaxPayload, shm.MaxPayload - 1, 1, 200, shm.MaxPayload} {
			s := src[round%97 : round%97+n]
			dst := make([]byte, shm.MaxPayload+64)
			d := dst[64 : 64+n]
			f.copy(d, s)
			if !bytes.Equal(d, s) || !bytes.Equal(dst[:64], make([]byte, 64)) || !bytes.Equal(dst[64+n:], make([]byte, len(dst)-64-n)) {
				t.Fatalf("round %d, %d bytes, non-temporal %v: wrong bytes", round, n, f.useNT)
			}
		}
	}
	for round := range fragTimeEvery {
		check(round)
	}
	time.Sleep(fragRateAfter)
	for round := range fragTimeEvery {
		check(round)
	}
	if f.limit == 0 || f.plain == 0 {
		t.Fatalf("limit %d, plain average %d after %v", f.limit, f.plain, fragRateAfter)
	}
	// Both ways, the probes included: forced dear, then cheap.
	for _, dear := range []bool{true, false} {
		for round := range 2 * fragProbeEvery {
			if dear {
				f.limit = 1
			} else {
				f.limit = 1 << 40
			}
			check(round)
		}
		// A switch back to plain waits for a probe (one whole fragment
		// in fragProbeEvery): both phases run past one.
		if f.useNT != dear {
			t.Fatalf("non-temporal %v with plain average %d, limit %d", f.useNT, f.plain, f.limit)
		}
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
