package suite

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/gompi"
)

// One-sided communication (windows).
var rmaCases = []Case{
	{"RMAEveryOpEverySync", []int{1, 2, 3, 4, 5}, rmaEveryOpEverySync},
	{"RMACounterFetchAndOp", []int{2, 3, 4}, func(c *gompi.Comm) error { return rmaCounter(c, true) }},
	{"RMACounterAccumulate", []int{2, 3, 4}, func(c *gompi.Comm) error { return rmaCounter(c, false) }},
	{"RMAExclusiveLockIsExclusive", []int{3, 4}, rmaExclusiveLock},
	{"RMAPassiveTargetWhileComputing", []int{2}, rmaPassiveWhileComputing},
	{"RMARoundTripEveryType", []int{2, 3}, rmaRoundTripEveryType},
	{"RMALargeTransfers", []int{2}, rmaLargeTransfers},
	{"RMASharedQuery", []int{1, 3, 4}, rmaSharedQuery},
	{"RMABadInputs", []int{2, 3}, rmaBadInputs},
}

// rmaCounterAdds is how often each rank adds 1 to the shared counter, on
// every backend (under MPI each add is one MPI_Fetch_and_op or
// MPI_Accumulate).
const rmaCounterAdds = 10000

// winKit is a window of int64 of one flavor with what a case needs to know
// about it: this rank's memory and the displacement of every rank's first
// element (not 0 in a dynamic window).
type winKit struct {
	flavor string
	w      *gompi.Win[int64]
	local  []int64
	base   []int
}

var rmaFlavors = []string{"create", "allocate", "dynamic", "shared"}

