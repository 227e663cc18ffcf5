package msu

import (
	"github.com/gompi/gompi/gompi"
)

// Comm is the part of a communicator the suites' procedures use. Gompi
// adapts a *gompi.Comm; a Recorder wraps a Comm and writes down every call.
// Writing the procedures over this interface, rather than watching them with
// gompi's Tracer, lets a test see everything they do: the tracer reports
// neither persistent requests (SendInit, RecvInit, Start, Startall) nor
// which requests Waitany and Waitall complete, nor which rank a Wait belongs
// to. The cost is one indirect call per operation, nanoseconds against the
// microseconds a message takes.
//
// The calls have gompi's meaning. Reductions sum int32s. Waitall and
// Waitany set the entries of requests they complete to nil unless the
// request is persistent, as gompi's do.
type Comm interface {
	Rank() int
	Size() int
	Send(buf []byte, dest, tag int) error
	Rsend(buf []byte, dest, tag int) error
	Recv(buf []byte, src, tag int) error
	Sendrecv(sbuf []byte, dest, stag int, rbuf []byte, src, rtag int) error
	Isend(buf []byte, dest, tag int) (Request, error)
	Irecv(buf []byte, src, tag int) (Request, error)
	SendInit(buf []byte, dest, tag int) (Request, error)
	RecvInit(buf []byte, src, tag int) (Request, error)
	Iprobe(src, tag int) (bool, error)
	Wait(r Request) error
	Waitall(rs []Request) error
	Waitany(rs []Request) (int, error)
	Startall(rs []Request) error
	Barrier() error
	Bcast(buf []byte, root int) error
	Gather(send, recv []byte, root int) error
	AllreduceSum(send, recv []int32) error
	ReduceSum(send, recv []int32, root int) error
}

// Request is a request of a Comm's making.
type Request interface {
	Done() bool
}

// Gompi adapts c to Comm. The adapter is for one goroutine: it keeps a
// scratch slice for the Wait functions so that they do not allocate.
func Gompi(c *gompi.Comm) Comm { return &gompiComm{c: c} }

type gompiComm struct {
	c   *gompi.Comm
	tmp []*gompi.Request
}

func (g *gompiComm) Rank() int                             { return g.c.Rank() }
func (g *gompiComm) Size() int                             { return g.c.Size() }
func (g *gompiComm) Send(buf []byte, dest, tag int) error  { return g.c.Send(buf, dest, tag) }
func (g *gompiComm) Rsend(buf []byte, dest, tag int) error { return g.c.Rsend(buf, dest, tag) }
func (g *gompiComm) Barrier() error                        { return g.c.Barrier() }
func (g *gompiComm) Bcast(buf []byte, root int) error      { return g.c.Bcast(buf, root) }

func (g *gompiComm) Recv(buf []byte, src, tag int) error {
	_, err := g.c.Recv(buf, src, tag)
	return err
}

func (g *gompiComm) Sendrecv(sbuf []byte, dest, stag int, rbuf []byte, src, rtag int) error {
	_, err := g.c.Sendrecv(sbuf, dest, stag, rbuf, src, rtag)
	return err
}

// request returns r as a Request, or nil for a failed call (never a
// non-nil interface holding a nil pointer).
func request(r *gompi.Request, err error) (Request, error) {
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (g *gompiComm) Isend(buf []byte, dest, tag int) (Request, error) {
	return request(g.c.Isend(buf, dest, tag))
}

func (g *gompiComm) Irecv(buf []byte, src, tag int) (Request, error) {
	return request(g.c.Irecv(buf, src, tag))
}

func (g *gompiComm) SendInit(buf []byte, dest, tag int) (Request, error) {
	return request(g.c.SendInit(buf, dest, tag))
}

func (g *gompiComm) RecvInit(buf []byte, src, tag int) (Request, error) {
	return request(g.c.RecvInit(buf, src, tag))
}

func (g *gompiComm) Iprobe(src, tag int) (bool, error) {
	_, ok, err := g.c.Iprobe(src, tag)
	return ok, err
}

func (g *gompiComm) Wait(r Request) error {
	_, err := r.(*gompi.Request).Wait()
	return err
}

// reqs views rs as gompi requests in the scratch slice.
func (g *gompiComm) reqs(rs []Request) []*gompi.Request {
	g.tmp = g.tmp[:0]
	for _, r := range rs {
		p, _ := r.(*gompi.Request)
		g.tmp = append(g.tmp, p)
	}
	return g.tmp
}

// back copies the nils gompi left in the scratch slice back to rs.
func (g *gompiComm) back(rs []Request) {
	for i, p := range g.tmp {
		if p == nil {
			rs[i] = nil
		}
	}
}

func (g *gompiComm) Waitall(rs []Request) error {
	err := gompi.Waitall(g.reqs(rs), nil)
	g.back(rs)
	return err
}

func (g *gompiComm) Waitany(rs []Request) (int, error) {
	i, _, err := gompi.Waitany(g.reqs(rs))
	g.back(rs)
	return i, err
}

func (g *gompiComm) Startall(rs []Request) error { return gompi.Startall(g.reqs(rs)) }

func (g *gompiComm) Gather(send, recv []byte, root int) error { return g.c.Gather(send, recv, root) }

// sum is made once (gompi.Sum is a cached lookup, but nothing is simpler).
var sum = gompi.Sum[int32]()

func (g *gompiComm) AllreduceSum(send, recv []int32) error {
	return gompi.Allreduce(g.c, send, recv, sum)
}

func (g *gompiComm) ReduceSum(send, recv []int32, root int) error {
	return gompi.Reduce(g.c, send, recv, sum, root)
}
