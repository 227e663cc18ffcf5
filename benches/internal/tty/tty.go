// Package tty tells whether a benchmark's progress lines would reach a
// person: long runs print them on stderr when it is a terminal, and stay
// quiet when it is a file or a pipe (CI logs, scripts).
package tty

import (
	"fmt"
	"os"
	"strings"

	"github.com/gompi/gompi/internal/jobenv"
)

// Is reports whether f is a terminal, or, for os.Stderr of a rank that
// golaunch started (a pipe to golaunch), whether golaunch's stderr is one.
func Is(f *os.File) bool {
	if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		return true
	}
	if f != os.Stderr || os.Getenv(jobenv.Rank) == "" {
		return false
	}
	target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/2", os.Getppid()))
	return err == nil && (strings.HasPrefix(target, "/dev/pts/") || strings.HasPrefix(target, "/dev/tty"))
}
