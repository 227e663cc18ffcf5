package rdtsc

import (
	"runtime"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestCPU: CPU names the CPU getcpu(2) names, on a thread that may move
// between the two reads (so one agreement in many tries is enough), or -1
// where it is not read.
func TestCPU(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if CPU() < 0 {
		t.Skip("CPU is not read on this platform")
	}
	for range 1000 {
		var cpu, node uint32
		if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), uintptr(unsafe.Pointer(&node)), 0); e != 0 {
			t.Skipf("getcpu: %v", e)
		}
		c := CPU()
		if c < 0 || c >= 4096 {
			t.Fatalf("CPU() = %d (NumCPU %d)", c, runtime.NumCPU())
		}
		if c == int(cpu) {
			return
		}
	}
	t.Fatal("CPU() never agreed with getcpu(2) in 1000 tries")
}
