// Package transfer is the transfer test of the MSU suite (the original's
// transf1 … transf5; spec/msu-suite.md, section 1): two ranks exchange
// messages of L bytes N times in one of five ways, rank 0 times the whole
// run, T, and the bandwidth is R = 2NL/T; at L = 0 the time per message is
// the latency.
package transfer

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/gompi/gompi/benches/internal/msu"
	"github.com/gompi/gompi/gompi"
)

// A Test is one of the five ways of exchanging.
type Test struct {
	Number  int
	Summary string
}

// Name is the original program's name, transf1 … transf5.
func (t Test) Name() string { return fmt.Sprintf("transf%d", t.Number) }

// Tests are the five tests, in order.
var Tests = []Test{
	{1, "uni-directional: blocking Send and Recv, ping-pong"},
	{2, "bi-directional: Sendrecv"},
	{3, "bi-directional: nonblocking Irecv and Isend, then Waitall"},
	{4, "bi-directional: ready mode, Rsend to a receive posted ahead"},
	{5, "bi-directional: persistent requests, Startall and Waitall"},
}

// Bandwidth is the spec's R = 2NL/T in MB/sec: N exchanges of L bytes each
// way took T seconds.
func Bandwidth(L int64, N int, T float64) float64 {
	return 2 * float64(N) * float64(L) / T / msu.MB
}

// PerMessage is the time per message, T/(2N) seconds: the R above is L over
// it, and at L = 0 it is the latency (for test 1 half the round trip).
func PerMessage(N int, T float64) float64 { return T / (2 * float64(N)) }

const tag = 1

// Buffers are a rank's message buffers: one to send from, two to receive
// into (test 4 keeps two receives posted).
type Buffers struct {
	send []byte
	recv [2][]byte
}

// NewBuffers returns buffers for messages of up to size bytes.
func NewBuffers(size int64) *Buffers {
	return &Buffers{send: make([]byte, size), recv: [2][]byte{make([]byte, size), make([]byte, size)}}
}

// Measure makes one timed run of test number test on ranks 0 and 1: a
// Barrier (the synchronisation point after which both start together), then
// iters exchanges of size bytes each way. It returns the calling rank's
// elapsed time by gompi.Wtime; rank 0's is the spec's T.
func Measure(c msu.Comm, test, size, iters int, b *Buffers) (float64, error) {
	if iters < 1 {
		return 0, fmt.Errorf("transfer: %d exchanges: a run needs at least one", iters)
	}
	peer := 1 - c.Rank()
	s, r := b.send[:size], b.recv[0][:size]
	switch test {
	case 1:
		return timed(c, iters, func(int) error {
			if c.Rank() == 0 {
				if err := c.Send(s, peer, tag); err != nil {
					return err
				}
				return c.Recv(r, peer, tag)
			}
			if err := c.Recv(r, peer, tag); err != nil {
				return err
			}
			return c.Send(s, peer, tag)
		})
	case 2:
		return timed(c, iters, func(int) error { return c.Sendrecv(s, peer, tag, r, peer, tag) })
	case 3:
		reqs := make([]msu.Request, 2)
		return timed(c, iters, func(int) (err error) {
			if reqs[0], err = c.Irecv(r, peer, tag); err != nil {
				return err
			}
			if reqs[1], err = c.Isend(s, peer, tag); err != nil {
				return err
			}
			return c.Waitall(reqs)
		})
	case 4:
		return measureReady(c, peer, s, [2][]byte{r, b.recv[1][:size]}, iters)
	case 5:
		reqs := make([]msu.Request, 2)
		var err error
		if reqs[0], err = c.RecvInit(r, peer, tag); err != nil {
			return 0, err
		}
		if reqs[1], err = c.SendInit(s, peer, tag); err != nil {
			return 0, err
		}
		return timed(c, iters, func(int) error {
			if err := c.Startall(reqs); err != nil {
				return err
			}
			return c.Waitall(reqs)
		})
	}
	return 0, fmt.Errorf("transfer: no test %d (there are 1 to %d)", test, len(Tests))
}