// makeWin makes a window of n int64 per rank; (nil, nil) when the flavor
// is not available here (shared memory across hosts).
func makeWin(c *gompi.Comm, flavor string, n int) (*winKit, error) {
	k := &winKit{flavor: flavor, base: make([]int, c.Size())}
	var err error
	switch flavor {
	case "create":
		k.local = make([]int64, n)
		k.w, err = gompi.WinCreate(c, k.local)
	case "allocate":
		k.w, err = gompi.WinAllocate[int64](c, n)
		if err == nil {
			k.local = k.w.Local()
		}
	case "shared":
		k.w, err = gompi.WinAllocateShared[int64](c, n)
		if errors.Is(err, gompi.ErrNotSupported) {
			return nil, nil
		}
		if err == nil {
			k.local = k.w.Local()
		}
	case "dynamic":
		k.w, err = gompi.WinCreateDynamic[int64](c)
		if err != nil {
			return nil, err
		}
		k.local = make([]int64, n)
		d, err := k.w.Attach(k.local)
		if err != nil {
			return nil, err
		}
		if err := gompi.Allgather(c, []int{d}, k.base); err != nil {
			return nil, err
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s window: %w", flavor, err)
	}
	if len(k.local) != n {
		return nil, fmt.Errorf("%s window: Local holds %d elements, want %d", flavor, len(k.local), n)
	}
	return k, nil
}

func (k *winKit) free() error {
	if k.flavor == "dynamic" {
		if err := k.w.Detach(k.local); err != nil {
			return err
		}
	}
	return k.w.Free()
}

// rmaSync is a synchronization mode: open gives this rank access to target
// t (and exposes its window to prev, the rank that targets it), close ends
// both.
type rmaSync struct {
	name    string
	passive bool
	open    func(w *gompi.Win[int64], t, prev int) error
	close   func(w *gompi.Win[int64], t int) error
}

var rmaSyncs = []rmaSync{
	{"fence", false,
		func(w *gompi.Win[int64], t, prev int) error { return w.Fence() },
		func(w *gompi.Win[int64], t int) error { return w.Fence() }},
	{"pscw", false,
		func(w *gompi.Win[int64], t, prev int) error {
			if err := w.Post([]int{prev}); err != nil {
				return err
			}
			return w.Start([]int{t})
		},
		func(w *gompi.Win[int64], t int) error {
			if err := w.Complete(); err != nil {
				return err
			}
			return w.Wait()
		}},
	{"lock-exclusive", true,
		func(w *gompi.Win[int64], t, prev int) error { return w.Lock(gompi.LockExclusive, t) },
		func(w *gompi.Win[int64], t int) error { return w.Unlock(t) }},
	{"lock-shared", true,
		func(w *gompi.Win[int64], t, prev int) error { return w.Lock(gompi.LockShared, t) },
		func(w *gompi.Win[int64], t int) error { return w.Unlock(t) }},
	{"lock-all", true,
		func(w *gompi.Win[int64], t, prev int) error { return w.LockAll() },
		func(w *gompi.Win[int64], t int) error { return w.UnlockAll() }},
	{"flush", true, // a lock-all epoch in which Flush, not the unlock, completes
		func(w *gompi.Win[int64], t, prev int) error { return w.LockAll() },
		func(w *gompi.Win[int64], t int) error {
			if err := w.Flush(t); err != nil {
				return err
			}
			if err := w.FlushLocal(t); err != nil {
				return err
			}
			if err := w.FlushAll(); err != nil {
				return err
			}
			return w.UnlockAll()
		}},
}

const rmaK = 4 // elements per origin in the target's window

// initial is element idx of rank r's window before each operation.
func initial(r, idx int) int64 { return int64(r*1000 + idx + 1) }

// originVal is element i of origin o's data.
func originVal(o, i int) int64 { return int64(o*100 + i + 7) }

// rmaOp issues one operation from origin o to target t at displacement disp
// (the origin's region there) and returns a check of its results at the
// origin (after the epoch closed); expect gives the target's region after it.
type rmaOp struct {
	name    string
	passive bool // request-based: only in passive-target epochs
	issue   func(w *gompi.Win[int64], o, t, disp int) (func() error, error)
	expect  func(t, o, i int) int64
}

func sameAs(got []int64, want func(i int) int64, what string) error {
	for i, g := range got {
		if g != want(i) {
			return fmt.Errorf("%s[%d] = %d, want %d", what, i, g, want(i))
		}
	}
	return nil
}

func vals(o int) []int64 {
	v := make([]int64, rmaK)
	for i := range v {
		v[i] = originVal(o, i)
	}
	return v
}

func waitReq(r *gompi.Request, err error) error {
	if err != nil {
		return err
	}
	_, err = r.Wait()
	return err
}

var rmaOps = []rmaOp{
	{"put", false,
		func(w *gompi.Win[int64], o, t, disp int) (func() error, error) { return nil, w.Put(vals(o), t, disp) },
		func(t, o, i int) int64 { return originVal(o, i) }},
	{"get", false,
		func(w *gompi.Win[int64], o, t, disp int) (func() error, error) {
			res := make([]int64, rmaK)
			return func() error { return sameAs(res, func(i int) int64 { return initial(t, o*rmaK+i) }, "get") }, w.Get(res, t, disp)
		},
		func(t, o, i int) int64 { return initial(t, o*rmaK+i) }},
	{"accumulate-sum", false,
		func(w *gompi.Win[int64], o, t, disp int) (func() error, error) {
			return nil, w.Accumulate(vals(o), t, disp, gompi.Sum[int64]())
		},
		func(t, o, i int) int64 { return initial(t, o*rmaK+i) + originVal(o, i) }},
	{"accumulate-replace", false,
		func(w *gompi.Win[int64], o, t, disp int) (func() error, error) {
			return nil, w.Accumulate(vals(o), t, disp, gompi.Replace[int64]())
		},
		func(t, o, i int) int64 { return originVal(o, i) }},
	{"accumulate-max", false,
		func(w *gompi.Win[int64], o, t, disp int) (func() error, error) {
			return nil, w.Accumulate(vals(o), t, disp, gompi.Max[int64]())
		},
		func(t, o, i int) int64 { return max(initial(t, o*rmaK+i), originVal(o, i)) }},
	{"get_accumulate-sum", false,
		func(w *gompi.Win[int64], o, t, disp int) (func() error, error) {
			res := make([]int64, rmaK)
			return func() error { return sameAs(res, func(i int) int64 { return initial(t, o*rmaK+i) }, "get_accumulate") },
				w.GetAccumulate(vals(o), res, t, disp, gompi.Sum[int64]())
		},
		func(t, o, i int) int64 { return initial(t, o*rmaK+i) + originVal(o, i) }},
	{"get_accumulate-no_op", false,
		func(w *gompi.Win[int64], o, t, disp int) (func() error, error) {
			res := make([]int64, rmaK)
			return func() error { return sameAs(res, func(i int) int64 { return initial(t, o*rmaK+i) }, "get_accumulate") },
				w.GetAccumulate(nil, res, t, disp, gompi.NoOp[int64]())
		},
		func(t, o, i int) int64 { return initial(t, o*rmaK+i) }},
	{"fetch_and_op", false,
		func(w *gompi.Win[int64], o, t, disp int) (func() error, error) {
			var res int64
			return func() error {
					return sameAs([]int64{res}, func(int) int64 { return initial(t, o*rmaK) }, "fetch_and_op")
				},
				w.FetchAndOp(originVal(o, 0), &res, t, disp, gompi.Sum[int64]())
		},
		func(t, o, i int) int64 {
			if i == 0 {
				return initial(t, o*rmaK) + originVal(o, 0)
			}
			return initial(t, o*rmaK+i)
		}},
	{"compare_and_swap", false,
		func(w *gompi.Win[int64], o, t, disp int) (func() error, error) {
			var hit, miss int64
			if err := w.CompareAndSwap(originVal(o, 0), initial(t, o*rmaK), &hit, t, disp); err != nil {
				return nil, err
			}
			return func() error {
				if hit != initial(t, o*rmaK) || miss != initial(t, o*rmaK+1) {
					return fmt.Errorf("compare_and_swap returned %d and %d, want %d and %d", hit, miss, initial(t, o*rmaK), initial(t, o*rmaK+1))
				}
				return nil
			}, w.CompareAndSwap(originVal(o, 1), -1, &miss, t, disp+1)
		},
		func(t, o, i int) int64 {
			if i == 0 {
				return originVal(o, 0)
			}
			return initial(t, o*rmaK+i)
		}},
	{"rput", true,
		func(w *gompi.Win[int64], o, t, disp int) (func() error, error) {
			return nil, waitReq(w.Rput(vals(o), t, disp))
		},
		func(t, o, i int) int64 { return originVal(o, i) }},
	{"rget", true,
		func(w *gompi.Win[int64], o, t, disp int) (func() error, error) {
			res := make([]int64, rmaK)
			if err := waitReq(w.Rget(res, t, disp)); err != nil {
				return nil, err
			}
			return nil, sameAs(res, func(i int) int64 { return initial(t, o*rmaK+i) }, "rget")
		},
		func(t, o, i int) int64 { return initial(t, o*rmaK+i) }},
	{"raccumulate", true,
		func(w *gompi.Win[int64], o, t, disp int) (func() error, error) {
			return nil, waitReq(w.Raccumulate(vals(o), t, disp, gompi.Sum[int64]()))
		},
		func(t, o, i int) int64 { return initial(t, o*rmaK+i) + originVal(o, i) }},
	{"rget_accumulate", true,
		func(w *gompi.Win[int64], o, t, disp int) (func() error, error) {
			res := make([]int64, rmaK)
			if err := waitReq(w.RgetAccumulate(vals(o), res, t, disp, gompi.BXor[int64]())); err != nil {
				return nil, err
			}
			return nil, sameAs(res, func(i int) int64 { return initial(t, o*rmaK+i) }, "rget_accumulate")
		},
		func(t, o, i int) int64 { return initial(t, o*rmaK+i) ^ originVal(o, i) }},
}

// rmaEveryOpEverySync runs every operation under every synchronization mode
// on every flavor of window: each rank targets the next one (itself when
// alone), in its own region of the target's window, and both the origin's
// results and the target's memory are checked against a reference.
func rmaEveryOpEverySync(c *gompi.Comm) error {
	me, n := c.Rank(), c.Size()
	next, prev := (me+1)%n, (me+n-1)%n
	for _, flavor := range rmaFlavors {
		k, err := makeWin(c, flavor, n*rmaK)
		if err != nil {
			return err
		}
		if k == nil {
			continue
		}
		for _, s := range rmaSyncs {
			for _, op := range rmaOps {
				if op.passive && !s.passive {
					continue
				}
				where := fmt.Sprintf("%s window, %s, %s", flavor, s.name, op.name)
				for i := range k.local {
					k.local[i] = initial(me, i)
				}
				// Local stores to window memory are synchronized with
				// Sync (MPI_Win_sync) before others access it, and
				// after, before this rank reads what others stored.
				if err := k.w.Sync(); err != nil {
					return err
				}
				if err := c.Barrier(); err != nil {
					return err
				}
				if err := s.open(k.w, next, prev); err != nil {
					return fmt.Errorf("%s: opening: %w", where, err)
				}
				verify, err := op.issue(k.w, me, next, k.base[next]+me*rmaK)
				if err != nil {
					return fmt.Errorf("%s: %w", where, err)
				}
				if err := s.close(k.w, next); err != nil {
					return fmt.Errorf("%s: closing: %w", where, err)
				}
				if verify != nil {
					if err := verify(); err != nil {
						return fmt.Errorf("%s: at the origin: %w", where, err)
					}
				}
				if err := c.Barrier(); err != nil {
					return err
				}
				if err := k.w.Sync(); err != nil {
					return err
				}
				region := k.local[prev*rmaK : prev*rmaK+rmaK]
				if err := sameAs(region, func(i int) int64 { return op.expect(me, prev, i) }, "target"); err != nil {
					return fmt.Errorf("%s: at the target: %w", where, err)
				}
				// Nothing outside the origin's region changed.
				for i, v := range k.local {
					if (i < prev*rmaK || i >= prev*rmaK+rmaK) && v != initial(me, i) {
						return fmt.Errorf("%s: element %d outside the origin's region changed to %d", where, i, v)
					}
				}
			}
		}
		if err := k.free(); err != nil {
			return fmt.Errorf("%s window: Free: %w", flavor, err)
		}
	}
	return nil
}

// rmaCounter: every rank adds 1 to one counter on rank 0 rmaCounterAdds
// times, with FetchAndOp (the values fetched must all differ) or with
// Accumulate; the counter ends at exactly n × the adds.
func rmaCounter(c *gompi.Comm, fetch bool) error {
	// A created window always goes by message; an allocated one on one
	// host is accessed directly (atomic instructions).
	for _, flavor := range []string{"create", "allocate"} {
		if err := counterOn(c, fetch, flavor); err != nil {
			return fmt.Errorf("%s window: %w", flavor, err)
		}
	}
	return nil
}

func counterOn(c *gompi.Comm, fetch bool, flavor string) error {
	me, n := c.Rank(), c.Size()
	k, err := makeWin(c, flavor, 1)
	if err != nil {
		return err
	}
	w := k.w
	if err := w.LockAll(); err != nil {
		return err
	}
	// FetchAndOp results arrive by the next flush; flushing every 500
	// keeps many in flight, as a real counter would.
	adds, every := rmaCounterAdds, 500
	fetched := make([]int64, adds)
	one := []int64{1}
	for i := range adds {
		var err error
		if fetch {
			err = w.FetchAndOp(1, &fetched[i], 0, 0, gompi.Sum[int64]())
			if err == nil && (i%every == every-1 || i == adds-1) {
				err = w.Flush(0)
			}
		} else {
			err = w.Accumulate(one, 0, 0, gompi.Sum[int64]())
		}
		if err != nil {
			return err
		}
	}
	var sum int64
	for i, v := range fetched {
		// One origin's operations on one element take effect in order.
		if fetch && i > 0 && v <= fetched[i-1] {
			return fmt.Errorf("FetchAndOp %d returned %d after %d: the counter went back", i, v, fetched[i-1])
		}
		sum += v
	}
	if err := w.UnlockAll(); err != nil {
		return err
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	total := int64(n * adds)
	if me == 0 {
		if got := k.local[0]; got != total {
			return fmt.Errorf("the counter is %d, want %d", got, total)
		}
	}
	if fetch {
		// Each value 0..total-1 was fetched exactly once: the sums agree
		// (and each rank's values increase, checked above).
		all := []int64{sum}
		if err := gompi.Allreduce(c, gompi.InPlace[int64](), all, gompi.Sum[int64]()); err != nil {
			return err
		}
		if want := total * (total - 1) / 2; all[0] != want {
			return fmt.Errorf("the fetched values add up to %d, want %d: some were fetched twice", all[0], want)
		}
	}
	return k.free()
}

// rmaExclusiveLock: every rank increments a counter on rank 0 by reading and
// writing it (Get, Flush, Put) under an exclusive lock: no increment may be
// lost.
func rmaExclusiveLock(c *gompi.Comm) error {
	const rounds = 50
	w, err := gompi.WinAllocate[int64](c, 1)
	if err != nil {
		return err
	}
	for range rounds {
		if err := w.Lock(gompi.LockExclusive, 0); err != nil {
			return err
		}
		v := make([]int64, 1)
		if err := w.Get(v, 0, 0); err != nil {
			return err
		}
		if err := w.Flush(0); err != nil {
			return err
		}
		v[0]++
		if err := w.Put(v, 0, 0); err != nil {
			return err
		}
		if err := w.Unlock(0); err != nil {
			return err
		}
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	if c.Rank() == 0 {
		if got, want := w.Local()[0], int64(rounds*c.Size()); got != want {
			return fmt.Errorf("the counter is %d, want %d: an exclusive lock let two ranks in", got, want)
		}
	}
	return w.Free()
}

// rmaPassiveWhileComputing: rank 1 gets from rank 0's window under a lock
// while rank 0 computes without calling gompi; the Get must complete, and
// then rank 1 tells rank 0 to stop by a Put into a flag rank 0 polls.
func rmaPassiveWhileComputing(c *gompi.Comm) error {
	w, err := gompi.WinAllocate[int64](c, 1<<16)
	if err != nil {
		return err
	}
	local := w.Local()
	for i := range local {
		local[i] = initial(c.Rank(), i)
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	switch c.Rank() {
	case 0:
		deadline := time.Now().Add(30 * time.Second)
		x := 0
		flag := &local[0]
		for atomic.LoadInt64(flag) == initial(0, 0) {
			for i := range 1000 {
				x += i * i
			}
			if time.Now().After(deadline) {
				return errors.New("the origin's Get and Put did not complete while the target computed")
			}
		}
		_ = x
	case 1:
		res := make([]int64, 1<<16-1)
		if err := w.Lock(gompi.LockShared, 0); err != nil {
			return err
		}
		if err := w.Get(res, 0, 1); err != nil {
			return err
		}
		if err := w.Unlock(0); err != nil {
			return err
		}
		if err := sameAs(res, func(i int) int64 { return initial(0, i+1) }, "get"); err != nil {
			return err
		}
		if err := w.Lock(gompi.LockExclusive, 0); err != nil {
			return err
		}
		if err := w.Put([]int64{-1}, 0, 0); err != nil {
			return err
		}
		if err := w.Unlock(0); err != nil {
			return err
		}
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	return w.Free()
}

type rmaPoint struct {
	X int32
	Y float64
	Z [3]uint16
}

// rmaRoundTripEveryType puts a vector of every element type into the next
// rank's window and gets it back, checking both against the reference.
func rmaRoundTripEveryType(c *gompi.Comm) error {
	return errors.Join(
		roundTrip(c, func(i int) int8 { return int8(i*7 - 50) }),
		roundTrip(c, func(i int) int16 { return int16(i*1001 - 3000) }),
		roundTrip(c, func(i int) int32 { return int32(i*100003 - 7) }),
		roundTrip(c, func(i int) int64 { return int64(i)*1e12 - 5 }),
		roundTrip(c, func(i int) int { return i*1e9 + 3 }),
		roundTrip(c, func(i int) uint8 { return uint8(i * 13) }),
		roundTrip(c, func(i int) uint16 { return uint16(i * 5003) }),
		roundTrip(c, func(i int) uint32 { return uint32(i) * 2654435761 }),
		roundTrip(c, func(i int) uint64 { return uint64(i) * 0x9e3779b97f4a7c15 }),
		roundTrip(c, func(i int) uint { return uint(i) * 77 }),
		roundTrip(c, func(i int) uintptr { return uintptr(i) * 4096 }),
		roundTrip(c, func(i int) float32 { return float32(i) / 3 }),
		roundTrip(c, func(i int) float64 { return float64(i)/7 - 1e300 }),
		roundTrip(c, func(i int) complex64 { return complex(float32(i), -float32(i)/2) }),
		roundTrip(c, func(i int) complex128 { return complex(float64(i)/9, 1e-300) }),
		roundTrip(c, func(i int) bool { return i%3 == 0 }),
		roundTrip(c, func(i int) rmaPoint { return rmaPoint{int32(i), float64(i) / 11, [3]uint16{uint16(i), 1, 2}} }),
		roundTrip(c, func(i int) [5]byte { return [5]byte{byte(i), 1, 2, 3, byte(i >> 8)} }),
	)
}

func roundTrip[T any](c *gompi.Comm, gen func(i int) T) error {
	const n = 1000 // past the inline bound for every type but the 1-byte ones
	me, size := c.Rank(), c.Size()
	next := (me + 1) % size
	w, err := gompi.WinAllocate[T](c, 2*n)
	if err != nil {
		return err
	}
	ref := make([]T, n)
	for i := range ref {
		ref[i] = gen(i + me)
	}
	back := make([]T, n)
	if err := w.Fence(); err != nil {
		return err
	}
	if err := w.Put(ref, next, n); err != nil {
		return err
	}
	if err := w.Fence(); err != nil {
		return err
	}
	if err := w.Get(back, next, n); err != nil {
		return err
	}
	if err := w.Fence(); err != nil {
		return err
	}
	prev := (me + size - 1) % size
	want := make([]T, n)
	for i := range want {
		want[i] = gen(i + prev)
	}
	var zero T
	what := reflect.TypeOf(zero).String()
	if !reflect.DeepEqual(back, ref) {
		return fmt.Errorf("%s: Get returned other elements than Put stored", what)
	}
	local := w.Local()
	if !reflect.DeepEqual(local[n:], want) || !reflect.DeepEqual(local[:n], make([]T, n)) {
		return fmt.Errorf("%s: the target's window holds other elements than the origin put", what)
	}
	return w.Free()
}

// rmaLargeTransfers moves 4 MiB each way (past every protocol bound) with
// Put, Get and Accumulate under a lock.
func rmaLargeTransfers(c *gompi.Comm) error {
	const n = 1 << 19
	me := c.Rank()
	other := 1 - me
	w, err := gompi.WinAllocate[float64](c, n)
	if err != nil {
		return err
	}
	src := make([]float64, n)
	for i := range src {
		src[i] = float64(i*3 + me)
	}
	if err := w.Lock(gompi.LockExclusive, other); err != nil {
		return err
	}
	if err := w.Put(src, other, 0); err != nil {
		return err
	}
	if err := w.Accumulate(src, other, 0, gompi.Sum[float64]()); err != nil {
		return err
	}
	got := make([]float64, n)
	if err := w.Flush(other); err != nil {
		return err
	}
	if err := w.Get(got, other, 0); err != nil {
		return err
	}
	if err := w.Unlock(other); err != nil {
		return err
	}
	for i, g := range got {
		if g != 2*src[i] {
			return fmt.Errorf("element %d is %v, want %v", i, g, 2*src[i])
		}
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	return w.Free()
}

// rmaSharedQuery: each rank stores into its part of a shared window; after a
// barrier every rank reads every other's part directly.
func rmaSharedQuery(c *gompi.Comm) error {
	me, n := c.Rank(), c.Size()
	w, err := gompi.WinAllocateShared[int32](c, 100+me)
	if errors.Is(err, gompi.ErrNotSupported) {
		return fmt.Errorf("%w: %v", ErrSkip, err)
	}
	if err != nil {
		return err
	}
	local := w.Local()
	for i := range local {
		local[i] = val(me, i)
	}
	if err := w.Sync(); err != nil {
		return err
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	for r := range n {
		part, err := w.SharedQuery(r)
		if err != nil {
			return err
		}
		if len(part) != 100+r {
			return fmt.Errorf("rank %d's part holds %d elements, want %d", r, len(part), 100+r)
		}
		if !slices.Equal(part, vec(r, 100+r)) {
			return fmt.Errorf("rank %d's part holds %v..., want %v...", r, head(part), head(vec(r, 100+r)))
		}
	}
	if _, err := w.SharedQuery(n); !errors.Is(err, gompi.ErrRank) {
		return fmt.Errorf("SharedQuery(%d) returned %v, want ErrRank", n, err)
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	return w.Free()
}

// rmaBadInputs tries every kind of bad call and checks its error class, and
// that no window changed anywhere.
func rmaBadInputs(c *gompi.Comm) error {
	me, n := c.Rank(), c.Size()
	next := (me + 1) % n
	const size = 8
	w, err := gompi.WinAllocate[int64](c, size)
	if err != nil {
		return err
	}
	local := w.Local()
	for i := range local {
		local[i] = initial(me, i)
	}
	dyn, err := gompi.WinCreateDynamic[int64](c)
	if err != nil {
		return err
	}
	attached := make([]int64, size)
	for i := range attached {
		attached[i] = initial(me, i)
	}
	d, err := dyn.Attach(attached)
	if err != nil {
		return err
	}
	disps := make([]int, n)
	if err := gompi.Allgather(c, []int{d}, disps); err != nil {
		return err
	}
	fw, err := gompi.WinCreate(c, []float64{1, 2})
	if err != nil {
		return err
	}
	type point struct{ A, B int32 }
	sw, err := gompi.WinAllocate[point](c, 2)
	if err != nil {
		return err
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	var res int64
	var fres float64
	var pres point
	four := []int64{1, 2, 3, 4}
	outside := []rmaBad{
		{"Put outside any epoch", func() error { return w.Put(four, next, 0) }, gompi.ErrRMASync},
		{"Get outside any epoch", func() error { return w.Get(make([]int64, 1), next, 0) }, gompi.ErrRMASync},
		{"FetchAndOp outside any epoch", func() error { return w.FetchAndOp(1, &res, next, 0, gompi.Sum[int64]()) }, gompi.ErrRMASync},
		{"Unlock without Lock", func() error { return w.Unlock(next) }, gompi.ErrRMASync},
		{"UnlockAll without LockAll", func() error { return w.UnlockAll() }, gompi.ErrRMASync},
		{"Flush without a lock", func() error { return w.Flush(next) }, gompi.ErrRMASync},
		{"FlushAll without a lock", func() error { return w.FlushAll() }, gompi.ErrRMASync},
		{"Complete without Start", func() error { return w.Complete() }, gompi.ErrRMASync},
		{"Wait without Post", func() error { return w.Wait() }, gompi.ErrRMASync},
		{"Test without Post", func() error { _, err := w.Test(); return err }, gompi.ErrRMASync},
		{"Lock of a rank outside the window", func() error { return w.Lock(gompi.LockShared, n) }, gompi.ErrRank},
		{"Lock of an unknown type", func() error { return w.Lock(7, next) }, gompi.ErrArg},
		{"Post to a rank outside the window", func() error { return w.Post([]int{n}) }, gompi.ErrRank},
		{"Attach to a window that is not dynamic", func() error { _, err := w.Attach(four); return err }, gompi.ErrWin},
		{"Detach of memory never attached", func() error { return dyn.Detach(four) }, gompi.ErrArg},
		{"SharedQuery of a window that is not shared", func() error { _, err := w.SharedQuery(0); return err }, gompi.ErrWin},
		{"a nil window", func() error { var nw *gompi.Win[int64]; return nw.Fence() }, gompi.ErrWin},
	}
	inLock := []rmaBad{
		{"Put past the end", func() error { return w.Put(four, next, size-3) }, gompi.ErrRMARange},
		{"Put at a negative displacement", func() error { return w.Put(four, next, -1) }, gompi.ErrRMARange},
		{"Get past the end", func() error { return w.Get(make([]int64, size+1), next, 0) }, gompi.ErrRMARange},
		{"Accumulate past the end", func() error { return w.Accumulate(four, next, size, gompi.Sum[int64]()) }, gompi.ErrRMARange},
		{"GetAccumulate past the end", func() error {
			return w.GetAccumulate(four, make([]int64, 4), next, size-1, gompi.Sum[int64]())
		}, gompi.ErrRMARange},
		{"FetchAndOp past the end", func() error { return w.FetchAndOp(1, &res, next, size, gompi.Sum[int64]()) }, gompi.ErrRMARange},
		{"CompareAndSwap past the end", func() error { return w.CompareAndSwap(1, 1, &res, next, size) }, gompi.ErrRMARange},
		{"Put to a rank outside the window", func() error { return w.Put(four, n, 0) }, gompi.ErrRank},
		{"Lock of a target already locked", func() error { return w.Lock(gompi.LockShared, next) }, gompi.ErrRMASync},
		{"LockAll while a lock is held", func() error { return w.LockAll() }, gompi.ErrRMASync},
		{"Fence while a lock is held", func() error { return w.Fence() }, gompi.ErrRMASync},
		{"Free while a lock is held", func() error { return w.Free() }, gompi.ErrRMASync},
		{"Accumulate with a user-defined operator", func() error {
			return w.Accumulate(four, next, 0, gompi.NewOp("mine", true, func(in, inout []int64) {}))
		}, gompi.ErrRMAOp},
		{"Accumulate with the zero operator", func() error {
			return w.Accumulate(four, next, 0, gompi.Op[int64]{})
		}, gompi.ErrArg},
		{"GetAccumulate with origin and result of different lengths", func() error {
			return w.GetAccumulate(four, make([]int64, 3), next, 0, gompi.Sum[int64]())
		}, gompi.ErrArg},
		{"FetchAndOp with a nil result", func() error { return w.FetchAndOp(1, nil, next, 0, gompi.Sum[int64]()) }, gompi.ErrArg},
		{"Rput to a target locked by Lock, of a rank outside", func() error { _, err := w.Rput(four, n, 0); return err }, gompi.ErrRank},
	}
	if err := checkBad(outside); err != nil {
		return err
	}
	if err := w.Lock(gompi.LockShared, next); err != nil {
		return err
	}
	if err := checkBad(inLock); err != nil {
		return err
	}
	if err := w.Unlock(next); err != nil {
		return err
	}
	// Request-based operations need a passive-target epoch; the other
	// windows refuse operations their element type does not support.
	if err := w.Fence(); err != nil {
		return err
	}
	if err := fw.Fence(); err != nil {
		return err
	}
	if err := sw.Fence(); err != nil {
		return err
	}
	inFence := []rmaBad{
		{"Rput in a fence epoch", func() error { _, err := w.Rput(four, next, 0); return err }, gompi.ErrRMASync},
		{"Rget in a fence epoch", func() error { _, err := w.Rget(four, next, 0); return err }, gompi.ErrRMASync},
		{"Flush in a fence epoch", func() error { return w.Flush(next) }, gompi.ErrRMASync},
		{"CompareAndSwap of float64", func() error { return fw.CompareAndSwap(1, 1, &fres, next, 0) }, gompi.ErrRMAOp},
		{"a user-defined operator on a struct", func() error {
			return sw.FetchAndOp(point{1, 1}, &pres, next, 0, gompi.NewOp("add", true, func(in, inout []point) {}))
		}, gompi.ErrRMAOp},
		{"Put past the end of a struct window", func() error { return sw.Put([]point{{1, 2}}, next, 2) }, gompi.ErrRMARange},
	}
	if err := checkBad(inFence); err != nil {
		return err
	}
	for _, x := range []interface{ Fence() error }{w, fw, sw} {
		if err := x.Fence(); err != nil {
			return err
		}
	}
	// Replace works on any element type, even a struct.
	if err := sw.Fence(); err != nil {
		return err
	}
	if err := sw.Accumulate([]point{{int32(me), 9}}, next, 1, gompi.Replace[point]()); err != nil {
		return fmt.Errorf("Replace of a struct: %w", err)
	}
	if err := sw.Fence(); err != nil {
		return err
	}
	if got, want := sw.Local()[1], (point{int32((me + n - 1) % n), 9}); got != want {
		return fmt.Errorf("Replace of a struct stored %v, want %v", got, want)
	}
	// A dynamic window: outside the attached memory the target refuses, and
	// the call that completes the operation says so.
	if err := dyn.Lock(gompi.LockShared, next); err != nil {
		return err
	}
	if err := dyn.Put(four, next, disps[next]+size-2); err != nil {
		return err
	}
	if err := dyn.Unlock(next); !errors.Is(err, gompi.ErrRMARange) {
		return fmt.Errorf("Unlock after a Put past attached memory returned %v, want ErrRMARange", err)
	}
	if err := dyn.Lock(gompi.LockShared, next); err != nil {
		return err
	}
	if err := dyn.Get(make([]int64, 2), next, disps[next]-1); err != nil {
		return err
	}
	if err := dyn.Flush(next); !errors.Is(err, gompi.ErrRMARange) {
		return fmt.Errorf("Flush after a Get before attached memory returned %v, want ErrRMARange", err)
	}
	if err := dyn.Unlock(next); err != nil {
		return err
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	// Nothing was written anywhere.
	for i := range size {
		if local[i] != initial(me, i) || attached[i] != initial(me, i) {
			return fmt.Errorf("element %d changed (window %d, attached %d) though every call was refused", i, local[i], attached[i])
		}
	}
	if err := dyn.Detach(attached); err != nil {
		return err
	}
	for _, x := range []interface{ Free() error }{w, dyn, fw, sw} {
		if err := x.Free(); err != nil {
			return err
		}
	}
	// A freed window.
	freed := []rmaBad{
		{"Put on a freed window", func() error { return w.Put(four, next, 0) }, gompi.ErrWin},
		{"Fence on a freed window", func() error { return w.Fence() }, gompi.ErrWin},
		{"Free twice", func() error { return w.Free() }, gompi.ErrWin},
	}
	return checkBad(freed)
}

// rmaBad is a call that must fail with an error of class want.
type rmaBad struct {
	what string
	do   func() error
	want error
}

func checkBad(cases []rmaBad) error {
	for _, b := range cases {
		if err := b.do(); !errors.Is(err, b.want) {
			return fmt.Errorf("%s returned %v, want %v", b.what, err, b.want)
		}
	}
	return nil
}
