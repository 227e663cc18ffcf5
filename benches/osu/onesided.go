package osu

import (
	"fmt"
	"slices"

	"github.com/gompi/gompi/gompi"
)

// The one-sided tests, as OSU's osu_put_latency, osu_get_bw, ... (and
// win_create, the time to make a window, which OSU does not have): rank 0
// is the origin and rank 1 the target (both, for put_bibw), on exactly 2
// ranks; win_create runs on any number. benches/ref/osu_rma.c runs the
// same loops over MPI.

// OneSidedOps lists them.
var OneSidedOps = []string{"put_latency", "get_latency", "put_bw", "get_bw", "put_bibw", "acc_latency",
	"get_acc_latency", "fop_latency", "cas_latency", "win_create"}

// WinKinds and SyncKinds are OSU's -w and -s choices.
var (
	WinKinds  = []string{"create", "allocate", "dynamic"}
	SyncKinds = []string{"lock", "flush", "flush_local", "lock_all", "fence", "pscw"}
)

// IsOneSided reports whether op is one of OneSidedOps.
func IsOneSided(op string) bool { return slices.Contains(OneSidedOps, op) }

// OneSided is one run's parameters.
type OneSided struct {
	Op          string
	Win         string // create, allocate, dynamic
	Sync        string // lock, flush, flush_local, lock_all, fence, pscw
	Sizes       []int  // bytes
	Iters, Skip int
	ItersLarge  int
	SkipLarge   int
	LargeSize   int
	WindowSize  int // operations per synchronization in the bandwidth tests (OSU: 64)
}

// OneSidedDefaults are OSU 7.4's.
func OneSidedDefaults() OneSided {
	return OneSided{Op: "put_latency", Win: "allocate", Sync: "flush", Iters: 10000, Skip: 100, ItersLarge: 1000,
		SkipLarge: 10, LargeSize: 8192, WindowSize: 64}
}

// RMAPoint is one measured size: Value in Unit (µs per operation for the
// latencies and win_create, MB/s for the bandwidths).
type RMAPoint struct {
	Op, Win, Sync string
	N, Size       int
	Value         float64
	Unit          string
	Iters         int
}

// RunOneSided measures cfg.Op at every size on c; rank 0 gets the points.
func RunOneSided(c *gompi.Comm, cfg OneSided, emit func(RMAPoint) error) error {
	if !IsOneSided(cfg.Op) {
		return fmt.Errorf("--op %q: not one of %v", cfg.Op, OneSidedOps)
	}
	if !slices.Contains(WinKinds, cfg.Win) {
		return fmt.Errorf("-w %q: not one of %v", cfg.Win, WinKinds)
	}
	if !slices.Contains(SyncKinds, cfg.Sync) {
		return fmt.Errorf("-s %q: not one of %v", cfg.Sync, SyncKinds)
	}
	if c.Size() != 2 && cfg.Op != "win_create" {
		return fmt.Errorf("%s runs on exactly 2 ranks (as OSU's), not %d", cfg.Op, c.Size())
	}
	if cfg.Op == "put_bibw" && cfg.Sync != "fence" && cfg.Sync != "pscw" {
		return fmt.Errorf("put_bibw runs with -s fence or pscw (as OSU)")
	}
	sizes := cfg.Sizes
	switch cfg.Op {
	case "fop_latency", "cas_latency":
		sizes = []int{8}
	}
	for _, size := range sizes {
		iters, skip := cfg.Iters, cfg.Skip
		if size > cfg.LargeSize {
			iters, skip = cfg.ItersLarge, cfg.SkipLarge
		}
		var v float64
		var err error
		unit := "us"
		switch cfg.Op {
		case "win_create":
			v, err = winCreate(c, cfg.Win, size, iters, skip)
		case "put_bw", "get_bw", "put_bibw":
			unit = "MB/s"
			v, err = bandwidth(c, cfg, size, iters, skip)
		case "acc_latency", "get_acc_latency":
			v, err = latency(c, cfg, max(size/4, 1), iters, skip, accOp[int32](cfg.Op))
		case "fop_latency", "cas_latency":
			v, err = latency(c, cfg, 1, iters, skip, atomicOp(cfg.Op))
		default:
			v, err = latency(c, cfg, size, iters, skip, putGet(cfg.Op))
		}
		if err != nil {
			return fmt.Errorf("%s, %d bytes: %w", cfg.Op, size, err)
		}
		if c.Rank() == 0 {
			if err := emit(RMAPoint{Op: cfg.Op, Win: cfg.Win, Sync: cfg.Sync, N: c.Size(), Size: size, Value: v, Unit: unit, Iters: iters}); err != nil {
				return err
			}
		}
	}
	return nil
}

