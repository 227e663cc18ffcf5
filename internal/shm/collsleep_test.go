package shm

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestRawCollSleepNoLostWakeup: ranks that sleep at once on the release word
// with raw sleeps (SetRawCollSleep) and a nap far longer than the test are
// all woken by every release: a lost wake-up would leave a rank asleep for
// the whole nap, and the watchdog would report it. Rooted steps (the
// readers asleep on the post word) are mixed in.
func TestRawCollSleepNoLostWakeup(t *testing.T) {
	for _, n := range []int{3, 7} {
		SetRawCollSleep(true)
		// One P per rank, and one to spare: a raw sleep holds its P.
		prev := runtime.GOMAXPROCS(n + 1)
		s := newTestSegment(t, n)
		c := s.CollCtlAt(0)
		const steps = 1500
		var wg sync.WaitGroup
		for r := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := uint64(0); k < steps; k++ {
					if k%5 == 4 { // rooted: the root posts, the others wait for it
						root := int(k/5) % n
						if k > 0 {
							for !c.Released(k-1, n) {
								c.Sleep(k-1, n, time.Hour)
							}
						}
						c.Arrive(k, n, r)
						if r == root {
							c.Post(k, n)
						}
						for !c.Posted(k, n, root) {
							c.SleepPost(k, n, root, time.Hour)
						}
						continue
					}
					if k > 0 {
						for !c.Released(k-1, n) {
							c.Sleep(k-1, n, time.Hour)
						}
					}
					if c.Arrive(k, n, r) {
						continue
					}
					for !c.Released(k, n) {
						c.Sleep(k, n, time.Hour)
					}
				}
			}()
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			t.Fatalf("%d ranks: a rank still sleeps after 2 minutes: a lost wake-up", n)
		}
		runtime.GOMAXPROCS(prev)
		SetRawCollSleep(false)
	}
}
