//go:build !mpi && !mpich

package gompi_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// winRecorder keeps the one-sided events of rank 0.
type winRecorder struct {
	mu     sync.Mutex
	events []string
}

func (r *winRecorder) Begin(ev gompi.Event) uint64 {
	if ev.Comm == nil || ev.Comm.Rank() != 0 || ev.Routine < gompi.RoutineWinCreate {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	win := "?"
	if ev.Window > 0 {
		win = "w"
	}
	r.events = append(r.events, fmt.Sprintf("%s %s peer=%d bytes=%d epoch=%s", ev.Routine, win, ev.Peer, ev.Bytes, ev.Epoch))
	return 0
}

func (r *winRecorder) End(uint64, gompi.Status, error) {}

// fencedPut allocates a window of 4 int32 per rank and, in a fence epoch,
// puts {1, 2} at the start of the other rank's (2 ranks).
func fencedPut(c *gompi.Comm) (*gompi.Win[int32], error) {
	w, err := gompi.WinAllocate[int32](c, 4)
	if err != nil {
		return nil, err
	}
	if err := w.Fence(); err != nil {
		return nil, err
	}
	if err := w.Put([]int32{1, 2}, 1-c.Rank(), 0); err != nil {
		return nil, err
	}
	return w, w.Fence()
}

// TestTracerSeesWindowCalls: every window call reaches the tracer with the
// window, the target, the bytes and the epoch that gives access.
func TestTracerSeesWindowCalls(t *testing.T) {
	rec := &winRecorder{}
	gompi.SetTracer(rec)
	defer gompi.SetTracer(nil)
	run(t, 2, func(c *gompi.Comm) error {
		w, err := fencedPut(c)
		if err != nil {
			return err
		}
		if err := w.Lock(gompi.LockShared, 1); err != nil {
			return err
		}
		var old int32
		if err := w.FetchAndOp(1, &old, 1, 0, gompi.Sum[int32]()); err != nil {
			return err
		}
		if err := w.Unlock(1); err != nil {
			return err
		}
		if err := w.Put(nil, 1, 0); err == nil {
			return fmt.Errorf("a Put outside any epoch succeeded")
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		return w.Free()
	})
	want := []string{
		"Win_allocate ? peer=-1 bytes=16 epoch=none",
		"Win_fence w peer=-1 bytes=-1 epoch=none",
		"Put w peer=1 bytes=8 epoch=fence",
		"Win_fence w peer=-1 bytes=-1 epoch=fence",
		"Win_lock w peer=1 bytes=-1 epoch=fence",
		"Fetch_and_op w peer=1 bytes=4 epoch=lock",
		"Win_unlock w peer=1 bytes=-1 epoch=lock",
		"Put w peer=1 bytes=0 epoch=none",
		"Win_free w peer=-1 bytes=-1 epoch=none",
	}
	if !slices.Equal(rec.events, want) {
		t.Errorf("rank 0's window events:\n%v\nwant:\n%v", rec.events, want)
	}
	for r := gompi.RoutineWinCreate; r <= gompi.RoutineWinSync; r++ {
		if r.String() == "Routine(?)" {
			t.Errorf("routine %d has no name", r)
		}
	}
}

// TestRMAWithoutDirectPath runs RMA cases with the same-host path off: every
// window then goes by message, allocated and shared ones included (shared
// windows still map each other's memory for SharedQuery).
func TestRMAWithoutDirectPath(t *testing.T) {
	t.Setenv("GOMPI_RMA_SHM", "0")
	for _, name := range []string{"RMAEveryOpEverySync", "RMACounterFetchAndOp", "RMAExclusiveLockIsExclusive"} {
		tc := caseNamed(t, name)
		t.Run(name, func(t *testing.T) { runCase(t, 3, tc.Run) })
	}
}

// TestRMAFenceAfterPSCW: on the same-host path a Post once counted as a
// rank arriving at the next Fence (the PSCW counters lay on the barrier's
// words), so a Fence or Free after PSCW returned early or never. Each rank
// posts to and starts on every rank, itself included, then puts to the
// next rank under two fences.
func TestRMAFenceAfterPSCW(t *testing.T) {
	for _, n := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			runCase(t, n, func(c *gompi.Comm) error {
				w, err := gompi.WinAllocate[int64](c, 1)
				if err != nil {
					return err
				}
				all := make([]int, n)
				for i := range all {
					all[i] = i
				}
				for range 3 {
					if err := w.Post(all); err != nil {
						return err
					}
					if err := w.Start(all); err != nil {
						return err
					}
					if err := w.Complete(); err != nil {
						return err
					}
					if err := w.Wait(); err != nil {
						return err
					}
				}
				me := int64(c.Rank())
				if err := w.Fence(); err != nil {
					return err
				}
				if err := w.Put([]int64{me + 1}, (c.Rank()+1)%n, 0); err != nil {
					return err
				}
				if err := w.Fence(); err != nil {
					return err
				}
				if got, want := w.Local()[0], int64((c.Rank()+n-1)%n+1); got != want {
					return fmt.Errorf("rank %d holds %d after the fence, want %d", me, got, want)
				}
				return w.Free()
			})
		})
	}
}

