package core

import (
	"runtime"
	"testing"
)

// TestHostCPUs: the CPUs online, at least those this process may run on.
func TestHostCPUs(t *testing.T) {
	if hostCPUs < runtime.NumCPU() || hostCPUs > 1<<16 {
		t.Fatalf("hostCPUs = %d, NumCPU %d", hostCPUs, runtime.NumCPU())
	}
}
