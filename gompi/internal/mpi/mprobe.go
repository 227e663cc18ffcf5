//go:build mpi || mpich

package mpi

/*
#include "shim.h"
*/
import "C"

import "github.com/gompi/gompi/gompi/internal/base"

// Message is a message taken out of matching by a matched probe
// (MPI_Message), to be received by Recv or Irecv.
//
// It holds the request that Irecv starts, so that the message and its
// receive have one address (a tracer ties the probe to the Wait of the
// receive by it).
type Message struct {
	r   Request
	c   *Comm
	res C.gompi_mprobe_result
}

// Request returns the request that Irecv starts (not started before).
func (m *Message) Request() *Request { return &m.r }

func (c *Comm) probed(res C.gompi_mprobe_result) (*Message, base.Status) {
	return &Message{c: c, res: res}, base.Status{Source: int(res.source), Tag: int(res.tag), Count: int(res.count)}
}

// Improbe takes a message matching (src, tag) out of matching if one has
// arrived (MPI_Improbe). Queued receives take their messages first.
func (c *Comm) Improbe(src, tag int) (*Message, base.Status, bool, error) {
	c.p.match()
	res := C.gompi_improbe(C.int(src), C.int(tag), c.h)
	if res.err != 0 {
		return nil, base.Status{}, false, c.mpiErr("Improbe", res.err, src, tag)
	}
	if res.flag == 0 {
		return nil, base.Status{}, false, nil
	}
	m, st := c.probed(res)
	return m, st, true, nil
}

// Mprobe blocks until a message matching (src, tag) arrives and takes it
// out of matching (MPI_Mprobe).
func (c *Comm) Mprobe(src, tag int) (*Message, base.Status, error) {
	c.p.match()
	res := C.gompi_mprobe(C.int(src), C.int(tag), c.h)
	if res.err != 0 {
		return nil, base.Status{}, c.mpiErr("Mprobe", res.err, src, tag)
	}
	m, st := c.probed(res)
	return m, st, nil
}

// Recv receives m into buf (MPI_Mrecv; through a bounce buffer when buf is
// shorter than the message, see match.go).
func (m *Message) Recv(buf []byte) (base.Status, error) {
	c, n := m.c, len(buf)
	st := C.gompi_mrecv(ptr(buf), C.int(n), m.res.count, &m.res.msg)
	s := base.Status{Source: int(m.res.source), Tag: int(m.res.tag), Count: min(int(st.count), n)}
	if st.err != 0 {
		if C.gompi_error_class(st.err) == C.GOMPI_EC_TRUNCATE && int(st.count) > n {
			return s, c.truncateErr(int(st.count), n, s.Source, s.Tag)
		}
		return s, c.mpiErr("Mrecv", st.err, s.Source, s.Tag)
	}
	return s, nil
}

// Irecv starts the receive of m into buf (MPI_Imrecv).
func (m *Message) Irecv(buf []byte) *Request {
	c := m.c
	r := &m.r
	r.p, r.comm, r.kind, r.peer, r.tag, r.n, r.buf, r.on = c.p, c, kindRecv, int32(m.res.source), int32(m.res.tag), len(buf), buf, c.h
	r.pinBuf(buf)
	c.p.track(r)
	r.startProbed(m.res)
	return r
}
