package hwtopo

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestBindThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := ThreadAffinity()
	if err != nil {
		t.Fatal(err)
	}
	defer BindThread(orig)
	for _, cpu := range orig {
		if err := BindThread(CPUSet{cpu}); err != nil {
			if errors.Is(err, ErrNotSupported) {
				t.Skipf("binding refused here: %v", err)
			}
			t.Fatal(err)
		}
		got, err := ThreadAffinity()
		if err != nil || !got.Equal(CPUSet{cpu}) {
			t.Errorf("after BindThread(%d): affinity %v, %v", cpu, got, err)
		}
	}
	// A CPU that does not exist: the kernel refuses with EINVAL, and the
	// error says both what and that it is not supported here.
	err = BindThread(CPUSet{1023})
	var be *BindError
	if !errors.As(err, &be) || !errors.Is(err, ErrNotSupported) || !errors.Is(err, unix.EINVAL) || be.Op != "sched_setaffinity" {
		t.Errorf("BindThread(1023) = %v: want a BindError wrapping EINVAL and ErrNotSupported", err)
	}
	if err := BindThread(nil); err == nil {
		t.Error("BindThread(empty): no error")
	}
	if err := BindThread(CPUSet{5000}); err == nil {
		t.Error("BindThread(5000): no error")
	}
}

// TestHelperProcess is not a test: it is the child that TestBindProcess
// starts, a Go program (so it has several threads) that waits to be killed.
func TestHelperProcess(t *testing.T) {
	if os.Getenv("GOMPI_HWTOPO_HELPER") != "1" {
		t.Skip("helper process for TestBindProcess")
	}
	done := make(chan bool)
	for range 3 { // a few locked threads besides the runtime's own
		go func() { runtime.LockOSThread(); <-done }()
	}
	time.Sleep(30 * time.Second)
	os.Exit(0)
}

func TestBindProcess(t *testing.T) {
	allowed, err := Affinity(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "GOMPI_HWTOPO_HELPER=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := cmd.Process.Pid
	tasks := func() []string {
		ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return names
	}
	for deadline := time.Now().Add(5 * time.Second); len(tasks()) < 4 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if len(tasks()) < 2 {
		t.Fatalf("the helper has %d threads", len(tasks()))
	}
	target := CPUSet{allowed[len(allowed)-1]}
	if err := BindProcess(pid, target); err != nil {
		if errors.Is(err, ErrNotSupported) {
			t.Skipf("binding refused here: %v", err)
		}
		t.Fatal(err)
	}
	for _, name := range tasks() {
		var tid int
		fmt.Sscan(name, &tid)
		got, err := Affinity(tid)
		if err != nil && !errors.Is(err, unix.ESRCH) {
			t.Errorf("thread %d: %v", tid, err)
		} else if err == nil && !got.Equal(target) {
			t.Errorf("thread %d of %d: affinity %v, want %v", tid, len(tasks()), got, target)
		}
	}
	if err := BindProcess(1<<30, target); err == nil || !errors.Is(err, unix.ESRCH) {
		t.Errorf("BindProcess(no such pid) = %v, want ESRCH", err)
	}
}
