package rdtsc

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// clockRes returns clock_getres of CLOCK_REALTIME or CLOCK_MONOTONIC in
// seconds, 1 ns if the call fails.
func clockRes(realtime bool) float64 {
	id := unix.CLOCK_MONOTONIC
	if realtime {
		id = unix.CLOCK_REALTIME
	}
	var ts unix.Timespec
	if unix.ClockGetres(int32(id), &ts) != nil || ts.Nano() <= 0 {
		return 1e-9
	}
	return float64(ts.Nano()) * 1e-9
}

// rawNanos reads CLOCK_MONOTONIC_RAW in nanoseconds. It is a system call (the
// Go runtime's vDSO path covers only REALTIME and MONOTONIC), which is why
// calibration brackets it with counter reads.
func rawNanos() float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC_RAW, &ts); err != nil {
		return float64(monoNanos())
	}
	return float64(ts.Nano())
}

const clocksourceDir = "/sys/devices/system/clocksource/clocksource0/"

// clockSources returns the kernel's current clock source and the available
// ones, empty where sysfs does not say.
func clockSources() (current string, available []string) {
	if b, err := os.ReadFile(clocksourceDir + "current_clocksource"); err == nil {
		current = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile(clocksourceDir + "available_clocksource"); err == nil {
		available = strings.Fields(string(b))
	}
	return current, available
}
