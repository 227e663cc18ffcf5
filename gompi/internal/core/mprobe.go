package core

import (
	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/gompi/internal/core/match"
)

// Matched probes (MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv): a probe
// that takes the message it finds out of matching, under the engine's lock,
// so that no other receive or probe can see it, and a receive of exactly
// that message. Probe then Recv is racy when several goroutines receive;
// this is not.

// Message is a message taken out of matching by a matched probe, to be
// received by Recv or Irecv. It holds the request that receives it, so
// that the message and its receive have one address (a tracer ties the
// probe to the Wait of the receive by it).
type Message struct {
	r Request
	c *Comm
	m *message
}

// Request returns the request that Irecv starts (not started before).
func (m *Message) Request() *Request { return &m.r }

// Improbe takes a message matching (src, tag) out of matching if one has
// arrived.
func (c *Comm) Improbe(src, tag int) (*Message, base.Status, bool, error) {
	p := c.p
	w := int32(src)
	if src >= 0 {
		w = c.members[src]
	}
	p.mu.Lock()
	p.drainLocked()
	mm := p.match.Take(match.Key{Ctx: c.ctx, Src: w, Tag: int32(tag)})
	p.mu.Unlock()
	if mm == nil {
		return nil, base.Status{}, false, nil
	}
	m := mm.Owner
	return &Message{c: c, m: m}, base.Status{Source: c.commRank(m.Src), Tag: int(m.Tag), Count: int(m.Size)}, true, nil
}

// Mprobe blocks until a message matching (src, tag) arrives and takes it
// out of matching.
func (c *Comm) Mprobe(src, tag int) (*Message, base.Status, error) {
	p := c.p
	w := int32(src)
	if src >= 0 {
		w = c.members[src]
	}
	var (
		msg *Message
		st  base.Status
	)
	probe := &Request{p: p, comm: c, op: opRecv, peer: w, tag: int32(tag), ctx: c.ctx}
	err := p.waitUntil(probe, func() bool {
		var ok bool
		msg, st, ok, _ = c.Improbe(src, tag)
		return ok || probe.done.Load() != 0
	}, func() bool { return probe.done.Load() != 0 })
	if err == nil && msg == nil {
		err = probe.err
	}
	return msg, st, err
}

// Irecv starts the receive of m into buf; the request completes as a
// receive's does (ErrTruncate when buf is shorter).
func (m *Message) Irecv(buf []byte) *Request {
	c, p := m.c, m.c.p
	r := &m.r
	r.p, r.comm, r.op = p, c, opRecv
	r.buf, r.peer, r.tag, r.ctx = buf, m.m.Src, m.m.Tag, c.ctx
	p.mu.Lock()
	p.deliverMsg(r, m.m)
	if r.done.Load() == 0 {
		p.started(r) // a rendezvous: it needs progress like any posted receive
	}
	p.mu.Unlock()
	return r
}

// Recv receives m into buf.
func (m *Message) Recv(buf []byte) (base.Status, error) { return m.Irecv(buf).Wait() }

// Free lets r complete on its own: the engine's progress completes every
// request, waited on or not, so there is nothing to do.
func (r *Request) Free() {}
