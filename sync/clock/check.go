package clock

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/gompi/gompi/gompi"
	"github.com/gompi/gompi/internal/stats"
)

// Residuals is the outcome of Check: how far each rank's global clock is from
// rank 0's after synchronization.
//
// For rank i, rank 0 sends a ping stamped with its global time and rank i
// answers with the global times at which the ping arrived and the answer
// left. d₁ = arrival − departure of the ping is the one-way delay plus the
// residual r_i (rank i's global clock minus rank 0's); d₂, the same for the
// answer, is the delay minus r_i. Delays are never negative, so
//
//	−min d₂ ≤ r_i ≤ min d₁
//
// holds without any assumption, and Offsets[i] = (min d₁ − min d₂)/2 is the
// estimate if the two directions are equally fast, with Bounds[i] =
// (min d₁ + min d₂)/2 the half-width of the interval. The minima are taken
// independently over all rounds, so this rule differs from the synchronization's
// (the midpoint of the single fastest round trip).
type Residuals struct {
	Offsets []float64 // by rank, seconds; Offsets[0] = 0
	Bounds  []float64 // by rank, the interval's half-width
	// Max and Median are over ranks 1..n−1 of |Offsets[i]|; MaxBound is the
	// largest of Bounds. All zero for a single rank.
	Max, Median, MaxBound float64
	Rounds                int // ping-pong rounds in all
	Duration              time.Duration
}

// Check measures the residual offset of every rank's global clock against
// rank 0's (see Residuals), with the stop rule of Sync: no new minimum of d₁
// or d₂ for o.StopAfter rounds (and, if o.MaxErr is set, a half-width within
// it), at most o.MaxExchanges rounds per rank. It is collective; every rank
// gets the whole result.
func Check(c *gompi.Comm, g Source, o Options) (Residuals, error) {
	o = o.WithDefaults()
	d, err := c.Dup()
	if err != nil {
		return Residuals{}, err
	}
	defer d.Free()
	start := time.Now()
	n, me := d.Size(), d.Rank()
	res := make([]float64, 2*n+1) // offsets, bounds, rounds
	if me == 0 {
		for i := 1; i < n; i++ {
			off, bound, rounds, err := checkPing(d, i, g, o)
			if err != nil {
				return Residuals{}, err
			}
			res[i], res[n+i] = off, bound
			res[2*n] += float64(rounds)
		}
	} else if err := checkPong(d, g); err != nil {
		return Residuals{}, err
	}
	if err := gompi.Bcast(d, res, 0); err != nil {
		return Residuals{}, err
	}
	r := Residuals{Offsets: res[:n], Bounds: res[n : 2*n], Rounds: int(res[2*n]), Duration: time.Since(start)}
	if n > 1 {
		abs := make([]float64, n-1)
		for i := 1; i < n; i++ {
			abs[i-1] = math.Abs(r.Offsets[i])
			r.MaxBound = math.Max(r.MaxBound, r.Bounds[i])
		}
		r.Max = stats.Sorted(abs)[n-2]
		r.Median = stats.Median(abs)
	}
	return r, nil
}

// checkPing is rank 0's side of the check with rank peer.
func checkPing(c *gompi.Comm, peer int, g Source, o Options) (off, bound float64, rounds int, err error) {
	ping := make([]byte, 8)
	pong := make([]byte, 16)
	min1, min2 := math.Inf(1), math.Inf(1)
	since := 0
	for ; !stopRule(o, rounds, since, (min1+min2)/2); rounds++ {
		binary.LittleEndian.PutUint64(ping, 1)
		t0 := g.Now()
		if err = c.Send(ping, peer, tagRequest); err != nil {
			return
		}
		if _, err = c.Recv(pong, peer, tagReply); err != nil {
			return
		}
		t3 := g.Now()
		t1 := math.Float64frombits(binary.LittleEndian.Uint64(pong))
		t2 := math.Float64frombits(binary.LittleEndian.Uint64(pong[8:]))
		improved := false
		if d1 := t1 - t0; d1 < min1 {
			min1, improved = d1, true
		}
		if d2 := t3 - t2; d2 < min2 {
			min2, improved = d2, true
		}
		if improved {
			since = 0
		} else {
			since++
		}
	}
	binary.LittleEndian.PutUint64(ping, 0)
	err = c.Send(ping, peer, tagRequest)
	return (min1 - min2) / 2, (min1 + min2) / 2, rounds, err
}

// checkPong is the side of every other rank: answer pings until rank 0 says
// it is done with this rank.
func checkPong(c *gompi.Comm, g Source) error {
	ping := make([]byte, 8)
	pong := make([]byte, 16)
	for {
		if _, err := c.Recv(ping, 0, tagRequest); err != nil {
			return err
		}
		t1 := g.Now()
		if binary.LittleEndian.Uint64(ping) == 0 {
			return nil
		}
		binary.LittleEndian.PutUint64(pong, math.Float64bits(t1))
		binary.LittleEndian.PutUint64(pong[8:], math.Float64bits(g.Now()))
		if err := c.Send(pong, 0, tagReply); err != nil {
			return err
		}
	}
}
