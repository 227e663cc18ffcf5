package clock

import (
	"encoding/binary"
	"math"

	"github.com/gompi/gompi/gompi"
)

// Tags of the exchanges, on the communicator Sync and Check duplicate.
const (
	tagRequest = 1
	tagReply   = 2
	tagResult  = 3
)

// Sample is the outcome of one pairwise synchronization, as the client sees
// it: the offset of the server's clock against the client's (server = client
// + Offset), found at the client's local time Local by the exchange with the
// smallest round trip, RTT; Err = RTT/2 bounds the error of Offset.
type Sample struct {
	Offset, RTT, Err float64
	Local            float64
	Exchanges        int
}

// Pairwise runs the pairwise step between this rank and peer on c. The
// client repeats request–reply exchanges, reading clk before the request and
// after the reply, and keeps the exchange with the smallest round trip; it
// stops when that minimum has not changed for o.StopAfter exchanges (and, if
// o.MaxErr is set, the minimum's bound is within it), or after
// o.MaxExchanges. The server answers each request with a reading of its clk.
// Both ranks must call Pairwise with opposite roles; only the client's Sample
// is meaningful. Zero fields of o take their defaults.
func Pairwise(c *gompi.Comm, peer int, client bool, clk Source, o Options) (Sample, error) {
	if client {
		return pairClient(c, peer, clk, o.WithDefaults())
	}
	return Sample{}, pairServer(c, peer, clk)
}

// stopRule reports whether exchanges may end: no new minimum for the last
// stopAfter of them and the bound accepted, or the limit reached.
func stopRule(o Options, exchanges, since int, bound float64) bool {
	return exchanges >= o.MaxExchanges || since >= o.StopAfter && (o.MaxErr <= 0 || bound <= o.MaxErr)
}

func pairClient(c *gompi.Comm, peer int, clk Source, o Options) (Sample, error) {
	req := make([]byte, 8)
	rep := make([]byte, 8)
	best := Sample{RTT: math.Inf(1)}
	since := 0
	for !stopRule(o, best.Exchanges, since, best.Err) {
		binary.LittleEndian.PutUint64(req, 1)
		t1 := clk.Now()
		if err := c.Send(req, peer, tagRequest); err != nil {
			return best, err
		}
		if _, err := c.Recv(rep, peer, tagReply); err != nil {
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
	return best, c.Send(req, peer, tagRequest)
}

func pairServer(c *gompi.Comm, peer int, clk Source) error {
	req := make([]byte, 8)
	rep := make([]byte, 8)
	for {
		if _, err := c.Recv(req, peer, tagRequest); err != nil {
			return err
		}
		if binary.LittleEndian.Uint64(req) == 0 {
			return nil
		}
		binary.LittleEndian.PutUint64(rep, math.Float64bits(clk.Now()))
		if err := c.Send(rep, peer, tagReply); err != nil {
			return err
		}
	}
}

// sendFloats and recvFloats move a few float64 values between two ranks.
func sendFloats(c *gompi.Comm, to, tag int, v ...float64) error {
	return gompi.Send(c, v, to, tag)
}

func recvFloats(c *gompi.Comm, from, tag int, v []float64) error {
	_, err := gompi.Recv(c, v, from, tag)
	return err
}