// TestRMAMinMaxLoc: ranks combine (value, rank) pairs into rank 0's window
// with MinLoc and MaxLoc (MPI_DOUBLE_INT); on equal values the lower index
// wins, as in MPI. On the same-host path and by message.
func TestRMAMinMaxLoc(t *testing.T) {
	type pair = gompi.ValueIndex[float64]
	for _, shm := range []string{"1", "0"} {
		t.Run("GOMPI_RMA_SHM="+shm, func(t *testing.T) {
			t.Setenv("GOMPI_RMA_SHM", shm)
			runCase(t, 4, func(c *gompi.Comm) error {
				w, err := gompi.WinAllocate[pair](c, 2)
				if err != nil {
					return err
				}
				me := c.Rank()
				if me == 0 {
					w.Local()[0], w.Local()[1] = pair{Value: math.Inf(1), Index: -1}, pair{Value: math.Inf(-1), Index: -1}
				}
				if err := w.Fence(); err != nil {
					return err
				}
				mine := []pair{{Value: float64(me % 2), Index: me}} // 0, 1, 0, 1
				if err := w.Accumulate(mine, 0, 0, gompi.MinLoc[float64]()); err != nil {
					return err
				}
				if err := w.Accumulate(mine, 0, 1, gompi.MaxLoc[float64]()); err != nil {
					return err
				}
				if err := w.Fence(); err != nil {
					return err
				}
				if me == 0 {
					if got, want := w.Local(), []pair{{Value: 0, Index: 0}, {Value: 1, Index: 1}}; !slices.Equal(got, want) {
						return fmt.Errorf("after MinLoc and MaxLoc: %v, want %v", got, want)
					}
				}
				if err := c.Barrier(); err != nil { // rank 0 has looked
					return err
				}
				// FetchAndOp returns the pair as it was: every rank sees a
				// value above its own -10-me, or the one of a rank before.
				if err := w.Lock(gompi.LockShared, 0); err != nil {
					return err
				}
				var old pair
				if err := w.FetchAndOp(pair{Value: -10, Index: 100 + me}, &old, 0, 0, gompi.MinLoc[float64]()); err != nil {
					return err
				}
				if err := w.Unlock(0); err != nil {
					return err
				}
				if old.Value != 0 && old.Value != -10 {
					return fmt.Errorf("FetchAndOp returned %v", old)
				}
				if err := c.Barrier(); err != nil {
					return err
				}
				if err := w.Sync(); err != nil {
					return err
				}
				if me == 0 {
					if got, want := w.Local()[0], (pair{Value: -10, Index: 100}); got != want {
						return fmt.Errorf("after FetchAndOp with MinLoc: %v, want %v", got, want)
					}
				}
				return w.Free()
			})
		})
	}
}

// TestRMAFastPathRefusesFreedWindow: the operations' untraced same-host
// path checks only the target's gate, so Free must close it. A window freed
// after a fence epoch (whose gate bit stays set until the next Fence) then
// refuses every operation with ErrWin and writes nothing.
func TestRMAFastPathRefusesFreedWindow(t *testing.T) {
	run(t, 2, func(c *gompi.Comm) error {
		w, err := gompi.WinAllocate[int64](c, 4)
		if err != nil {
			return err
		}
		if err := w.Fence(); err != nil {
			return err
		}
		other := 1 - c.Rank()
		if err := w.Put([]int64{7}, other, 0); err != nil { // the fast path is open
			return err
		}
		if err := w.Accumulate([]int64{1}, other, 1, gompi.Sum[int64]()); err != nil { // and knows Sum
			return err
		}
		if err := w.Free(); err != nil {
			return err
		}
		var old int64
		calls := []struct {
			what string
			do   func() error
		}{
			{"Put of one element", func() error { return w.Put([]int64{1}, other, 1) }},
			{"Put of two elements", func() error { return w.Put([]int64{1, 2}, other, 1) }},
			{"Get", func() error { return w.Get(make([]int64, 1), other, 1) }},
			{"FetchAndOp", func() error { return w.FetchAndOp(1, &old, other, 1, gompi.Sum[int64]()) }},
			{"Accumulate", func() error { return w.Accumulate([]int64{1}, other, 1, gompi.Sum[int64]()) }},
			{"GetAccumulate", func() error {
				return w.GetAccumulate([]int64{1}, make([]int64, 1), other, 1, gompi.Sum[int64]())
			}},
			{"CompareAndSwap", func() error { return w.CompareAndSwap(1, 0, &old, other, 1) }},
			{"Flush", func() error { return w.Flush(other) }},
		}
		for _, call := range calls {
			if err := call.do(); !errors.Is(err, gompi.ErrWin) {
				return fmt.Errorf("%s on a freed window: %v, want ErrWin", call.what, err)
			}
		}
		var nilWin *gompi.Win[int64]
		if err := nilWin.Put([]int64{1}, 0, 0); !errors.Is(err, gompi.ErrWin) {
			return fmt.Errorf("Put on a nil window: %v, want ErrWin", err)
		}
		if err := nilWin.Flush(0); !errors.Is(err, gompi.ErrWin) {
			return fmt.Errorf("Flush on a nil window: %v, want ErrWin", err)
		}
		return nil
	})
}

