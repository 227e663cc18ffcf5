package gompi

import (
	"sync/atomic"

	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/rdtsc"
)

// The clock Wtime reads: "monotonic" unless GOMPI_TIMER (read by Init) or
// SetTimer chooses "tsc", "realtime" or another clock package rdtsc knows.
var wclock atomic.Pointer[clockBox]

type clockBox struct{ c rdtsc.Clock }

func clock() rdtsc.Clock {
	if b := wclock.Load(); b != nil {
		return b.c
	}
	b := &clockBox{rdtsc.Monotonic()}
	wclock.CompareAndSwap(nil, b)
	return wclock.Load().c
}

// SetTimer makes Wtime and Wtick read the named clock ("monotonic", "tsc",
// "realtime", ...: see package rdtsc). The TSC is calibrated on first use,
// which takes a fraction of a second.
func SetTimer(name string) error {
	c, err := rdtsc.ByName(name)
	if err != nil {
		return base.New("SetTimer", base.ErrArg, err.Error(), "use one of: monotonic, tsc, realtime")
	}
	wclock.Store(&clockBox{c})
	return nil
}

// Timer returns the clock Wtime reads.
func Timer() rdtsc.Clock { return clock() }

// applyTimer applies GOMPI_TIMER's value, if set.
func applyTimer(name string) error {
	if name != "" {
		return SetTimer(name)
	}
	return nil
}

// Wtime returns the time in seconds since an arbitrary moment fixed at
// start-up, read from the chosen clock (see SetTimer): the difference of two
// readings is elapsed time.
func Wtime() float64 { return clock().Now() }

// Wtick returns the resolution of Wtime in seconds.
func Wtick() float64 { return clock().Resolution() }
