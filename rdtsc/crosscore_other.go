//go:build !linux

package rdtsc

import "fmt"

// CheckCrossCore needs per-thread CPU affinity, which this package only
// implements on Linux.
func CheckCrossCore(rounds int) (*CrossCore, error) {
	return nil, fmt.Errorf("rdtsc: cross-core check needs Linux CPU affinity: %w", ErrNotSupported)
}