// window makes a window of n elements per rank of the kind OSU's -w names
// and returns the displacement of the target's first element and a
// function that frees it.
func window[T any](c *gompi.Comm, kind string, n int) (*gompi.Win[T], int, func() error, error) {
	switch kind {
	case "create":
		w, err := gompi.WinCreate(c, make([]T, n))
		return w, 0, func() error { return w.Free() }, err
	case "allocate":
		w, err := gompi.WinAllocate[T](c, n)
		return w, 0, func() error { return w.Free() }, err
	}
	w, err := gompi.WinCreateDynamic[T](c)
	if err != nil {
		return nil, 0, nil, err
	}
	mem := make([]T, n)
	d, err := w.Attach(mem)
	if err != nil {
		return nil, 0, nil, err
	}
	// Rank 1's displacement is the one every origin here uses.
	ds := []int{d}
	if err := gompi.Bcast(c, ds, 1); err != nil {
		return nil, 0, nil, err
	}
	return w, ds[0], func() error {
		if err := w.Detach(mem); err != nil {
			return err
		}
		return w.Free()
	}, nil
}

// winCreate times making a window (of size bytes per rank) on every rank:
// the mean over calls of the slowest rank's time, in µs.
func winCreate(c *gompi.Comm, kind string, size, iters, skip int) (float64, error) {
	var total float64
	for i := range skip + iters {
		if err := c.Barrier(); err != nil {
			return 0, err
		}
		t := gompi.Wtime()
		_, _, free, err := window[byte](c, kind, size)
		el := gompi.Wtime() - t
		if err != nil {
			return 0, err
		}
		if err := free(); err != nil {
			return 0, err
		}
		slowest := []float64{el}
		if err := gompi.Allreduce(c, gompi.InPlace[float64](), slowest, gompi.Max[float64]()); err != nil {
			return 0, err
		}
		if i >= skip {
			total += slowest[0]
		}
	}
	return total * 1e6 / float64(iters), nil
}

// opFunc issues one operation of n elements from origin into target's
// window at disp.
type opFunc[T any] func(w *gompi.Win[T], origin, result []T, target, disp int) error

func putGet(op string) opFunc[byte] {
	if op == "get_latency" {
		return func(w *gompi.Win[byte], _, result []byte, t, d int) error { return w.Get(result, t, d) }
	}
	return func(w *gompi.Win[byte], origin, _ []byte, t, d int) error { return w.Put(origin, t, d) }
}

func accOp[T gompi.Number](op string) opFunc[T] {
	sum := gompi.Sum[T]()
	if op == "get_acc_latency" {
		return func(w *gompi.Win[T], origin, result []T, t, d int) error {
			return w.GetAccumulate(origin, result, t, d, sum)
		}
	}
	return func(w *gompi.Win[T], origin, _ []T, t, d int) error { return w.Accumulate(origin, t, d, sum) }
}

func atomicOp(op string) opFunc[int64] {
	sum := gompi.Sum[int64]()
	if op == "cas_latency" {
		return func(w *gompi.Win[int64], origin, result []int64, t, d int) error {
			return w.CompareAndSwap(origin[0], 0, &result[0], t, d)
		}
	}
	return func(w *gompi.Win[int64], origin, result []int64, t, d int) error {
		return w.FetchAndOp(origin[0], &result[0], t, d, sum)
	}
}

// latency runs OSU's latency loop for one size (n elements) and returns µs
// per operation as rank 0 measured it.
func latency[T any](c *gompi.Comm, cfg OneSided, n, iters, skip int, op opFunc[T]) (float64, error) {
	w, disp, free, err := window[T](c, cfg.Win, n)
	if err != nil {
		return 0, err
	}
	origin, result := make([]T, n), make([]T, n)
	me := c.Rank()
	var el float64
	run := timed(skip, iters, &el)
	if err := c.Barrier(); err != nil {
		return 0, err
	}
	per := float64(iters)
	switch cfg.Sync {
	case "fence", "pscw":
		// Both ranks take turns (OSU's ping-pong of epochs): half the
		// time per round is one operation.
		if me < 2 {
			other := 1 - me
			per = 2 * float64(iters)
			if cfg.Sync == "fence" {
				if err := w.Fence(); err != nil {
					return 0, err
				}
			}
			err = run(func() error {
				return epochPair(w, cfg.Sync, me, func() error { return op(w, origin, result, other, disp) })
			})
		}
	default:
		if me == 0 {
			err = passive(w, cfg.Sync, 1, run, func() error { return op(w, origin, result, 1, disp) })
		}
	}
	if err != nil {
		return 0, err
	}
	if err := c.Barrier(); err != nil {
		return 0, err
	}
	return el * 1e6 / per, free()
}

