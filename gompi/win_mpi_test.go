//go:build mpi || mpich

package gompi

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// Under the MPI backend windows are MPI windows. These tests run as a
// one-rank MPI job (go test -tags mpi ./gompi); the conformance suite runs
// them on many ranks under mpirun (test/conformance).

// TestMPIWindowKinds: allocated and shared windows are MPI windows; on one
// rank under Open MPI, a created one takes gompi's message path (Open MPI
// cannot make it there: see natFallback), and works all the same.
func TestMPIWindowKinds(t *testing.T) {
	c := World()
	a, err := WinAllocate[int64](c, 4)
	if err != nil {
		t.Fatal(err)
	}
	s, err := WinAllocateShared[int64](c, 4)
	if err != nil {
		t.Fatal(err)
	}
	cr, err := WinCreate(c, make([]int64, 4))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		name   string
		w      *Win[int64]
		native bool
	}{{"allocate", a, true}, {"shared", s, true}, {"create", cr, false}} {
		if got := x.w.w.nat != nil; x.native && !got {
			t.Errorf("%s window is not an MPI window", x.name)
		}
		err := errors.Join(x.w.Lock(LockExclusive, 0), x.w.Put([]int64{4, 5}, 0, 1), x.w.Flush(0))
		got := make([]int64, 2)
		err = errors.Join(err, x.w.Get(got, 0, 1), x.w.Unlock(0))
		if err != nil || got[0] != 4 || got[1] != 5 {
			t.Errorf("%s window: Put then Get gave %v, %v", x.name, got, err)
		}
		if err := x.w.Free(); err != nil {
			t.Errorf("%s window: Free: %v", x.name, err)
		}
	}
}

// TestMPIWindowOps runs every operation on an allocated window against
// this rank itself, under a lock and between fences, and checks memory and
// results.
func TestMPIWindowOps(t *testing.T) {
	c := World()
	w, err := WinAllocate[int64](c, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Free()
	local := w.Local()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Lock(LockExclusive, 0))
	must(w.Put([]int64{1, 2, 3}, 0, 0))
	must(w.Accumulate([]int64{10, 10}, 0, 1, Sum[int64]()))
	must(w.Flush(0))
	got := make([]int64, 3)
	must(w.Get(got, 0, 0))
	var old, cas int64
	must(w.FetchAndOp(5, &old, 0, 0, Sum[int64]()))
	must(w.CompareAndSwap(99, 13, &cas, 0, 2))
	prev := make([]int64, 2)
	must(w.GetAccumulate([]int64{1, 1}, prev, 0, 3, Replace[int64]()))
	r, err := w.Rput([]int64{7}, 0, 5)
	must(err)
	_, err = r.Wait()
	must(err)
	back := make([]int64, 1)
	r, err = w.Rget(back, 0, 5)
	must(err)
	_, err = r.Wait()
	must(err)
	must(w.Unlock(0))
	if want := []int64{1, 12, 13}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("Get after Put and Accumulate: %v, want %v", got, want)
	}
	if old != 1 || cas != 13 || prev[0] != 0 || prev[1] != 0 || back[0] != 7 {
		t.Errorf("FetchAndOp %d (want 1), CompareAndSwap %d (want 13), GetAccumulate %v (want [0 0]), Rget %d (want 7)",
			old, cas, prev, back[0])
	}
	if want := []int64{6, 12, 99, 1, 1, 7, 0, 0}; !slices.Equal(local, want) {
		t.Errorf("window %v, want %v", local, want)
	}
	must(w.Fence())
	must(w.Put([]int64{-1}, 0, 7))
	must(w.Fence())
	if local[7] != -1 {
		t.Errorf("Put between fences stored %d, want -1", local[7])
	}
}

