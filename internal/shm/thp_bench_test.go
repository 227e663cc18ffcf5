//go:build linux

package shm

import (
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BenchmarkReadRemotePages times process_vm_readv of this process's own
// memory from a source on 4 KiB pages against one on a huge page (mmap'd,
// 2 MiB aligned, MADV_HUGEPAGE before first touch): the ceiling of what a
// huge page under a single copy's source can buy at each size. It reports
// the minimum and the median per call besides the mean, which a loaded
// machine's preemptions dominate.
func BenchmarkReadRemotePages(b *testing.B) {
	region := func(huge bool) []byte {
		m, err := unix.Mmap(-1, 0, 4*hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			b.Fatal(err)
		}
		off := (hugePage - int(uintptr(unsafe.Pointer(&m[0])))%hugePage) % hugePage
		r := m[off : off+2*hugePage]
		if huge {
			if err := unix.Madvise(r, unix.MADV_HUGEPAGE); err != nil {
				b.Skip(err)
			}
		} else {
			_ = unix.Madvise(r, unix.MADV_NOHUGEPAGE)
		}
		for i := range r {
			r[i] = byte(i)
		}
		return r
	}
	src4, srcH := region(false), region(true)
	dst := region(false)
	pid := os.Getpid()
	for _, size := range []int{32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20} {
		name := strconv.Itoa(size>>10) + "KiB"
		for _, c := range []struct {
			name string
			src  []byte
		}{{"4k", src4}, {"huge", srcH}} {
			b.Run(c.name+"/"+name, func(b *testing.B) {
				addr := uint64(uintptr(unsafe.Pointer(&c.src[4096])))
				b.SetBytes(int64(size))
				ts := make([]time.Duration, 0, b.N)
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					if err := ReadRemote(pid, dst[:size], addr); err != nil {
						b.Skip(err)
					}
					ts = append(ts, time.Since(t0))
				}
				slices.Sort(ts)
				b.ReportMetric(float64(ts[0].Nanoseconds()), "min-ns")
				b.ReportMetric(float64(ts[len(ts)/2].Nanoseconds()), "p50-ns")
			})
		}
	}
}
