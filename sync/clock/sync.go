package clock

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/gompi/gompi/gompi"
)

// ErrUnknownAlgorithm is wrapped by the error for an algorithm name nobody
// registered.
var ErrUnknownAlgorithm = errors.New("unknown clock synchronization algorithm")

// Options tune Sync. The zero value means the defaults.
type Options struct {
	// Algorithm is the name of the algorithm (see Algorithms); "" is
	// DefaultAlgorithm.
	Algorithm string
	// StopAfter is d of the stop rule: a pairwise step ends when the minimum
	// round trip has not changed for this many exchanges (default 100).
	StopAfter int
	// MaxExchanges bounds the exchanges of one pairwise step (default
	// 10000), so that a step ends even when new minima keep appearing.
	MaxExchanges int
	// MaxErr, if positive, is an acceptance bound added to the stop rule: a
	// step goes on past d exchanges without a new minimum until its bound
	// RTT_min/2 is at most MaxErr (or MaxExchanges is reached). On a shared
	// machine a burst of load longer than d round trips otherwise ends a step
	// with whatever minimum the burst allowed. 0 keeps the spec's rule alone.
	MaxErr float64
	// Epochs and EpochGap are the number of epochs of the drift algorithm
	// and the pause between them (defaults 5 and 20 ms).
	Epochs   int
	EpochGap time.Duration
	// MaxRate bounds how much the rates of any two ranks' clocks differ, as
	// a fraction (1e-6 is 1 ppm; default 100 ppm, beyond what crystals
	// between hosts show; negative: the clocks run at one rate, as ranks of
	// one host reading one clock do). The algorithms that do not estimate
	// drift need it for honest bounds: a chain of pairwise steps taken at
	// different moments (ring, tree) adds MaxRate times the time between
	// them, and every such model's error grows by MaxRate per second after
	// it was made (Model.ErrAt).
	MaxRate float64
}

// Defaults.
const (
	DefaultAlgorithm    = "linear"
	DefaultStopAfter    = 100
	DefaultMaxExchanges = 10000
	DefaultEpochs       = 5
	DefaultEpochGap     = 20 * time.Millisecond
	DefaultMaxRate      = 100e-6
)

// WithDefaults returns o with every zero field set to its default.
func (o Options) WithDefaults() Options {
	if o.Algorithm == "" {
		o.Algorithm = DefaultAlgorithm
	}
	if o.StopAfter <= 0 {
		o.StopAfter = DefaultStopAfter
	}
	if o.MaxExchanges <= 0 {
		o.MaxExchanges = DefaultMaxExchanges
	}
	if o.Epochs <= 0 {
		o.Epochs = DefaultEpochs
	}
	if o.EpochGap <= 0 {
		o.EpochGap = DefaultEpochGap
	}
	if o.MaxRate == 0 {
		o.MaxRate = DefaultMaxRate
	}
	return o
}

// Algorithm is a clock synchronization algorithm.
type Algorithm struct {
	Name    string
	Summary string // the idea, one line
	Cost    string // in pairwise steps T_sync and collectives
	Bound   string // the error bound it states per rank
	run     func(s *session) (Model, error)
}

var algorithms = []Algorithm{
	{Name: "linear", Summary: "rank 0 syncs with ranks 1, 2, …, n−1 in turn",
		Cost: "(n−1)·T_sync", Bound: "RTT_min/2 of the rank's own step (all: + MaxRate·|t − Ref| afterwards)", run: linear},
	{Name: "ring", Summary: "rank i syncs with rank i−1; rank 0 sums the offsets along the ring (Gather, Scatter)",
		Cost: "3·T_sync + Gather + Scatter", Bound: "sum of RTT_min/2 of steps 1..i, plus MaxRate times each step's distance in time from step i", run: ring},
	{Name: "tree", Summary: "binomial tree: in round r rank i < 2^r serves rank i+2^r with its global time",
		Cost: "⌈log₂n⌉·T_sync", Bound: "RTT_min/2 plus the parent's bound at the moment it served (≤ ⌈log₂n⌉ steps)", run: tree},
	{Name: "drift", Summary: "linear, repeated over epochs; a weighted line o(t) = a + b·t fitted through them",
		Cost: "epochs·(n−1)·T_sync + pauses", Bound: "Σ|w_k(t)|·RTT_k/2 of the fit (grows outside the epochs)", run: drift},
}

