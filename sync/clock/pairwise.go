package clock

import (
	"github.com/gompi/gompi/gompi"
	"github.com/gompi/gompi/sync/clock/pingpong"
)

// Tags of the exchanges, on the communicator Sync and Check duplicate.
const (
	tagRequest = pingpong.TagRequest
	tagReply   = pingpong.TagReply
	tagResult  = 3
)

// Sample is the outcome of one pairwise synchronization, as the client sees
// it: the offset of the server's clock against the client's (server = client
// + Offset), found at the client's local time Local by the exchange with the
// smallest round trip, RTT; Err = RTT/2 bounds the error of Offset.
type Sample = pingpong.Sample

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
		return pingpong.Client(commLink{c}, peer, clk, o.WithDefaults().rule())
	}
	return Sample{}, pingpong.Server(commLink{c}, peer, clk)
}

func (o Options) rule() pingpong.Rule {
	return pingpong.Rule{StopAfter: o.StopAfter, MaxExchanges: o.MaxExchanges, MaxErr: o.MaxErr}
}

// commLink runs the pairwise step over a gompi communicator.
type commLink struct{ c *gompi.Comm }

func (l commLink) Send(b []byte, peer, tag int) error { return l.c.Send(b, peer, tag) }
func (l commLink) Recv(b []byte, peer, tag int) error {
	_, err := l.c.Recv(b, peer, tag)
	return err
}

// stopRule reports whether exchanges may end: no new minimum for the last
// stopAfter of them and the bound accepted, or the limit reached.
func stopRule(o Options, exchanges, since int, bound float64) bool {
	return exchanges >= o.MaxExchanges || since >= o.StopAfter && (o.MaxErr <= 0 || bound <= o.MaxErr)
}

// sendFloats and recvFloats move a few float64 values between two ranks.
func sendFloats(c *gompi.Comm, to, tag int, v ...float64) error {
	return gompi.Send(c, v, to, tag)
}

func recvFloats(c *gompi.Comm, from, tag int, v []float64) error {
	_, err := gompi.Recv(c, v, from, tag)
	return err
}