// measureReady is test 4. A ready-mode send needs its receive posted
// already, so each rank keeps the receive of the next exchange posted
// before it sends: it posts receive k+1, sends message k, and waits for
// receive k. The peer sends message k+1 only after receiving message k, so
// receive k+1 is posted by then; receive 0 is posted before the Barrier.
func measureReady(c msu.Comm, peer int, s []byte, r [2][]byte, iters int) (float64, error) {
	var reqs [2]msu.Request
	var err error
	if reqs[0], err = c.Irecv(r[0], peer, tag); err != nil {
		return 0, err
	}
	return timed(c, iters, func(k int) (err error) {
		if k+1 < iters {
			if reqs[(k+1)%2], err = c.Irecv(r[(k+1)%2], peer, tag); err != nil {
				return err
			}
		}
		if err := c.Rsend(s, peer, tag); err != nil {
			return err
		}
		return c.Wait(reqs[k%2])
	})
}

// timed runs a Barrier, then exchange(0) … exchange(iters-1), and returns
// the time the exchanges took.
func timed(c msu.Comm, iters int, exchange func(k int) error) (float64, error) {
	if err := c.Barrier(); err != nil {
		return 0, err
	}
	t0 := gompi.Wtime()
	for k := range iters {
		if err := exchange(k); err != nil {
			return 0, err
		}
	}
	return gompi.Wtime() - t0, nil
}

// maxIters bounds the exchanges of one run.
const maxIters = 1 << 20

// Iterations finds how many exchanges make a run of test take about budget
// seconds on rank 0. Trial runs double from one exchange until one takes a
// tenth of the budget (they also warm up the path); rank 0 decides each
// step and tells rank 1 with a Bcast.
func Iterations(c msu.Comm, test, size int, b *Buffers, budget float64) (int, error) {
	msg := make([]byte, 8)
	for n := 1; ; {
		t, err := Measure(c, test, size, n, b)
		if err != nil {
			return 0, err
		}
		// The message: n > 0 runs another trial of n exchanges, -n ends
		// with the answer n.
		if c.Rank() == 0 {
			next := int64(2 * n)
			if t >= budget/10 || 2*n > maxIters {
				next = -int64(min(max(math.Round(float64(n)*budget/t), 1), maxIters))
			}
			binary.LittleEndian.PutUint64(msg, uint64(next))
		}
		if err := c.Bcast(msg, 0); err != nil {
			return 0, err
		}
		next := int(int64(binary.LittleEndian.Uint64(msg)))
		if next < 0 {
			return -next, nil
		}
		n = next
	}
}

// Config says what Run measures.
type Config struct {
	Tests  []int   // test numbers, 1 to 5
	Sizes  []int64 // message sizes in bytes
	Reps   int     // timed runs per test and size
	Iters  int     // exchanges per run, N; 0: found by Iterations
	Budget float64 // seconds one run should take when Iters is 0
}

// A Result is one test at one size: rank 0's T of every run.
type Result struct {
	Test  int
	Size  int64
	Iters int       // N
	Times []float64 // seconds; only rank 0's are results
}

// Run measures every test at every size, Reps runs each, on a job of
// exactly two ranks; progress, if not nil, is told what starts.
func Run(c msu.Comm, cfg Config, progress func(test int, size int64)) ([]Result, error) {
	if err := msu.CheckRanks("transfer", c.Size(), 2, 2); err != nil {
		return nil, err
	}
	if len(cfg.Sizes) == 0 || cfg.Reps < 1 {
		return nil, nil
	}
	b := NewBuffers(slices.Max(cfg.Sizes))
	var out []Result
	for _, test := range cfg.Tests {
		for _, size := range cfg.Sizes {
			if progress != nil {
				progress(test, size)
			}
			n := cfg.Iters
			if n <= 0 {
				var err error
				if n, err = Iterations(c, test, int(size), b, cfg.Budget); err != nil {
					return out, err
				}
			}
			res := Result{Test: test, Size: size, Iters: n}
			for range cfg.Reps {
				t, err := Measure(c, test, int(size), n, b)
				if err != nil {
					return out, err
				}
				res.Times = append(res.Times, t)
			}
			out = append(out, res)
		}
	}
	return out, nil
}
