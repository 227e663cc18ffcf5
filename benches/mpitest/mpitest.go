// Package mpitest is the basic-operations test of the MSU suite (the
// original's mpitest; spec/msu-suite.md, section 3): the time of one timer
// read (DT), of a Barrier (DB), and of each of fourteen constructs, each
// timed as Barrier; t1; the construct; Barrier; t2 and corrected to
// t = t2 - t1 - DT - DB.
package mpitest

import (
	"github.com/gompi/gompi/benches/internal/msu"
	"github.com/gompi/gompi/gompi"
	"github.com/gompi/gompi/internal/stats"
)

// Correct is the spec's correction: the time of a construct timed as
// Barrier; t1; construct; Barrier; t2, less a timer read (DT) and the
// closing Barrier (DB).
func Correct(t1, t2, dt, db float64) float64 { return t2 - t1 - dt - db }

// A Row is one line of the output: a construct and its name as the
// original prints it.
type Row struct {
	Name string
	// prepare readies the construct for the calling rank, with everything
	// that is not to be timed (persistent requests) done here; partner is
	// the other rank of the calling rank's pair, or -1 when it has none.
	prepare func(c msu.Comm, partner int) (construct func() error, err error)
}

// Pairs: the point-to-point rows run between ranks 2k and 2k+1, all pairs
// at once; with an odd number of ranks the last one only joins the
// Barriers. The even rank of a pair is the sender of one-way rows.
func partner(rank, size int) int {
	if p := rank ^ 1; p < size {
		return p
	}
	return -1
}

// The names of the first two rows, measured apart from the constructs.
const (
	TimingName  = "Timing"
	BarrierName = "Barrier"
)

// Rows are the constructs after Timing and Barrier, in the original's order
// (its table puts IPROBE after the non-blocking send; its sample output has
// no line for it, so the name here is ours).
var Rows = []Row{
	{"Global sum (Allreduce)", allreduce(1)},
	{"10 global sums (Allreduce)", allreduce(10)},
	{"Global sum (Reduce)", reduce(1)},
	{"10 Global sums (Reduce)", reduce(10)},
	{"Broadcast", func(c msu.Comm, _ int) (func() error, error) {
		buf := make([]byte, 4)
		return func() error { return c.Bcast(buf, 0) }, nil
	}},
	{"Gather", func(c msu.Comm, _ int) (func() error, error) {
		send, recv := make([]byte, 4), make([]byte, 4*c.Size())
		return func() error { return c.Gather(send, recv, 0) }, nil
	}},
	{"Non-blocking vector send with wait", oneWay(40, func(c msu.Comm, buf []byte, to int) error {
		r, err := c.Isend(buf, to, tagIsend)
		if err != nil {
			return err
		}
		return c.Wait(r)
	}, tagIsend)},
	{"Iprobe", func(c msu.Comm, _ int) (func() error, error) {
		return func() error {
			_, err := c.Iprobe(gompi.AnySource, tagIprobe)
			return err
		}, nil
	}},
	{"Blocking vector send", oneWay(40, func(c msu.Comm, buf []byte, to int) error {
		return c.Send(buf, to, tagSend)
	}, tagSend)},
	{"SendRecv", func(c msu.Comm, p int) (func() error, error) {
		s, r := make([]byte, 4), make([]byte, 4)
		return paired(p, func() error { return c.Sendrecv(s, p, tagSendrecv, r, p, tagSendrecv) }), nil
	}},
	{"Send and receive", roundTrip(4, tagRoundTrip)},
	{"5 sends in one", fiveInOne},
	{"5 sends", fiveSends},
	{"signal sending", roundTrip(0, tagSignal)},
}

// One tag per row, so that no message of one row could match another's.
const (
	tagIsend = iota + 1
	tagIprobe
	tagSend
	tagSendrecv
	tagRoundTrip
	tagFiveInOne
	tagFive
	tagSignal
)

func allreduce(n int) func(c msu.Comm, _ int) (func() error, error) {
	return func(c msu.Comm, _ int) (func() error, error) {
		send, recv := make([]int32, n), make([]int32, n)
		return func() error { return c.AllreduceSum(send, recv) }, nil
	}
}

func reduce(n int) func(c msu.Comm, _ int) (func() error, error) {
	return func(c msu.Comm, _ int) (func() error, error) {
		send, recv := make([]int32, n), make([]int32, n)
		return func() error { return c.ReduceSum(send, recv, 0) }, nil
	}
}

// paired returns f for a rank with a partner and a no-op for the odd one out.
func paired(p int, f func() error) func() error {
	if p < 0 {
		return func() error { return nil }
	}
	return f
}

// oneWay is a row where the even rank of a pair sends size bytes with send
// and the odd one receives them with Recv.
func oneWay(size int, send func(c msu.Comm, buf []byte, to int) error, tag int) func(c msu.Comm, p int) (func() error, error) {
	return func(c msu.Comm, p int) (func() error, error) {
		buf := make([]byte, size)
		if c.Rank()%2 == 0 {
			return paired(p, func() error { return send(c, buf, p) }), nil
		}
		return paired(p, func() error { return c.Recv(buf, p, tag) }), nil
	}
}

