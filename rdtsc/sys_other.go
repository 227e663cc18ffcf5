//go:build !linux

package rdtsc

func clockRes(realtime bool) float64 { return 1e-9 }

// rawNanos falls back to Go's monotonic clock where CLOCK_MONOTONIC_RAW is
// not available.
func rawNanos() float64 { return float64(monoNanos()) }

func clockSources() (current string, available []string) { return "", nil }
