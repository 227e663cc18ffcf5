package hwtopo

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// refusedAffinity reports whether an errno from sched_setaffinity means the
// environment said no rather than the request being malformed: EPERM
// (another user's process, a seccomp policy), ENOSYS, and EINVAL, which the
// kernel returns when no CPU of the set is allowed by the task's cpuset
// cgroup.
func refusedAffinity(err error) bool {
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL)
}

func toUnixSet(cpus CPUSet) (unix.CPUSet, error) {
	var s unix.CPUSet
	if len(cpus) == 0 {
		return s, errors.New("hwtopo: empty CPU set")
	}
	for _, c := range cpus {
		if c < 0 || c >= len(s)*64 {
			return s, fmt.Errorf("hwtopo: CPU %d is beyond the %d CPUs a cpu_set_t holds", c, len(s)*64)
		}
		s.Set(c)
	}
	return s, nil
}

func fromUnixSet(s *unix.CPUSet) CPUSet {
	var cpus CPUSet
	for i := range len(s) * 64 {
		if s.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus
}

func setAffinity(tid int, cpus CPUSet) error {
	s, err := toUnixSet(cpus)
	if err != nil {
		return err
	}
	if err := unix.SchedSetaffinity(tid, &s); err != nil {
		return &BindError{Op: "sched_setaffinity", TID: tid, Target: "CPUs " + cpus.String(),
			Err: err, Unsupported: refusedAffinity(err)}
	}
	return nil
}

// BindThread pins the calling OS thread to cpus. A goroutine must call
// runtime.LockOSThread first, or the Go scheduler may move it to another,
// unpinned thread; threads the pinned thread creates inherit the mask.
func BindThread(cpus CPUSet) error { return setAffinity(0, cpus) }

// ThreadAffinity returns the CPUs the calling OS thread may run on.
func ThreadAffinity() (CPUSet, error) { return Affinity(0) }

// Affinity returns the CPUs thread or process tid may run on (0: the calling
// thread).
func Affinity(tid int) (CPUSet, error) {
	var s unix.CPUSet
	if err := unix.SchedGetaffinity(tid, &s); err != nil {
		return nil, &BindError{Op: "sched_getaffinity", TID: tid, Target: "query", Err: err,
			Unsupported: errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOSYS)}
	}
	return fromUnixSet(&s), nil
}

// BindProcess pins every thread of process pid to cpus, including threads
// that appear while it works: it lists /proc/PID/task until a pass finds no
// thread it has not bound (threads created by a bound thread inherit the mask
// anyway). Threads that exit meanwhile are skipped. A Go child has several
// threads by the time its parent can call this, which is why pinning only
// the main thread is not enough.
func BindProcess(pid int, cpus CPUSet) error {
	if _, err := toUnixSet(cpus); err != nil {
		return err
	}
	done := map[int]bool{}
	for pass := 0; ; pass++ {
		ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			return &BindError{Op: "sched_setaffinity", TID: pid, Target: "CPUs " + cpus.String(),
				Err: fmt.Errorf("listing its threads: %w", unix.ESRCH)}
		}
		fresh := 0
		for _, e := range ents {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || done[tid] {
				continue
			}
			fresh++
			if err := setAffinity(tid, cpus); err != nil {
				if errors.Is(err, unix.ESRCH) {
					done[tid] = true // the thread exited
					continue
				}
				return err
			}
			done[tid] = true
		}
		if fresh == 0 {
			return nil
		}
		if pass == 100 {
			return &BindError{Op: "sched_setaffinity", TID: pid, Target: "CPUs " + cpus.String(),
				Err: errors.New("the process keeps creating threads faster than they can be bound")}
		}
	}
}
