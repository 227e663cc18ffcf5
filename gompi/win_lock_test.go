//go:build !mpi && !mpich

package gompi

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestRMAExclusiveLockNotStarved: on the same-host path, once an exclusive
// locker waits for a target that shared holders have, no new shared lock
// is granted before it; so a stream of shared lockers cannot starve it.
// Rank 1 holds a shared lock on rank 0; rank 0 asks for an exclusive one;
// a shared lock must then be refused until rank 1 has let go and rank 0
// has had its turn.
func TestRMAExclusiveLockNotStarved(t *testing.T) {
	errNotDirect := errors.New("the window is not on the same-host path")
	err := Run(2, func(c *Comm) error {
		w, err := WinAllocate[int64](c, 1)
		if err != nil {
			return err
		}
		if !w.w.direct {
			return errNotDirect
		}
		h := w.w.hdrs[0]
		if c.Rank() == 1 {
			if err := w.Lock(LockShared, 0); err != nil {
				return err
			}
			if err := c.Barrier(); err != nil { // rank 0: rank 1 holds it
				return err
			}
			if err := c.Barrier(); err != nil { // rank 0: an exclusive locker waits
				return err
			}
			if err := w.Unlock(0); err != nil {
				return err
			}
		} else {
			if err := c.Barrier(); err != nil {
				return err
			}
			locked := make(chan error, 1)
			go func() { locked <- w.Lock(LockExclusive, 0) }()
			for deadline := time.Now().Add(time.Minute); atomic.LoadUint32(&h.lock)&lockWant == 0; runtime.Gosched() {
				if time.Now().After(deadline) {
					return fmt.Errorf("the exclusive locker never showed that it waits (lock word %#x)", atomic.LoadUint32(&h.lock))
				}
			}
			if ok, v := h.tryShared(); ok {
				return fmt.Errorf("a shared lock was granted while an exclusive locker waited (lock word %#x)", v)
			}
			if err := c.Barrier(); err != nil {
				return err
			}
			if err := <-locked; err != nil {
				return err
			}
			if ok, v := h.tryShared(); ok {
				return fmt.Errorf("a shared lock was granted under the exclusive one (lock word %#x)", v)
			}
			if err := w.Unlock(0); err != nil {
				return err
			}
			if ok, v := h.tryShared(); !ok {
				return fmt.Errorf("no shared lock once the exclusive one was released (lock word %#x)", v)
			}
			h.unlock(uint8(LockShared))
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		return w.Free()
	})
	if errors.Is(err, errNotDirect) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
}
