package gompi_test

import (
	"errors"
	"testing"
	"time"

	"github.com/gompi/gompi/gompi"
)

func TestTimers(t *testing.T) {
	for _, name := range []string{"monotonic", "tsc", "realtime"} {
		if err := gompi.SetTimer(name); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if gompi.Timer().Name() != name {
			t.Fatalf("Timer() is %s, want %s", gompi.Timer().Name(), name)
		}
		a := gompi.Wtime()
		time.Sleep(10 * time.Millisecond)
		if d := gompi.Wtime() - a; d < 0.009 || d > 5 {
			t.Errorf("%s: 10 ms measured as %g s", name, d)
		}
		if tick := gompi.Wtick(); tick <= 0 || tick > 1e-3 {
			t.Errorf("%s: Wtick %g", name, tick)
		}
	}
	if err := gompi.SetTimer("sundial"); !errors.Is(err, gompi.ErrArg) {
		t.Errorf("unknown clock: %v", err)
	}
	gompi.SetTimer("monotonic")
}