// TestRMAArenaChunksReused: windows on the same-host path take chunks of
// their ranks' arenas, and Free gives them back for the next window. Each
// new window must start zeroed (its PSCW counters included, or Start
// would not wait for the Post), on the whole communicator and on a part of
// it (whose ranks map fewer arenas), and a window larger than an arena
// gets a memory file of its own.
func TestRMAArenaChunksReused(t *testing.T) {
	run(t, 3, func(c *gompi.Comm) error {
		me, n := c.Rank(), c.Size()
		half, err := c.Split(me%2, me)
		if err != nil {
			return err
		}
		for i := range 30 {
			comm := c
			if i%3 == 2 {
				comm = half // windows of a part of c between those of c
			}
			if err := arenaRound(comm, i); err != nil {
				return fmt.Errorf("round %d on %d ranks: %w", i, comm.Size(), err)
			}
		}
		// Larger than an arena (64 MiB): a file of its own.
		big, err := gompi.WinAllocate[byte](c, 64<<20+1)
		if err != nil {
			return err
		}
		last := 64 << 20
		if err := big.Fence(); err != nil {
			return err
		}
		if err := big.Put([]byte{byte(me + 1)}, (me+1)%n, last); err != nil {
			return err
		}
		if err := big.Fence(); err != nil {
			return err
		}
		if got, want := big.Local()[last], byte((me+n-1)%n+1); got != want {
			return fmt.Errorf("last byte of the large window: %d, want %d", got, want)
		}
		if err := big.Free(); err != nil {
			return err
		}
		return half.Free()
	})
}

// arenaRound makes a window on c, checks that it starts zeroed, runs a
// PSCW epoch from every rank to the next (the Put must be there after
// Wait), dirties the window and frees it.
func arenaRound(c *gompi.Comm, round int) error {
	me, n := c.Rank(), c.Size()
	w, err := gompi.WinAllocate[int64](c, 8)
	if err != nil {
		return err
	}
	for i, v := range w.Local() {
		if v != 0 {
			return fmt.Errorf("element %d of a new window is %d", i, v)
		}
	}
	if n > 1 {
		next, prev := (me+1)%n, (me+n-1)%n
		if err := w.Post([]int{prev}); err != nil {
			return err
		}
		if err := w.Start([]int{next}); err != nil {
			return err
		}
		if err := w.Put([]int64{int64(round + 1)}, next, 0); err != nil {
			return err
		}
		if err := w.Complete(); err != nil {
			return err
		}
		if err := w.Wait(); err != nil {
			return err
		}
		if got := w.Local()[0]; got != int64(round+1) {
			return fmt.Errorf("after Wait, element 0 is %d, want %d", got, round+1)
		}
	}
	for i := range w.Local() {
		w.Local()[i] = -1
	}
	return w.Free()
}

// TestRMAAccumulateOperatorChanges: the untraced same-host path of
// Accumulate and GetAccumulate reuses the operator of the last call; one
// that changes from call to call must still be applied as given.
func TestRMAAccumulateOperatorChanges(t *testing.T) {
	run(t, 2, func(c *gompi.Comm) error {
		w, err := gompi.WinAllocate[int32](c, 2)
		if err != nil {
			return err
		}
		if c.Rank() == 0 {
			if err := w.Lock(gompi.LockExclusive, 1); err != nil {
				return err
			}
			steps := []struct {
				op   gompi.Op[int32]
				v    int32
				want int32 // element 0 afterwards
			}{
				{gompi.Sum[int32](), 5, 5},
				{gompi.Max[int32](), 3, 5},
				{gompi.Max[int32](), 9, 9},
				{gompi.Sum[int32](), 1, 10},
				{gompi.Replace[int32](), 2, 2},
				{gompi.Prod[int32](), 4, 8},
			}
			for i, st := range steps {
				if i%2 == 0 {
					err = w.Accumulate([]int32{st.v, st.v}, 1, 0, st.op)
				} else {
					err = w.GetAccumulate([]int32{st.v, st.v}, make([]int32, 2), 1, 0, st.op)
				}
				if err != nil {
					return err
				}
				got := make([]int32, 2)
				if err := w.Get(got, 1, 0); err != nil {
					return err
				}
				if err := w.Flush(1); err != nil {
					return err
				}
				if got[0] != st.want || got[1] != st.want {
					return fmt.Errorf("step %d: %v, want both %d", i, got, st.want)
				}
			}
			if err := w.Unlock(1); err != nil {
				return err
			}
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		return w.Free()
	})
}
