package clock

import (
	"math"
	"time"
)

// A Source is a clock: Now returns seconds since an origin of the clock's
// own. Every rdtsc.Clock is a Source. Now must be safe for concurrent use.
type Source interface {
	Now() float64
}

// Skewed is a virtual clock for tests: Base read through an offset and a
// rate error,
//
//	Now() = Base.Now()·(1 + Drift) + Offset
//
// Drift is a fraction (1e-6 is 1 ppm). Ranks started by gompi.Run share one
// real clock, so each is given a Skewed clock of its own to have something to
// synchronize.
type Skewed struct {
	Base   Source
	Offset float64 // seconds
	Drift  float64 // rate error, dimensionless
}

// Now returns the skewed reading.
func (s Skewed) Now() float64 { return s.Base.Now()*(1+s.Drift) + s.Offset }

// Epoch is one measurement behind a drift fit: the local time it was taken
// at, the offset found then and the bound on that offset's error.
type Epoch struct {
	Local, Offset, Err float64
}

// Model converts a rank's local clock to global time:
//
//	global = local + Offset + Drift·(local − Ref)
//
// Offset holds at local time Ref, where its error is at most Err. Models of
// algorithms without drift have Drift 0; their error grows afterwards by as
// much as the clocks' rates can differ times the time elapsed since Ref:
// RateBound is that rate difference (Options.MaxRate), and ErrAt adds it. A
// drift model keeps the Epochs of its fit so that ErrAt can bound its error
// at any time.
type Model struct {
	Offset    float64
	Drift     float64
	Ref       float64
	Err       float64
	RateBound float64 `json:",omitempty"`
	Epochs    []Epoch `json:",omitempty"`
}

// Global returns the global time of a local reading.
func (m Model) Global(local float64) float64 {
	return local + m.Offset + m.Drift*(local-m.Ref)
}

// Local returns the local time at which the global clock reads global
// (the inverse of Global).
func (m Model) Local(global float64) float64 {
	return (global - m.Offset + m.Drift*m.Ref) / (1 + m.Drift)
}

// ErrAt bounds the error of the model's offset at local time t. For a model
// fitted through epochs (assuming the true offset is a straight line in
// time) the fitted value at t is a linear combination Σ w_k(t)·o_k of the
// epochs' offsets, so its error is at most Σ |w_k(t)|·Err_k: that grows as t
// leaves the span of the epochs. A model without a drift estimate is off by
// at most Err at Ref, and by RateBound more per second away from it.
func (m Model) ErrAt(t float64) float64 {
	if len(m.Epochs) < 2 {
		return m.Err + m.RateBound*math.Abs(t-m.Ref)
	}
	w := fitWeights(m.Epochs, t)
	b := 0.0
	for k, e := range m.Epochs {
		b += math.Abs(w[k]) * e.Err
	}
	return b
}

// fitWeights returns the weights w_k(t) with which the weighted least-squares
// line through the epochs (weights 1/Err²) predicts its value at t.
func fitWeights(ep []Epoch, t float64) []float64 {
	v := make([]float64, len(ep))
	var sv, svt float64
	for k, e := range ep {
		err := math.Max(e.Err, 1e-12)
		v[k] = 1 / (err * err)
		sv += v[k]
		svt += v[k] * e.Local
	}
	mean := svt / sv
	var stt float64
	for k, e := range ep {
		stt += v[k] * (e.Local - mean) * (e.Local - mean)
	}
	w := make([]float64, len(ep))
	for k, e := range ep {
		w[k] = v[k] / sv
		if stt > 0 {
			w[k] += (t - mean) * v[k] * (e.Local - mean) / stt
		}
	}
	return w
}

// fitDrift fits a Model through epochs: the weighted least-squares line,
// with Ref at the weighted mean time, where the line is best known.
func fitDrift(ep []Epoch) Model {
	if len(ep) == 1 {
		return Model{Offset: ep[0].Offset, Ref: ep[0].Local, Err: ep[0].Err, Epochs: ep}
	}
	var sv, svt, svo float64
	for _, e := range ep {
		err := math.Max(e.Err, 1e-12)
		v := 1 / (err * err)
		sv += v
		svt += v * e.Local
		svo += v * e.Offset
	}
	tm, om := svt/sv, svo/sv
	var stt, sto float64
	for _, e := range ep {
		err := math.Max(e.Err, 1e-12)
		v := 1 / (err * err)
		stt += v * (e.Local - tm) * (e.Local - tm)
		sto += v * (e.Local - tm) * (e.Offset - om)
	}
	m := Model{Offset: om, Ref: tm, Epochs: ep}
	if stt > 0 {
		m.Drift = sto / stt
	}
	m.Err = m.ErrAt(tm)
	return m
}

// Info describes how a Global clock was obtained; every rank has all of it.
type Info struct {
	Algorithm string
	Ranks     int
	// Models holds every rank's model, by rank (rank 0's is the identity).
	Models []Model
	// Exchanges is the number of pairwise exchanges of the whole job.
	Exchanges int
	// Duration is how long the synchronization took on rank 0.
	Duration time.Duration
	// RingClosure is, for the ring algorithm, the sum of the pairwise offsets
	// around the whole ring, zero for perfect estimates; RingClosureErr is
	// the sum of their bounds. Both are NaN for other algorithms.
	RingClosure, RingClosureErr float64
}

// MaxErr returns the largest error bound of the models (at their Ref).
func (in Info) MaxErr() float64 {
	m := 0.0
	for _, md := range in.Models {
		m = math.Max(m, md.Err)
	}
	return m
}

// Global is a rank's synchronized clock: its local clock corrected by its
// Model, so that all ranks read (nearly) the same time at the same moment.
// It is a Source, safe for concurrent use, and never changes after Sync.
type Global struct {
	local Source
	model Model
	info  Info
}

// NewGlobal returns the global clock of a local clock and a model made
// elsewhere (a model read back from a file, or the identity: Model{}).
func NewGlobal(local Source, m Model) *Global { return &Global{local: local, model: m} }

// Now returns the global time.
func (g *Global) Now() float64 { return g.model.Global(g.local.Now()) }

// Local returns the clock the global time is derived from.
func (g *Global) Local() Source { return g.local }

// Model returns this rank's model.
func (g *Global) Model() Model { return g.model }

// Info describes the synchronization that made g.
func (g *Global) Info() Info { return g.info }
