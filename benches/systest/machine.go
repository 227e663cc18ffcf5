package systest

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/hwtopo"
)

// cacheLevel is one data cache size to mark on the plots.
type cacheLevel struct {
	name   string
	size   int64
	source string
}

// caches returns the data and unified caches, one per level: from sysfs
// through hwtopo, else from CPUID (virtual machines often hide sysfs caches).
func caches(t *hwtopo.Topology) []cacheLevel {
	var out []cacheLevel
	seen := map[int]bool{}
	for i := len(t.Caches) - 1; i >= 0; i-- { // hwtopo orders highest level first
		c := t.Caches[i]
		if c.Type == hwtopo.Instruction || seen[c.Level] {
			continue
		}
		seen[c.Level] = true
		out = append(out, cacheLevel{fmt.Sprintf("L%d", c.Level), c.Size, "sysfs"})
	}
	if len(out) > 0 {
		return out
	}
	for i, s := range []int{cpuid.CPU.Cache.L1D, cpuid.CPU.Cache.L2, cpuid.CPU.Cache.L3} {
		if s > 0 {
			out = append(out, cacheLevel{fmt.Sprintf("L%d", i+1), int64(s), "CPUID"})
		}
	}
	return out
}

// currentCPU returns the CPU the calling thread runs on (getcpu(2)).
func currentCPU() int {
	var cpu, node uint32
	_, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), uintptr(unsafe.Pointer(&node)), 0)
	if e != 0 {
		return -1
	}
	return int(cpu)
}

// load keeps k OS threads busy spinning until stop, each pinned to one of
// cpus in turn when cpus is not empty.
type load struct {
	stop  atomic.Bool
	wg    sync.WaitGroup
	procs int // GOMAXPROCS before
}

// The spinning threads hold Go's Ps, so GOMAXPROCS grows by k while they run:
// the measured goroutines then compete with them for the cores through the
// OS scheduler, as the seed's threads did, not for Ps inside the runtime.
func startLoad(k int, cpus hwtopo.CPUSet) *load {
	l := &load{procs: runtime.GOMAXPROCS(0)}
	runtime.GOMAXPROCS(l.procs + k)
	for i := range k {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			if len(cpus) > 0 {
				hwtopo.BindThread(hwtopo.CPUSet{cpus[i%len(cpus)]})
			}
			for !l.stop.Load() {
			}
		}()
	}
	return l
}

func (l *load) end() {
	l.stop.Store(true)
	l.wg.Wait()
	runtime.GOMAXPROCS(l.procs)
}

// progress is the one-line progress report on a terminal.
type progress struct {
	w     io.Writer // nil: quiet
	n     int
	begin time.Time
	wide  int
}

func newProgress(w io.Writer, on bool) *progress {
	p := &progress{begin: time.Now()}
	if on && isTerminal(w) {
		p.w = w
	}
	return p
}

func (p *progress) step(r Row) {
	p.n++
	if p.w == nil {
		return
	}
	line := fmt.Sprintf("systest [%d, %v] %s %s %s %s", p.n, time.Since(p.begin).Round(time.Second), r.Test, r.Case, r.Impl, r.Setting)
	if len(line) > 100 {
		line = line[:100]
	}
	pad := max(0, p.wide-len(line))
	p.wide = len(line)
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
}

func (p *progress) clear() {
	if p.w != nil && p.wide > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.wide))
		p.wide = 0
	}
}

// isTerminal reports whether w is a terminal, or, for a rank that golaunch
// started (whose stderr is a pipe to golaunch), whether golaunch's is.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	if _, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err == nil {
		return true
	}
	if f != os.Stderr || os.Getenv("GOMPI_RANK") == "" {
		return false
	}
	target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/2", os.Getppid()))
	return err == nil && (strings.HasPrefix(target, "/dev/pts/") || strings.HasPrefix(target, "/dev/tty"))
}

// lockThread locks the calling goroutine to its OS thread for good: the
// thread ends with the goroutine, so a binding made on it dies with it.
func lockThread() { runtime.LockOSThread() }
