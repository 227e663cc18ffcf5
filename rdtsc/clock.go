// Package rdtsc reads the processor's time-stamp counter and offers the
// clocks that gompi can time with: the TSC itself, the monotonic clock and the
// wall clock, and any clock another package registers (the cgo backend adds
// "mpi", MPI_Wtime).
//
// Start and End read the raw counter with the fences that suit the start and
// the end of a timed interval. CheckTrust says whether the counter can be
// trusted on this machine (invariant, the kernel's clock source, a hypervisor,
// agreement between CPUs); Calibrate converts ticks to seconds against
// CLOCK_MONOTONIC_RAW; Validate compares a clock with a reference.
//
// All clocks are safe for concurrent use. Reading a clock never allocates.
package rdtsc

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// ErrNotSupported is wrapped by errors about what this machine cannot do:
// no readable counter on this architecture, no per-CPU affinity to check
// cross-core agreement.
var ErrNotSupported = errors.New("not supported")

// ErrUnknownClock is wrapped by ByName's error for a name nobody registered.
var ErrUnknownClock = errors.New("unknown clock")

// A Clock is a time source. Implementations must be safe for concurrent use
// and must not allocate when read.
type Clock interface {
	// Name is the short name that selects the clock ("tsc", "monotonic", ...).
	Name() string
	// Now returns seconds since an origin fixed for the life of the process
	// (the Unix epoch for the wall clock, a point near process start for the
	// others), as MPI_Wtime does.
	Now() float64
	// Ticks returns the raw count of the clock; ticks are only meaningful as
	// differences, divided by Rate.
	Ticks() int64
	// Rate is ticks per second.
	Rate() float64
	// Resolution is the smallest difference Now can show, in seconds (what
	// MPI_Wtick returns): the tick for most clocks, coarser where the clock
	// itself is coarse or where float64 seconds since the epoch cannot hold
	// more.
	Resolution() float64
}

// Seconds converts a difference of c's ticks to seconds.
func Seconds(c Clock, ticks int64) float64 { return float64(ticks) / c.Rate() }

// monoBase is the origin of the monotonic clock and of the TSC clock's Now.
var monoBase = time.Now()

// MonotonicClock is Go's monotonic clock (CLOCK_MONOTONIC through the vDSO),
// in nanoseconds since package initialization. It never goes backwards and is
// slewed, not stepped, by NTP.
type MonotonicClock struct{ res float64 }

func (MonotonicClock) Name() string { return "monotonic" }

// Now returns seconds since package initialization.
func (MonotonicClock) Now() float64 { return float64(time.Since(monoBase)) * 1e-9 }

// Ticks returns nanoseconds since package initialization.
func (MonotonicClock) Ticks() int64 { return int64(time.Since(monoBase)) }

func (MonotonicClock) Rate() float64 { return 1e9 }

// Resolution is clock_getres(CLOCK_MONOTONIC).
func (c MonotonicClock) Resolution() float64 { return c.res }

// RealtimeClock is the wall clock (CLOCK_REALTIME through the vDSO, what
// gettimeofday reads, with nanoseconds): seconds since the Unix epoch. It can
// jump when the system time is set; its Now has the resolution float64 allows
// at today's date (about 0.24 µs).
type RealtimeClock struct{ res float64 }

func (RealtimeClock) Name() string { return "realtime" }

// Now returns seconds since the Unix epoch.
func (RealtimeClock) Now() float64 {
	t := time.Now()
	return float64(t.Unix()) + float64(t.Nanosecond())*1e-9
}

// Ticks returns nanoseconds since the Unix epoch.
func (RealtimeClock) Ticks() int64 { return time.Now().UnixNano() }

func (RealtimeClock) Rate() float64 { return 1e9 }

// Resolution is the larger of clock_getres(CLOCK_REALTIME) and the spacing of
// float64 values near the current time in seconds.
func (c RealtimeClock) Resolution() float64 { return c.res }

// Monotonic returns the monotonic clock.
func Monotonic() Clock { return MonotonicClock{res: clockRes(false)} }

// Realtime returns the wall clock.
func Realtime() Clock {
	now := float64(time.Now().Unix())
	return RealtimeClock{res: math.Max(clockRes(true), math.Nextafter(now, math.Inf(1))-now)}
}

var (
	regMu      sync.Mutex
	registered = map[string]Clock{}
)

// builtin are the clocks this package provides, by name. "tsc" calibrates on
// first use, so it is built lazily.
var builtin = map[string]func() (Clock, error){
	"monotonic": func() (Clock, error) { return Monotonic(), nil },
	"realtime":  func() (Clock, error) { return Realtime(), nil },
	"tsc": func() (Clock, error) {
		c, err := TSC()
		if err != nil {
			return nil, err
		}
		return c, nil
	},
}

// Register adds a clock under c.Name(), for clocks that live in other packages
// (the cgo backend registers "mpi", MPI_Wtime). It fails if the name is empty
// or already taken.
func Register(c Clock) error {
	name := c.Name()
	if name == "" {
		return errors.New("rdtsc: Register: clock has an empty name")
	}
	regMu.Lock()
	defer regMu.Unlock()
	if _, ok := builtin[name]; ok {
		return fmt.Errorf("rdtsc: Register: %q is a built-in clock", name)
	}
	if _, ok := registered[name]; ok {
		return fmt.Errorf("rdtsc: Register: clock %q is already registered", name)
	}
	registered[name] = c
	return nil
}

// ByName returns the clock called name: "tsc", "monotonic", "realtime", or one
// added with Register. The first call for "tsc" calibrates the counter (about
// DefaultCalibrationSpan); it fails with ErrNotSupported where there is no
// counter. An unknown name gives an error wrapping ErrUnknownClock.
//
// ByName("tsc") does not judge whether the counter can be trusted; callers
// that need to know call CheckTrust.
func ByName(name string) (Clock, error) {
	if f, ok := builtin[name]; ok {
		return f()
	}
	regMu.Lock()
	c, ok := registered[name]
	regMu.Unlock()
	if ok {
		return c, nil
	}
	hint := ""
	if name == "mpi" {
		hint = " (MPI_Wtime is registered by the cgo backend: build with -tags mpi)"
	}
	return nil, fmt.Errorf("rdtsc: %w %q%s; known: %v", ErrUnknownClock, name, hint, Names())
}

// Names lists the clocks ByName knows, sorted. "tsc" is listed only where the
// architecture has a counter.
func Names() []string {
	names := []string{"monotonic", "realtime"}
	if counterName != "" {
		names = append(names, "tsc")
	}
	regMu.Lock()
	for n := range registered {
		names = append(names, n)
	}
	regMu.Unlock()
	slices.Sort(names)
	return names
}

func monoNanos() int64 { return int64(time.Since(monoBase)) }
