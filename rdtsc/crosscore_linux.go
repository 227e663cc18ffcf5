package rdtsc

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// CheckCrossCore compares the counter of every CPU in the process's affinity
// mask with the first one's, by rounds round trips each (see CrossCore). It
// runs two goroutines, each locked to an OS thread pinned to one CPU, that
// busy-wait on each other; those threads are discarded afterwards, so the
// caller's own affinity is untouched. It returns an error wrapping
// ErrNotSupported where the counter or per-CPU affinity is unavailable.
func CheckCrossCore(rounds int) (*CrossCore, error) {
	if counterName == "" {
		return nil, fmt.Errorf("rdtsc: no cycle counter on this architecture: %w", ErrNotSupported)
	}
	if rounds < 1 {
		return nil, errors.New("rdtsc: CheckCrossCore: rounds must be at least 1")
	}
	var mask unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mask); err != nil {
		return nil, fmt.Errorf("rdtsc: sched_getaffinity: %v: %w", err, ErrNotSupported)
	}
	var cpus []int
	for i := range len(mask) * 64 {
		if mask.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	if len(cpus) == 0 {
		return nil, fmt.Errorf("rdtsc: empty affinity mask: %w", ErrNotSupported)
	}
	cc := &CrossCore{Reference: cpus[0], Rounds: rounds, CPUs: []CoreOffset{{CPU: cpus[0]}}}
	for _, cpu := range cpus[1:] {
		o, err := pingPong(cpus[0], cpu, rounds)
		if err != nil {
			return nil, err
		}
		cc.CPUs = append(cc.CPUs, o)
	}
	return cc, nil
}

// pingPong measures CPU b's counter against CPU a's (see CrossCore).
func pingPong(a, b, rounds int) (CoreOffset, error) {
	var (
		ab, ba   atomic.Uint64 // a message: the sender's counter; 0 = empty
		stop     atomic.Bool   // set on error or timeout: both sides give up
		wg       sync.WaitGroup
		errs     [2]error
		minAB    = int64(math.MaxInt64) // min(read on b − sent by a)
		minBA    = int64(math.MaxInt64)
		warps    [2]int
		ready    sync.WaitGroup
		deadline = time.Now().Add(10 * time.Second)
	)
	// wait spins until slot holds a message, giving up when stop is set.
	wait := func(slot *atomic.Uint64) (uint64, bool) {
		for i := 0; ; i++ {
			if v := slot.Load(); v != 0 {
				return v, true
			}
			if i&0xffff == 0xffff && (stop.Load() || time.Now().After(deadline)) {
				stop.Store(true)
				return 0, false
			}
		}
	}
	waitEmpty := func(slot *atomic.Uint64) bool {
		for i := 0; slot.Load() != 0; i++ {
			if i&0xffff == 0xffff && (stop.Load() || time.Now().After(deadline)) {
				stop.Store(true)
				return false
			}
		}
		return true
	}
	// side runs one end. send then receive for the sender-first side a,
	// receive then send for b. The goroutine stays locked to its thread to the
	// end, so the runtime discards the pinned thread when it exits.
	side := func(idx, cpu int, out, in *atomic.Uint64, minIn *int64, sendFirst bool) {
		defer wg.Done()
		runtime.LockOSThread()
		var set unix.CPUSet
		set.Set(cpu)
		errs[idx] = unix.SchedSetaffinity(0, &set)
		if errs[idx] != nil {
			stop.Store(true)
		}
		ready.Done()
		ready.Wait()
		for r := 0; r < 2*rounds && !stop.Load(); r++ {
			if (r%2 == 0) == sendFirst {
				if !waitEmpty(out) {
					return
				}
				// End: RDTSCP waits for the emptiness check, LFENCE keeps
				// the store from passing the read.
				out.Store(End())
				continue
			}
			sent, ok := wait(in)
			if !ok {
				return
			}
			// Start: LFENCE keeps the counter read after the load that
			// saw the message.
			d := int64(Start() - sent)
			in.Store(0)
			*minIn = min(*minIn, d)
			if d < 0 {
				warps[idx]++
			}
		}
	}
	wg.Add(2)
	ready.Add(2)
	go side(0, a, &ab, &ba, &minBA, true)
	go side(1, b, &ba, &ab, &minAB, false)
	wg.Wait()
	for i, cpu := range []int{a, b} {
		if errs[i] != nil {
			return CoreOffset{}, fmt.Errorf("rdtsc: cannot pin a thread to CPU %d: %v: %w", cpu, errs[i], ErrNotSupported)
		}
	}
	if stop.Load() {
		return CoreOffset{}, fmt.Errorf("rdtsc: cross-core check between CPUs %d and %d timed out", a, b)
	}
	return CoreOffset{
		CPU:         b,
		Offset:      float64(minAB-minBA) / 2,
		Uncertainty: float64(minAB+minBA) / 2,
		Warps:       warps[0] + warps[1],
	}, nil
}