// Algorithms lists the algorithms Sync knows, in a fixed order.
func Algorithms() []Algorithm { return append([]Algorithm(nil), algorithms...) }

// Lookup finds an algorithm by name (case-insensitive).
func Lookup(name string) (Algorithm, error) {
	for _, a := range algorithms {
		if strings.EqualFold(a.Name, name) {
			return a, nil
		}
	}
	names := make([]string, len(algorithms))
	for i, a := range algorithms {
		names[i] = a.Name
	}
	return Algorithm{}, fmt.Errorf("%w %q; use one of: %s", ErrUnknownAlgorithm, name, strings.Join(names, ", "))
}

// session is one run of an algorithm on one rank.
type session struct {
	c         *gompi.Comm // a duplicate of the caller's communicator
	local     Source
	o         Options
	exchanges int
	// closure and closureErr: set by ring on rank 0.
	closure, closureErr float64
}

func (s *session) pair(peer int, client bool, clk Source) (Sample, error) {
	smp, err := Pairwise(s.c, peer, client, clk, s.o)
	s.exchanges += smp.Exchanges
	return smp, err
}

// Sync synchronizes the clocks of the ranks of c: every rank passes its
// local clock and gets its global clock, on which all ranks read the time of
// rank 0's local clock. It is collective: every rank must call it with the
// same options. It uses a duplicate of c, so messages in flight on c are not
// disturbed.
func Sync(c *gompi.Comm, local Source, o Options) (*Global, error) {
	o = o.WithDefaults()
	alg, err := Lookup(o.Algorithm)
	if err != nil {
		return nil, err
	}
	d, err := c.Dup()
	if err != nil {
		return nil, err
	}
	defer d.Free()
	start := time.Now()
	s := &session{c: d, local: local, o: o, closure: math.NaN(), closureErr: math.NaN()}
	var m Model
	if d.Size() > 1 {
		if m, err = alg.run(s); err != nil {
			return nil, fmt.Errorf("clock sync (%s) on rank %d: %w", alg.Name, d.Rank(), err)
		}
	}
	if d.Rank() == 0 {
		m = Model{} // the identity: rank 0's clock is the global time
	}
	info := Info{Algorithm: alg.Name, Ranks: d.Size()}
	const w = 8
	mine := []float64{m.Offset, m.Drift, m.Ref, m.Err, float64(s.exchanges), s.closure, s.closureErr, m.RateBound}
	all := make([]float64, w*d.Size())
	if err := gompi.Allgather(d, mine, all); err != nil {
		return nil, err
	}
	info.Duration = time.Since(start)
	for r := 0; r < d.Size(); r++ {
		v := all[r*w:]
		info.Models = append(info.Models, Model{Offset: v[0], Drift: v[1], Ref: v[2], Err: v[3], RateBound: v[7]})
		info.Exchanges += int(v[4])
	}
	info.RingClosure, info.RingClosureErr = all[5], all[6]
	return &Global{local: local, model: m, info: info}, nil
}

// linear: rank 0 serves 1, 2, …, n−1 in turn.
func linear(s *session) (Model, error) {
	if s.c.Rank() == 0 {
		for i := 1; i < s.c.Size(); i++ {
			if _, err := s.pair(i, false, s.local); err != nil {
				return Model{}, err
			}
		}
		return Model{}, nil
	}
	smp, err := s.pair(0, true, s.local)
	return Model{Offset: smp.Offset, Ref: smp.Local, Err: smp.Err, RateBound: s.rate()}, err
}

// rate is the rate difference the bounds allow for (0 when the clocks are
// said to run at one rate).
func (s *session) rate() float64 { return math.Max(s.o.MaxRate, 0) }

