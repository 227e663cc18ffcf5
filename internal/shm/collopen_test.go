package shm

import (
	"sync"
	"testing"
	"time"
)

// TestArriveOpen: an arrival that does not report whether it was the last
// (ArriveOpen) counts as one, on a two-rank slot (the rank's own word) and
// on the counter of a larger one: the step is posted and released once
// every rank has arrived, and a peer asleep on the word is woken.
func TestArriveOpen(t *testing.T) {
	for _, n := range []int{2, 3} {
		s := newTestSegment(t, 4)
		slot, base := s.ClaimCollSlot(9, n)
		c := s.CollCtlAt(slot)
		for k := base; k < base+200; k++ {
			var wg sync.WaitGroup
			for r := 1; r < n; r++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if k%2 == 0 {
						c.ArriveOpen(k, n, r)
					} else if !c.Arrive(k, n, r) {
						for !c.Released(k, n) {
							c.Sleep(k, n, time.Millisecond)
						}
					}
				}()
			}
			if c.Released(k, n) {
				t.Fatalf("%d ranks, step %d: released before rank 0 arrived", n, k)
			}
			c.Post(k, n)
			c.ArriveOpen(k, n, 0)
			if !c.Posted(k, n, 0) {
				t.Fatalf("%d ranks, step %d: not posted after the root's open arrival", n, k)
			}
			wg.Wait()
			if !c.Released(k, n) {
				t.Fatalf("%d ranks, step %d: not released after every arrival", n, k)
			}
		}
	}
}

// TestArriveOpenWakes: a rank asleep on its peer's two-rank word is woken
// by the peer's open arrival (the wake is what ArriveOpen keeps of Arrive).
func TestArriveOpenWakes(t *testing.T) {
	s := newTestSegment(t, 2)
	slot, base := s.ClaimCollSlot(10, 2)
	c := s.CollCtlAt(slot)
	c.Arrive(base, 2, 1)
	woke := make(chan time.Duration)
	go func() {
		start := time.Now()
		for !c.Released(base, 2) {
			c.Sleep(base, 2, 20*time.Second)
		}
		woke <- time.Since(start)
	}()
	time.Sleep(50 * time.Millisecond) // asleep by now, most likely
	c.ArriveOpen(base, 2, 0)
	select {
	case <-woke:
	case <-time.After(10 * time.Second):
		t.Fatal("the sleeper was not woken by the open arrival")
	}
}
