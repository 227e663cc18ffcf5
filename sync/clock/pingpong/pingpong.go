// Package pingpong is the pairwise step of clock synchronization over any
// transport that moves bytes between two ranks: package clock runs it over a
// gompi communicator, and the runtime's tracer (which package clock cannot
// serve, since clock imports gompi) runs it over the engine directly.
//
// The client reads its clock (T′), sends a request, the server answers with
// its clock (T_0), the client reads its clock again (T″): the offset estimate
// is o = T_0 + RTT/2 − T″ with RTT = T″ − T′, and the exchange with the
// smallest RTT is kept; its error is at most RTT_min/2.
package pingpong

import (
	"encoding/binary"
	"math"
)

// Tags of the exchange.
const (
	TagRequest = 1
	TagReply   = 2
)

// Link moves bytes between this rank and a peer.
type Link interface {
	Send(buf []byte, peer, tag int) error
	Recv(buf []byte, peer, tag int) error
}

// Source is a clock: Now returns seconds.
type Source interface{ Now() float64 }

// Rule is the stop rule of the client.
type Rule struct {
	StopAfter    int     // exchanges without a new minimum before stopping
	MaxExchanges int     // exchanges at most
	MaxErr       float64 // if positive, go on until RTT_min/2 ≤ MaxErr (or MaxExchanges)
}

// Sample is the outcome of one pairwise step, as the client sees it: the
// offset of the server's clock against the client's (server = client +
// Offset), found at the client's local time Local by the exchange with the
// smallest round trip, RTT; Err = RTT/2 bounds the error of Offset.
type Sample struct {
	Offset, RTT, Err float64
	Local            float64
	Exchanges        int
}

func (o Rule) stop(exchanges, since int, bound float64) bool {
	return exchanges >= o.MaxExchanges || since >= o.StopAfter && (o.MaxErr <= 0 || bound <= o.MaxErr)
}

// Client runs the client's side against peer.
func Client(l Link, peer int, clk Source, o Rule) (Sample, error) {
	req := make([]byte, 8)
	rep := make([]byte, 8)
	best := Sample{RTT: math.Inf(1)}
	since := 0
	for !o.stop(best.Exchanges, since, best.Err) {
		binary.LittleEndian.PutUint64(req, 1)
		t1 := clk.Now()
		if err := l.Send(req, peer, TagRequest); err != nil {
			return best, err
		}
		if err := l.Recv(rep, peer, TagReply); err != nil {
			return best, err
		}
		t2 := clk.Now()
		best.Exchanges++
		rtt := t2 - t1
		if rtt < best.RTT {
			t0 := math.Float64frombits(binary.LittleEndian.Uint64(rep))
			best.RTT, best.Err = rtt, rtt/2
			best.Offset = t0 + rtt/2 - t2
			best.Local = t2
			since = 0
		} else {
			since++
		}
	}
	binary.LittleEndian.PutUint64(req, 0) // done
	return best, l.Send(req, peer, TagRequest)
}

// Server answers the client's requests with readings of clk until it says
// it is done.
func Server(l Link, peer int, clk Source) error {
	req := make([]byte, 8)
	rep := make([]byte, 8)
	for {
		if err := l.Recv(req, peer, TagRequest); err != nil {
			return err
		}
		if binary.LittleEndian.Uint64(req) == 0 {
			return nil
		}
		binary.LittleEndian.PutUint64(rep, math.Float64bits(clk.Now()))
		if err := l.Send(rep, peer, TagReply); err != nil {
			return err
		}
	}
}
