package shm

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestPopLeavesAHalfPushedCell: a producer that swapped itself into the tail
// and then stopped (killed between the swap and the link) must not hold the
// reader in Pop: Pop reports nothing for now and keeps the queue intact, and
// once the link appears the cells come out in order.
func TestPopLeavesAHalfPushedCell(t *testing.T) {
	l, _ := NewLayout(3, 4)
	s, err := NewPrivate(l)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const reader = 0
	a, b := s.Cells(1)[0], s.Cells(2)[0]
	s.Push(reader, a)
	// The first half of Push(reader, b): the swap, without the link.
	atomic.StoreInt64(&s.CellAt(b).Next, 0)
	if prev := atomic.SwapInt64(&s.ranks[reader].tail, b); prev != a {
		t.Fatalf("tail was %d, want %d", prev, a)
	}
	for i := 0; i < 3; i++ {
		if off := s.Pop(reader); off != 0 {
			t.Fatalf("Pop returned %d before the link: the cell may still be written", off)
		}
		if !s.HeadReady(reader) || s.Empty(reader) {
			t.Fatal("the queue lost its head")
		}
	}
	atomic.StoreInt64(&s.CellAt(a).Next, b) // the producer finishes
	if off := s.Pop(reader); off != a {
		t.Fatalf("Pop = %d, want %d", off, a)
	}
	if off := s.Pop(reader); off != b {
		t.Fatalf("Pop = %d, want %d", off, b)
	}
	if !s.Empty(reader) {
		t.Fatal("the queue is not empty")
	}
}

// TestAbortPublishesWhoBeforeTheFlag: whoever sees the abort flag reads the
// rank and code of the one Abort that counted, never a mix or the defaults.
func TestAbortPublishesWhoBeforeTheFlag(t *testing.T) {
	for trial := 0; trial < 50; trial++ {
		l, _ := NewLayout(2, 4)
		s, err := NewPrivate(l)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		var wg sync.WaitGroup
		for r := 0; r < 4; r++ {
			wg.Add(1)
			go func() { defer wg.Done(); s.Abort(r, 100+r) }()
		}
		go func() {
			defer close(done)
			for {
				if rank, code, ok := s.Aborted(); ok {
					if rank < 0 || code != 100+rank {
						t.Errorf("aborted by rank %d with code %d", rank, code)
					}
					return
				}
			}
		}()
		<-done
		wg.Wait()
		s.Close()
	}
}
