package mpiperf

import (
	"math"

	"github.com/gompi/gompi/gompi"
)

// LateRow is one line of the late-initialisation table (the seed's table 1):
// the time of the first call of an operation on a fresh communicator and of
// the second call, with a buffer of the same size at another address.
type LateRow struct {
	Op                  string
	Size, Bytes         int
	First, Second       float64 // rank 0's times, seconds
	FirstMax, SecondMax float64 // the largest over ranks
	Skipped             string
}

// Ratio is First/Second, rank 0's (the seed's table).
func (l LateRow) Ratio() float64 { return l.First / l.Second }

// lateInit times the first and second call of every selected operation
// (self tests excepted), each on a communicator of its own made for it, so
// that nothing the communicator sets up on first use is set up already.
func (r *runner) lateInit() error {
	w := r.world
	for _, op := range r.ops {
		if op.Kind == SelfTest {
			continue
		}
		sizes := []int{0}
		if op.Sized {
			sizes = nil
			for _, s := range r.cfg.Sizes {
				sizes = append(sizes, int(s))
			}
		}
		for _, size := range sizes {
			row, err := r.lateOne(w, op, size)
			if err != nil {
				return err
			}
			r.late = append(r.late, row)
		}
	}
	return nil
}

func (r *runner) lateOne(w *gompi.Comm, op Op, size int) (LateRow, error) {
	row := LateRow{Op: op.Name, Size: size, First: math.NaN(), Second: math.NaN(), FirstMax: math.NaN(), SecondMax: math.NaN()}
	d, err := w.Dup()
	if err != nil {
		return row, err
	}
	defer d.Free()
	alg := r.cfg.Algs[0]
	if alg == "all" || op.Kind == SelfTest || op.Kind == PointToPoint {
		alg = ""
	}
	p := point{op: op, alg: alg, size: size}
	var calls [2]call
	for i := range calls {
		e := r.env(d, p, 0)
		e.pool = newPool(Hot, 0) // two pools: the second call's buffers lie elsewhere
		if calls[i], err = setup(op, e); err != nil {
			return row, err
		}
	}
	row.Bytes = calls[0].bytes
	var t [2]float64
	for i, cl := range calls {
		if err := w.Barrier(); err != nil {
			return row, err
		}
		t0 := r.local.Now()
		cerr := cl.run()
		t[i] = r.local.Now() - t0
		skip, err := agree(w, cerr)
		if err != nil {
			return row, err
		}
		if skip != "" {
			row.Skipped = skip
			return row, nil
		}
	}
	mx := make([]float64, 2)
	if err := gompi.Allreduce(w, t[:], mx, gompi.Max[float64]()); err != nil {
		return row, err
	}
	row.First, row.Second, row.FirstMax, row.SecondMax = t[0], t[1], mx[0], mx[1]
	return row, nil
}
