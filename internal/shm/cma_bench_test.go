//go:build linux

package shm

import (
	"os"
	"strconv"
	"testing"
	"unsafe"
)

// BenchmarkReadRemote times the rendezvous' single copy, process_vm_readv,
// against a plain copy of the same size (reading this process's own memory:
// the kernel pins and copies the pages as it does for a peer's).
func BenchmarkReadRemote(b *testing.B) {
	for _, size := range []int{4 << 10, 16 << 10, 64 << 10, 128 << 10, 1 << 20, 4 << 20} {
		src := make([]byte, size)
		dst := make([]byte, size)
		for i := range src {
			src[i] = byte(i)
		}
		name := strconv.Itoa(size>>10) + "KiB"
		b.Run("cma/"+name, func(b *testing.B) {
			pid := os.Getpid()
			addr := uint64(uintptr(unsafe.Pointer(&src[0])))
			b.SetBytes(int64(size))
			for i := 0; i < b.N; i++ {
				if err := ReadRemote(pid, dst, addr); err != nil {
					b.Skip(err)
				}
			}
		})
		b.Run("copy/"+name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for i := 0; i < b.N; i++ {
				copy(dst, src)
			}
		})
	}
}