// TestMPIWindowRefusals: what MPI does not define is refused before MPI
// sees it, and writes nothing: MinLoc on gompi's pairs (no MPI pair type
// has their layout), logical operators on floats.
func TestMPIWindowRefusals(t *testing.T) {
	c := World()
	pw, err := WinAllocate[ValueIndex[float64]](c, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Free()
	fw, err := WinAllocate[float64](c, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Free()
	if err := pw.Fence(); err != nil {
		t.Fatal(err)
	}
	if err := fw.Fence(); err != nil {
		t.Fatal(err)
	}
	if err := pw.Accumulate([]ValueIndex[float64]{{Value: -1, Index: 3}}, 0, 0, MinLoc[float64]()); !errors.Is(err, ErrRMAOp) {
		t.Errorf("MinLoc: %v, want ErrRMAOp", err)
	}
	if err := fw.Accumulate([]float64{math.Pi}, 0, 0, LAnd[float64]()); !errors.Is(err, ErrRMAOp) {
		t.Errorf("LAnd of float64: %v, want ErrRMAOp", err)
	}
	if err := pw.Fence(); err != nil {
		t.Fatal(err)
	}
	if err := fw.Fence(); err != nil {
		t.Fatal(err)
	}
	if got := pw.Local()[0]; got != (ValueIndex[float64]{}) {
		t.Errorf("the pair window holds %v after a refused MinLoc", got)
	}
	if got := fw.Local()[0]; got != 0 {
		t.Errorf("the float window holds %v after a refused LAnd", got)
	}
}

// TestMPIWindowTraced: window calls pass the tracer under MPI too.
func TestMPIWindowTraced(t *testing.T) {
	c := World()
	w, err := WinAllocate[int64](c, 1)
	if err != nil {
		t.Fatal(err)
	}
	rec := &winEvents{}
	SetTracer(rec)
	err = errors.Join(w.Lock(LockShared, 0), w.Put([]int64{1}, 0, 0), w.Unlock(0))
	SetTracer(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Routine{RoutineWinLock, RoutineWinPut, RoutineWinUnlock}
	if len(rec.evs) != len(want) {
		t.Fatalf("the tracer saw %d calls, want %d", len(rec.evs), len(want))
	}
	for i, ev := range rec.evs {
		if ev.Routine != want[i] || ev.Window != w.ID() || ev.Peer != 0 {
			t.Errorf("event %d: routine %v window %d peer %d, want %v, %d, 0", i, ev.Routine, ev.Window, ev.Peer, want[i], w.ID())
		}
	}
	if rec.evs[1].Epoch != EpochLock || rec.evs[1].Bytes != 8 {
		t.Errorf("Put: epoch %v, %d bytes; want lock, 8", rec.evs[1].Epoch, rec.evs[1].Bytes)
	}
	if err := w.Free(); err != nil {
		t.Fatal(err)
	}
}

type winEvents struct{ evs []Event }

func (r *winEvents) Begin(ev Event) uint64 {
	if ev.Routine >= RoutineWinCreate {
		r.evs = append(r.evs, ev)
	}
	return 0
}

func (r *winEvents) End(uint64, Status, error) {}

// The per-call cost over MPI windows, on one rank against itself:
// compare with benches/ref/osu_rma.c (docs/PERFORMANCE.md).
//
//	go test -tags mpi -run '^$' -bench MPIWin ./gompi
func benchMPIWin(b *testing.B, op func(w *Win[int64], buf []int64) error) {
	w, err := WinAllocate[int64](World(), 8)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Free()
	if err := w.Lock(LockShared, 0); err != nil {
		b.Fatal(err)
	}
	buf := make([]int64, 1)
	for b.Loop() {
		if err := op(w, buf); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Unlock(0); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkMPIWinPutFlush(b *testing.B) {
	benchMPIWin(b, func(w *Win[int64], buf []int64) error {
		if err := w.Put(buf, 0, 0); err != nil {
			return err
		}
		return w.Flush(0)
	})
}

func BenchmarkMPIWinFetchAndOpFlush(b *testing.B) {
	sum := Sum[int64]()
	benchMPIWin(b, func(w *Win[int64], buf []int64) error {
		if err := w.FetchAndOp(1, &buf[0], 0, 0, sum); err != nil {
			return err
		}
		return w.Flush(0)
	})
}