// ring: every rank i syncs with i−1 (odd i first, then even i, in parallel),
// rank 0 with n−1 to close the ring; rank 0 sums and scatters.
func ring(s *session) (Model, error) {
	n, me := s.c.Size(), s.c.Rank()
	var own Sample // me's step with me−1 (for me > 0), or with n−1 (me == 0)
	for phase := 1; phase <= 3; phase++ {
		clientHere := me > 0 && (phase == 1 && me%2 == 1 || phase == 2 && me%2 == 0) || phase == 3 && me == 0
		right := (me + 1) % n
		serveHere := me+1 < n && (phase == 1 && right%2 == 1 || phase == 2 && right%2 == 0) ||
			phase == 3 && me == n-1
		if serveHere {
			// In phase 3 rank n−1 serves rank 0; otherwise me serves me+1.
			if _, err := s.pair(right, false, s.local); err != nil {
				return Model{}, err
			}
		}
		if clientHere {
			smp, err := s.pair((me-1+n)%n, true, s.local)
			if err != nil {
				return Model{}, err
			}
			own = smp
		}
	}
	send := []float64{own.Offset, own.Err, own.Local}
	var all []float64
	if me == 0 {
		all = make([]float64, 3*n)
	}
	if err := gompi.Gather(s.c, send, all, 0); err != nil {
		return Model{}, err
	}
	var out []float64
	if me == 0 {
		// Rank i's offset is the sum of the steps 1..i, each measured at its
		// own moment; while the steps happened one after another, the
		// offsets they measured moved by up to MaxRate per second. The
		// moments on rank 0's clock: each step's local time plus the offset
		// of its rank.
		out = make([]float64, 2*n)
		at := make([]float64, n)
		var sum, sumErr float64
		for i := 1; i < n; i++ {
			sum += all[3*i]
			sumErr += all[3*i+1]
			at[i] = all[3*i+2] + sum
			out[2*i], out[2*i+1] = sum, sumErr
		}
		at[0] = all[2]
		for i := 1; i < n; i++ {
			for j := 1; j < i; j++ {
				out[2*i+1] += s.rate() * math.Abs(at[j]-at[i])
			}
		}
		s.closure, s.closureErr = sum+all[0], sumErr+all[1]
		for j := 1; j < n; j++ {
			s.closureErr += s.rate() * math.Abs(at[j]-at[0])
		}
	}
	res := make([]float64, 2)
	if err := gompi.Scatter(s.c, out, res, 0); err != nil {
		return Model{}, err
	}
	return Model{Offset: res[0], Ref: own.Local, Err: res[1], RateBound: s.rate()}, nil
}

// tree: in the round with step 2^r, every rank i < 2^r that knows the global
// time serves rank i + 2^r, answering with its global time, then tells it
// its own error bound.
func tree(s *session) (Model, error) {
	n, me := s.c.Size(), s.c.Rank()
	var m Model
	for step := 1; step < n; step <<= 1 {
		switch {
		case me < step && me+step < n:
			g := &Global{local: s.local, model: m}
			if _, err := s.pair(me+step, false, g); err != nil {
				return m, err
			}
			// The child read our global clock during the step, which ended
			// now: our bound then was at most our bound now (it only grows
			// with the time since our own step).
			if err := sendFloats(s.c, me+step, tagResult, m.ErrAt(s.local.Now())); err != nil {
				return m, err
			}
		case me >= step && me < 2*step:
			smp, err := s.pair(me-step, true, s.local)
			if err != nil {
				return m, err
			}
			parent := make([]float64, 1)
			if err := recvFloats(s.c, me-step, tagResult, parent); err != nil {
				return m, err
			}
			m = Model{Offset: smp.Offset, Ref: smp.Local, Err: smp.Err + parent[0], RateBound: s.rate()}
		}
	}
	return m, nil
}

// drift: the linear algorithm over several epochs, and a line through them.
func drift(s *session) (Model, error) {
	var ep []Epoch
	for k := 0; k < s.o.Epochs; k++ {
		if k > 0 {
			time.Sleep(s.o.EpochGap)
		}
		if err := s.c.Barrier(); err != nil {
			return Model{}, err
		}
		m, err := linear(s)
		if err != nil {
			return Model{}, err
		}
		ep = append(ep, Epoch{Local: m.Ref, Offset: m.Offset, Err: m.Err})
	}
	if s.c.Rank() == 0 {
		return Model{}, nil
	}
	sort.Slice(ep, func(i, j int) bool { return ep[i].Local < ep[j].Local })
	return fitDrift(ep), nil
}
