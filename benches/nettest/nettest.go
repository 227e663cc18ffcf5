// Package nettest is the logical-topology test of the MSU suite (the
// original's nettest; spec/msu-suite.md, section 2): on three or more ranks,
// every logical channel of a Star, a Chaos (complete graph) or a Ring carries
// L bytes each way, uni-directionally (one side answers what it received)
// or bi-directionally (both at once), and the figure is the bandwidth of one
// channel, R(avg) = 2L/T.
package nettest

import (
	"fmt"
	"slices"

	"github.com/gompi/gompi/benches/internal/msu"
	"github.com/gompi/gompi/gompi"
)

// A Topology is a set of logical channels, unordered pairs of ranks.
type Topology int

// The topologies.
const (
	Star  Topology = iota // rank 0 with every other rank
	Chaos                 // every rank with every other (the complete graph)
	Ring                  // every rank i with i+1 mod P
)

func (t Topology) String() string {
	switch t {
	case Star:
		return "Star"
	case Chaos:
		return "Chaos"
	case Ring:
		return "Ring"
	}
	return fmt.Sprintf("Topology(%d)", int(t))
}

// Neighbours returns the ranks that rank i of p has a channel with, in the
// order it addresses them: ascending for Star and Chaos, right then left
// for Ring.
func (t Topology) Neighbours(i, p int) []int {
	switch t {
	case Star:
		if i != 0 {
			return []int{0}
		}
		fallthrough
	case Chaos:
		var nb []int
		for j := range p {
			if j != i && (t == Chaos || j != 0) {
				nb = append(nb, j)
			}
		}
		return nb
	case Ring:
		return []int{(i + 1) % p, (i - 1 + p) % p}
	}
	return nil
}

// Channels is N(P), the number of channels among p ranks (p >= 3).
func (t Topology) Channels(p int) int {
	switch t {
	case Star:
		return p - 1
	case Chaos:
		return p * (p - 1) / 2
	case Ring:
		return p
	}
	return 0
}

// A Procedure is a topology, exchanged uni- or bi-directionally.
type Procedure struct {
	Topology Topology
	Bi       bool
}

// Name is the original's column name: Star, Chaos, Ring, iStar, iChaos, iRing.
func (p Procedure) Name() string {
	if p.Bi {
		return "i" + p.Topology.String()
	}
	return p.Topology.String()
}

// Procedures are the six, in the original's column order.
var Procedures = []Procedure{{Star, false}, {Chaos, false}, {Ring, false}, {Star, true}, {Chaos, true}, {Ring, true}}

// The formulas of the spec, in MB/sec (MB = 2^20 bytes), for L bytes each
// way on every channel in T seconds.

// Avg is R(avg) = R(total)/N(P) = 2L/T, the bandwidth of one channel.
func Avg(L int64, T float64) float64 { return 2 * float64(L) / T / msu.MB }

// Total is R(total) = 2·L·N(P)/T, all bytes moved over the time.
func Total(L int64, channels int, T float64) float64 {
	return 2 * float64(L) * float64(channels) / T / msu.MB
}

// Local is R(local) = 2·L·N_i/T, the bytes sent and received at a node with
// N_i channels over the time.
func Local(L int64, nodeChannels int, T float64) float64 {
	return 2 * float64(L) * float64(nodeChannels) / T / msu.MB
}

// Buffers are a rank's message buffers, a send and a receive buffer for
// every other rank (the spec's buffer per neighbour, indexed by rank).
type Buffers struct {
	send, recv [][]byte
}

// NewBuffers returns buffers for messages of up to size bytes to and from
// every rank of p but rank.
func NewBuffers(rank, p int, size int64) *Buffers {
	b := &Buffers{send: make([][]byte, p), recv: make([][]byte, p)}
	for j := range p {
		if j != rank {
			b.send[j], b.recv[j] = make([]byte, size), make([]byte, size)
		}
	}
	return b
}

// Tags: the two phases of Ring's uni-directional form differ, so that a
// message of one phase never matches a receive of the other.
const (
	tag       = 1
	secondTag = 2
)

