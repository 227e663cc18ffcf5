package jobenv

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// SecretFile puts secret in an anonymous memory file for the ranks to
// inherit: unlike the environment or the command line, it is readable only
// through the descriptor (or by the same user through /proc), and it leaves
// nothing on disk. The file is sealed against writes.
func SecretFile(secret []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate("gompi-secret", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("jobenv: memfd for the job secret: %w", err)
	}
	f := os.NewFile(uintptr(fd), "gompi-secret")
	if _, err := f.Write(secret); err != nil {
		f.Close()
		return nil, err
	}
	unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_WRITE|unix.F_SEAL_GROW|unix.F_SEAL_SHRINK|unix.F_SEAL_SEAL)
	return f, nil
}
