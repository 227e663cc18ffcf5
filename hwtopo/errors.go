package hwtopo

import (
	"errors"
	"fmt"
)

// ErrNotSupported is wrapped by every error that says this machine, kernel or
// environment cannot do what was asked — no NUMA, binding refused by the
// kernel, a container's seccomp policy, another user's process — as opposed
// to a mistake in the request. Test with errors.Is.
var ErrNotSupported = errors.New("not supported")

// BindError is a refused or failed binding: the system call, the thread or
// process, what was asked, and the kernel's error. When the refusal comes
// from the environment rather than the arguments, errors.Is(err,
// ErrNotSupported) is true; errors.Is(err, unix.EPERM) and the like test the
// errno.
type BindError struct {
	Op          string // "sched_setaffinity", "set_mempolicy", "mbind", …
	TID         int    // thread or process ID; 0 is the calling thread
	Target      string // what was asked: "CPUs 0-3", "nodes 1"
	Err         error  // the underlying error, usually a unix.Errno
	Unsupported bool   // the environment refused, see ErrNotSupported
}

func (e *BindError) Error() string {
	who := "the calling thread"
	if e.TID != 0 {
		who = fmt.Sprintf("thread %d", e.TID)
	}
	msg := fmt.Sprintf("hwtopo: %s of %s to %s: %v", e.Op, who, e.Target, e.Err)
	if e.Unsupported {
		msg += " (not supported here)"
	}
	return msg
}

// Unwrap returns the underlying error and, for a refusal, ErrNotSupported.
func (e *BindError) Unwrap() []error {
	if e.Unsupported {
		return []error{e.Err, ErrNotSupported}
	}
	return []error{e.Err}
}
