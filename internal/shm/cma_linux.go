package shm

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// ErrCMARefused means the kernel would not let this process read another's
// memory (ptrace policy, seccomp, or no process_vm_readv): the caller falls
// back to copying through the segment.
var ErrCMARefused = errors.New("shm: cross-memory attach refused")

// ErrPeerGone means the process to read from no longer exists.
var ErrPeerGone = errors.New("shm: peer process gone")

// ReadRemote copies len(dst) bytes from address addr of process pid into dst
// with one system call per chunk the kernel accepts: the single copy of the
// rendezvous protocol.
func ReadRemote(pid int, dst []byte, addr uint64) error {
	return remoteCopy(pid, dst, addr, unix.ProcessVMReadv, "process_vm_readv from")
}

// WriteRemote copies src into address addr of process pid: the single copy
// of a collective whose ranks push their blocks into the root's buffer.
func WriteRemote(pid int, src []byte, addr uint64) error {
	return remoteCopy(pid, src, addr, unix.ProcessVMWritev, "process_vm_writev to")
}

// remoteCopy moves buf to or from addr of process pid with call, chunk by
// chunk as the kernel accepts them.
func remoteCopy(pid int, buf []byte, addr uint64,
	call func(int, []unix.Iovec, []unix.RemoteIovec, uint) (int, error), what string) error {
	for len(buf) > 0 {
		local := []unix.Iovec{{Base: &buf[0]}}
		local[0].SetLen(len(buf))
		remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(buf)}}
		n, err := call(pid, local, remote, 0)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EPERM || err == unix.ENOSYS || err == unix.EACCES:
			return fmt.Errorf("%w: %v", ErrCMARefused, err)
		case err == unix.ESRCH:
			return ErrPeerGone
		case err != nil:
			return fmt.Errorf("shm: %s pid %d: %w", what, pid, err)
		case n == 0:
			return fmt.Errorf("shm: %s pid %d made no progress", what, pid)
		}
		buf = buf[n:]
		addr += uint64(n)
	}
	return nil
}

// AllowPeerReads lets any process attach to this one as far as Yama is
// concerned (prctl PR_SET_PTRACER_ANY): under ptrace_scope 1 only ancestors
// may otherwise, and ranks are siblings. It changes nothing where Yama is
// off or stricter; errors (no Yama) are ignored.
func AllowPeerReads() { _ = unix.Prctl(unix.PR_SET_PTRACER, unix.PR_SET_PTRACER_ANY, 0, 0, 0) }
