// Package outpath checks, before a benchmark runs, that the files it is to
// write at the end can be written: a run of minutes must not be lost to a
// mistyped directory.
package outpath

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// ErrUnwritable is the class of the errors Check returns.
var ErrUnwritable = errors.New("cannot be written")

// Check reports whether path could be created or overwritten, without
// creating it: it is not a directory, its directory exists and is
// writable, and an existing file is writable. flag names the option in the
// message ("--plot"); an empty path is fine (no file asked for).
func Check(flag, path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return fmt.Errorf("%s %s: %w: it is a directory; name a file", flag, path, ErrUnwritable)
		}
		if unix.Access(path, unix.W_OK) != nil {
			return fmt.Errorf("%s %s: %w: no permission to write it", flag, path, ErrUnwritable)
		}
		return nil
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("%s %s: %w: directory %s does not exist; create it first (mkdir -p %s)", flag, path, ErrUnwritable, dir, dir)
	case !st.IsDir():
		return fmt.Errorf("%s %s: %w: %s is not a directory", flag, path, ErrUnwritable, dir)
	case unix.Access(dir, unix.W_OK) != nil:
		return fmt.Errorf("%s %s: %w: no permission to write in %s", flag, path, ErrUnwritable, dir)
	}
	return nil
}