// timed returns a loop that runs do skip+iters times and stores in *el the
// seconds the last iters took.
func timed(skip, iters int, el *float64) func(do func() error) error {
	return func(do func() error) error {
		var t float64
		for i := range skip + iters {
			if i == skip {
				t = gompi.Wtime()
			}
			if err := do(); err != nil {
				return err
			}
		}
		*el = gompi.Wtime() - t
		return nil
	}
}

// passive runs do in a passive-target loop of kind sync against target.
func passive[T any](w *gompi.Win[T], sync string, target int, run func(func() error) error, do func() error) error {
	switch sync {
	case "lock":
		return run(func() error {
			if err := w.Lock(gompi.LockShared, target); err != nil {
				return err
			}
			if err := do(); err != nil {
				return err
			}
			return w.Unlock(target)
		})
	case "lock_all":
		return run(func() error {
			if err := w.LockAll(); err != nil {
				return err
			}
			if err := do(); err != nil {
				return err
			}
			return w.UnlockAll()
		})
	}
	if err := w.Lock(gompi.LockShared, target); err != nil {
		return err
	}
	err := run(func() error {
		if err := do(); err != nil {
			return err
		}
		if sync == "flush_local" {
			return w.FlushLocal(target)
		}
		return w.Flush(target)
	})
	if uerr := w.Unlock(target); err == nil {
		err = uerr
	}
	return err
}

// epochPair is one round of the active-target latency loop: rank 0 acts in
// the first epoch, rank 1 in the second (under fence, each epoch ends with
// a Fence; the loop starts after one).
func epochPair[T any](w *gompi.Win[T], sync string, me int, do func() error) error {
	other := 1 - me
	for turn := range 2 {
		mine := turn == me
		if sync == "fence" {
			if mine {
				if err := do(); err != nil {
					return err
				}
			}
			if err := w.Fence(); err != nil {
				return err
			}
			continue
		}
		if mine {
			if err := w.Start([]int{other}); err != nil {
				return err
			}
			if err := do(); err != nil {
				return err
			}
			if err := w.Complete(); err != nil {
				return err
			}
		} else {
			if err := w.Post([]int{other}); err != nil {
				return err
			}
			if err := w.Wait(); err != nil {
				return err
			}
		}
	}
	return nil
}

// bandwidth runs OSU's bandwidth loop: WindowSize operations of size bytes
// per synchronization; MB/s as rank 0 measured it (both directions
// together for put_bibw).
func bandwidth(c *gompi.Comm, cfg OneSided, size, iters, skip int) (float64, error) {
	ws := cfg.WindowSize
	w, disp, free, err := window[byte](c, cfg.Win, size*ws)
	if err != nil {
		return 0, err
	}
	buf := make([]byte, size*ws)
	me := c.Rank()
	burst := func(target int) error {
		for j := range ws {
			var err error
			if cfg.Op == "get_bw" {
				err = w.Get(buf[j*size:(j+1)*size], target, disp+j*size)
			} else {
				err = w.Put(buf[j*size:(j+1)*size], target, disp+j*size)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	var el float64
	run := timed(skip, iters, &el)
	if err := c.Barrier(); err != nil {
		return 0, err
	}
	bytes := float64(size * ws * iters)
	switch {
	case cfg.Op == "put_bibw":
		bytes *= 2
		if me < 2 {
			other := 1 - me
			err = run(func() error {
				if cfg.Sync == "fence" {
					if err := w.Fence(); err != nil {
						return err
					}
					if err := burst(other); err != nil {
						return err
					}
					return w.Fence()
				}
				if err := w.Post([]int{other}); err != nil {
					return err
				}
				if err := w.Start([]int{other}); err != nil {
					return err
				}
				if err := burst(other); err != nil {
					return err
				}
				if err := w.Complete(); err != nil {
					return err
				}
				return w.Wait()
			})
		}
	case cfg.Sync == "fence" || cfg.Sync == "pscw":
		if me < 2 {
			err = run(func() error {
				if cfg.Sync == "fence" {
					if err := w.Fence(); err != nil {
						return err
					}
					if me == 0 {
						if err := burst(1); err != nil {
							return err
						}
					}
					return w.Fence()
				}
				if me == 1 {
					if err := w.Post([]int{0}); err != nil {
						return err
					}
					return w.Wait()
				}
				if err := w.Start([]int{1}); err != nil {
					return err
				}
				if err := burst(1); err != nil {
					return err
				}
				return w.Complete()
			})
		}
	default:
		if me == 0 {
			err = passive(w, cfg.Sync, 1, run, func() error { return burst(1) })
		}
	}
	if err != nil {
		return 0, err
	}
	if err := c.Barrier(); err != nil {
		return 0, err
	}
	return bytes / el / 1e6, free()
}