// Measure runs p once with messages of size bytes: Barrier; t0; the
// exchange; Barrier; t1. It returns the calling rank's t1 - t0 by
// gompi.Wtime.
func Measure(c msu.Comm, p Procedure, size int, b *Buffers) (float64, error) {
	i, n := c.Rank(), c.Size()
	nb := p.Topology.Neighbours(i, n)
	send := func(j, tag int) (msu.Request, error) { return c.Isend(b.send[j][:size], j, tag) }
	recv := func(j, tag int) (msu.Request, error) { return c.Irecv(b.recv[j][:size], j, tag) }
	reqs := make([]msu.Request, 0, 2*len(nb))
	var exchange func() error
	switch {
	case p.Bi || (p.Topology == Star && i == 0):
		// Isend to every neighbour, Irecv from every neighbour, Waitall.
		exchange = func() error {
			for _, j := range nb {
				r, err := send(j, tag)
				if err != nil {
					return err
				}
				reqs = append(reqs, r)
			}
			for _, j := range nb {
				r, err := recv(j, tag)
				if err != nil {
					return err
				}
				reqs = append(reqs, r)
			}
			return c.Waitall(reqs)
		}
	case p.Topology == Star:
		// Receive from the centre, then answer.
		exchange = func() error {
			if err := c.Recv(b.recv[0][:size], 0, tag); err != nil {
				return err
			}
			return c.Send(b.send[0][:size], 0, tag)
		}
	case p.Topology == Chaos:
		exchange = func() error { return chaos(c, nb, send, recv) }
	case p.Topology == Ring:
		// Right first, then left: Isend to r, Irecv from l, Waitall; Isend
		// to l, Irecv from r, Waitall.
		r, l := nb[0], nb[1]
		exchange = func() error {
			for _, ph := range [2]struct{ to, from, tag int }{{r, l, tag}, {l, r, secondTag}} {
				s, err := send(ph.to, ph.tag)
				if err != nil {
					return err
				}
				q, err := recv(ph.from, ph.tag)
				if err != nil {
					return err
				}
				if err := c.Waitall(append(reqs[:0], s, q)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if err := c.Barrier(); err != nil {
		return 0, err
	}
	t0 := gompi.Wtime()
	if err := exchange(); err != nil {
		return 0, err
	}
	if err := c.Barrier(); err != nil {
		return 0, err
	}
	return gompi.Wtime() - t0, nil
}

// chaos is the uni-directional complete graph at rank i: Isend to every
// j > i, Irecv from every neighbour, then Waitany on the receives; each
// message from a j < i is answered with an Isend to j. The sends complete
// with a Waitall.
func chaos(c msu.Comm, nb []int, send, recv func(j, tag int) (msu.Request, error)) error {
	i := c.Rank()
	var sends []msu.Request
	for _, j := range nb {
		if j > i {
			r, err := send(j, tag)
			if err != nil {
				return err
			}
			sends = append(sends, r)
		}
	}
	recvs := make([]msu.Request, len(nb))
	for k, j := range nb {
		var err error
		if recvs[k], err = recv(j, tag); err != nil {
			return err
		}
	}
	for range nb {
		k, err := c.Waitany(recvs)
		if err != nil {
			return err
		}
		if j := nb[k]; j < i {
			r, err := send(j, tag)
			if err != nil {
				return err
			}
			sends = append(sends, r)
		}
	}
	return c.Waitall(sends)
}

// Config says what Run measures.
type Config struct {
	Sizes []int64 // message sizes in bytes
	Reps  int     // timed runs per procedure and size
}

// A Result is one procedure at one size: rank 0's t1 - t0 of every run.
type Result struct {
	Procedure Procedure
	Size      int64
	Procs     int
	Times     []float64 // seconds; only rank 0's are results
}

// Run measures every procedure at every size: one run to warm up, then
// Reps timed runs. It needs three ranks or more; progress, if not nil, is
// told what starts.
func Run(c msu.Comm, cfg Config, progress func(p Procedure, size int64)) ([]Result, error) {
	if err := msu.CheckRanks("nettest", c.Size(), 3, -1); err != nil {
		return nil, err
	}
	if len(cfg.Sizes) == 0 || cfg.Reps < 1 {
		return nil, nil
	}
	b := NewBuffers(c.Rank(), c.Size(), slices.Max(cfg.Sizes))
	var out []Result
	for _, size := range cfg.Sizes {
		for _, p := range Procedures {
			if progress != nil {
				progress(p, size)
			}
			res := Result{Procedure: p, Size: size, Procs: c.Size()}
			for k := range cfg.Reps + 1 {
				t, err := Measure(c, p, int(size), b)
				if err != nil {
					return out, err
				}
				if k > 0 {
					res.Times = append(res.Times, t)
				}
			}
			out = append(out, res)
		}
	}
	return out, nil
}
