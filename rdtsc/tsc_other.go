//go:build !amd64 && !arm64

package rdtsc

import "time"

// There is no user-readable cycle counter on this architecture in this
// package: Start and End fall back to Go's monotonic clock in nanoseconds, so
// code that uses them still runs, and the "tsc" clock reports ErrNotSupported.

var fallbackBase = time.Now()

// Start returns nanoseconds of Go's monotonic clock (no hardware counter here).
func Start() uint64 { return uint64(time.Since(fallbackBase)) }

// Read returns nanoseconds of Go's monotonic clock (no hardware counter here).
func Read() uint64 { return uint64(time.Since(fallbackBase)) }

// End returns nanoseconds of Go's monotonic clock (no hardware counter here).
func End() uint64 { return uint64(time.Since(fallbackBase)) }

const counterName = ""

func knownRate() (float64, string) { return 1e9, "Go monotonic clock (no hardware counter)" }

// hypervisor: not detected on this architecture.
func hypervisor() (bool, string) { return false, "" }

func invariant() bool { return false }

func readCPU() (uint64, int) { return End(), -1 }

func hasRDTSCP() bool { return false }