// roundTrip is a row where the even rank of a pair sends size bytes and
// receives them back; the odd rank receives and sends back.
func roundTrip(size, tag int) func(c msu.Comm, p int) (func() error, error) {
	return func(c msu.Comm, p int) (func() error, error) {
		buf := make([]byte, size)
		first, second := func() error { return c.Send(buf, p, tag) }, func() error { return c.Recv(buf, p, tag) }
		if c.Rank()%2 == 1 {
			first, second = second, first
		}
		return paired(p, func() error {
			if err := first(); err != nil {
				return err
			}
			return second()
		}), nil
	}
}

// fiveInOne: five persistent sends of one integer made beforehand, started
// with one Startall and completed with Waitall; the partner receives them
// the same way.
func fiveInOne(c msu.Comm, p int) (func() error, error) {
	if p < 0 {
		return paired(p, nil), nil
	}
	reqs := make([]msu.Request, 5)
	for k := range reqs {
		buf := make([]byte, 4)
		var err error
		if c.Rank()%2 == 0 {
			reqs[k], err = c.SendInit(buf, p, tagFiveInOne)
		} else {
			reqs[k], err = c.RecvInit(buf, p, tagFiveInOne)
		}
		if err != nil {
			return nil, err
		}
	}
	return func() error {
		if err := c.Startall(reqs); err != nil {
			return err
		}
		return c.Waitall(reqs)
	}, nil
}

// fiveSends: five nonblocking sends of one integer, then Waitall; the
// partner posts five Irecvs and waits for them the same way.
func fiveSends(c msu.Comm, p int) (func() error, error) {
	bufs := make([][]byte, 5)
	for k := range bufs {
		bufs[k] = make([]byte, 4)
	}
	reqs := make([]msu.Request, 5)
	return paired(p, func() (err error) {
		for k, buf := range bufs {
			if c.Rank()%2 == 0 {
				reqs[k], err = c.Isend(buf, p, tagFive)
			} else {
				reqs[k], err = c.Irecv(buf, p, tagFive)
			}
			if err != nil {
				return err
			}
		}
		return c.Waitall(reqs)
	}), nil
}

// Config says how often Run repeats.
type Config struct {
	Reps     int // timed runs of the Barrier and of every construct, T
	FastReps int // timer reads for DT, t
}

// A Result is one row: rank 0's times of every run in seconds, corrected
// (for Timing, the timer reads; for Barrier, DB of each run), and the
// uncorrected t2 - t1.
type Result struct {
	Name       string
	Times, Raw []float64
}

// Median is the row's figure, the median run.
func (r Result) Median() float64 { return stats.Median(r.Times) }

// Run measures DT, DB and every row; it needs two ranks or more. progress,
// if not nil, is told which row starts.
func Run(c msu.Comm, cfg Config, progress func(name string)) ([]Result, error) {
	if err := msu.CheckRanks("mpitest", c.Size(), 2, -1); err != nil {
		return nil, err
	}
	if cfg.Reps < 1 || cfg.FastReps < 1 {
		return nil, nil
	}
	if progress == nil {
		progress = func(string) {}
	}
	// DT = t2 - t1 of two timer reads in a row.
	progress(TimingName)
	timing := Result{Name: TimingName, Times: make([]float64, cfg.FastReps)}
	for k := range timing.Times {
		t1 := gompi.Wtime()
		t2 := gompi.Wtime()
		timing.Times[k] = t2 - t1
	}
	timing.Raw = timing.Times
	dt := timing.Median()
	// DB = t2 - t1 - DT of a Barrier after a Barrier.
	progress(BarrierName)
	barrier := Result{Name: BarrierName}
	for k := range cfg.Reps + 1 {
		if err := c.Barrier(); err != nil {
			return nil, err
		}
		t1 := gompi.Wtime()
		if err := c.Barrier(); err != nil {
			return nil, err
		}
		t2 := gompi.Wtime()
		if k > 0 {
			barrier.Times = append(barrier.Times, Correct(t1, t2, dt, 0))
			barrier.Raw = append(barrier.Raw, t2-t1)
		}
	}
	db := barrier.Median()
	out := []Result{timing, barrier}
	p := partner(c.Rank(), c.Size())
	for _, row := range Rows {
		progress(row.Name)
		construct, err := row.prepare(c, p)
		if err != nil {
			return out, err
		}
		res := Result{Name: row.Name}
		for k := range cfg.Reps + 1 {
			if err := c.Barrier(); err != nil {
				return out, err
			}
			t1 := gompi.Wtime()
			if err := construct(); err != nil {
				return out, err
			}
			if err := c.Barrier(); err != nil {
				return out, err
			}
			t2 := gompi.Wtime()
			if k > 0 {
				res.Times = append(res.Times, Correct(t1, t2, dt, db))
				res.Raw = append(res.Raw, t2-t1)
			}
		}
		out = append(out, res)
	}
	return out, nil
}
