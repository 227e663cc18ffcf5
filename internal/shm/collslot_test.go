package shm

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func newTestSegment(t testing.TB, n int) *Segment {
	t.Helper()
	l, err := NewLayout(n, DefaultCellsPerRank)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewPrivate(l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// runSteps has n goroutines take steps first..first+steps-1 of slot's
// control block: each writes the step into its cell, arrives, waits for the
// release (sleeping now and then) and checks that every cell holds at least
// that step, so that nobody was released before everyone had arrived. Every
// third step is rooted instead: the root (rank k mod n) arrives and posts
// without waiting, the others wait for the post, check the root's cell and
// arrive; the next step then waits for the release as every collective
// does. On more than two ranks every third step is led instead: its leader
// (rank k/3 mod n) waits for the release and leaves first (Lead), the others
// wait until it has (Led) and check that it had.
func runSteps(t *testing.T, c *CollCtl, n int, first, steps uint64) {
	t.Helper()
	cells := make([]atomic.Uint64, n)
	left := make([]atomic.Uint64, n) // 1 + the last step the rank left as leader
	var wg sync.WaitGroup
	errs := make(chan string, n)
	// A rank that finds something wrong reports it and goes on: were it to
	// stop taking steps, the others would wait for it for ever.
	fail := func(msg string) {
		select {
		case errs <- msg:
		default:
		}
	}
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			open := false
			for k := first; k < first+steps; k++ {
				if open { // the rule every shm collective follows first
					for !c.Released(k-1, n) {
						c.Sleep(k-1, n, time.Millisecond)
					}
					open = false
				}
				cells[r].Store(k)
				root := int(k % uint64(n))
				if k%3 == 2 {
					if r == root {
						c.Arrive(k, n, r)
						c.Post(k, n)
						open = true
						continue
					}
					for !c.Posted(k, n, root) {
						c.SleepPost(k, n, root, time.Millisecond)
					}
					if cells[root].Load() < k {
						fail("a reader went on before its root posted")
					}
					c.Arrive(k, n, r)
					open = true
					continue
				}
				if k%3 == 0 && n > 2 && r != int(k/3%uint64(n)) {
					leader := int(k / 3 % uint64(n))
					c.Arrive(k, n, r)
					for !c.Led(k) {
						c.SleepLead(k, time.Millisecond)
					}
					if left[leader].Load() < k+1 {
						fail("a rank left a led step before its leader")
					}
				} else if !c.Arrive(k, n, r) {
					for i := 0; !c.Released(k, n); i++ {
						if i%16 == 15 {
							c.Sleep(k, n, time.Millisecond)
						} else {
							runtime.Gosched()
						}
					}
				}
				for q := range n {
					if cells[q].Load() < k {
						fail("released before every rank arrived")
					}
				}
				if k%3 == 0 && n > 2 && r == int(k/3%uint64(n)) {
					left[r].Store(k + 1)
					c.Lead(k)
				}
			}
			if open {
				for !c.Released(first+steps-1, n) {
					c.Sleep(first+steps-1, n, time.Millisecond)
				}
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(30 * time.Second):
		t.Fatal("the steps did not finish in 30 s: a rank waits for ever")
	}
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// TestCollSteps runs steps on two ranks (each rank's own word) and on more
// (the shared counter), then hands the slot to a communicator of another
// size: its steps start where the slot's words are, which never go back.
func TestCollSteps(t *testing.T) {
	for _, sizes := range [][2]int{{2, 2}, {2, 3}, {3, 2}, {4, 4}, {1, 2}} {
		t.Run(fmt.Sprintf("%d-then-%d-ranks", sizes[0], sizes[1]), func(t *testing.T) {
			s := newTestSegment(t, 4)
			slot, base := s.ClaimCollSlot(7, sizes[0])
			if slot < 1 || base != 0 {
				t.Fatalf("first claim: slot %d, base %d; want a slot above 0 and base 0", slot, base)
			}
			c := s.CollCtlAt(slot)
			runSteps(t, c, sizes[0], base, 300)
			s.ReleaseCollSlot(slot)
			slot2, base2 := s.ClaimCollSlot(8, sizes[1])
			if slot2 != slot || base2 != 300 {
				t.Fatalf("second claim: slot %d, base %d; want %d, 300", slot2, base2, slot)
			}
			if !c.Released(base2-1, sizes[0]) {
				t.Fatalf("the last owner's last step looks unreleased after the claim")
			}
			if c.Released(base2, sizes[1]) || c.Posted(base2, sizes[1], 0) || c.Led(base2) {
				t.Fatalf("the new owner's first step looks released, posted or led before anyone arrived")
			}
			runSteps(t, c, sizes[1], base2, 300)
		})
	}
}

// BenchmarkCollStep: one step between two goroutines on their own threads,
// on the two ranks' own words ("pair", what two-rank communicators use) and
// on the shared counter ("counter", what larger ones use). ns/op is one step.
func BenchmarkCollStep(b *testing.B) {
	// pair1: the pair protocol with every step on the words of parity 0
	// (steps 0, 2, 4, ...): what a step costs on one line per rank.
	for _, mode := range []string{"pair", "pair1", "counter"} {
		b.Run(mode, func(b *testing.B) {
			s := newTestSegment(b, 2)
			slot, _ := s.ClaimCollSlot(1, 2)
			c := s.CollCtlAt(slot)
			step := func(k uint64, r int) {
				if mode == "pair1" {
					k *= 2
				}
				if mode != "counter" {
					if !c.Arrive(k, 2, r) {
						for !c.Released(k, 2) {
						}
					}
					return
				}
				if !c.arriveCount(k, 2) {
					for !c.releasedCount(k) {
					}
				}
			}
			stepPair(b, 0, step)
		})
	}
}

// stepPair runs b.N steps from first between two goroutines on their own
// threads, rank 1 on a new one and rank 0 on the benchmark's.
func stepPair(b *testing.B, first uint64, step func(k uint64, r int)) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		for k := range uint64(b.N) {
			step(first+k, 1)
		}
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	for k := range uint64(b.N) {
		step(first+k, 0)
	}
	wg.Wait()
}
