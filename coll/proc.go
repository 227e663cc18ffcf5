package coll

import "fmt"

// proc is one rank's view of an algorithm run: its Comm, rank and size, and
// the first error met. Its methods never return errors: a failed or mismatched
// message is remembered and the algorithm goes on with its schedule, so that
// the ranks that depend on this one are not left waiting; the first error is
// returned at the end. This also keeps the algorithms free of error plumbing,
// so they read like the textbook.
type proc struct {
	c          Comm
	rank, size int
	err        error
}

// fail remembers err as the error of a message with peer and tag, unless an
// error is already remembered.
func (p *proc) fail(peer, tag int, err error) {
	if p.err == nil {
		p.err = &Error{Rank: p.rank, Peer: peer, Tag: tag, Err: err}
	}
}

// mod is x modulo the communicator size, in [0, size).
func (p *proc) mod(x int) int { return ((x % p.size) + p.size) % p.size }

func (p *proc) send(buf []byte, dest, tag int) {
	if err := p.c.Send(buf, dest, tag); err != nil {
		p.fail(dest, tag, err)
	}
}

// recv receives exactly len(buf) bytes; a shorter message is a mismatch.
func (p *proc) recv(buf []byte, src, tag int) {
	n, err := p.c.Recv(buf, src, tag)
	p.checkRecv(n, err, len(buf), src, tag)
}

func (p *proc) checkRecv(n int, err error, want, src, tag int) {
	switch {
	case err != nil:
		p.fail(src, tag, err)
	case n != want:
		p.fail(src, tag, fmt.Errorf("%w: received %d bytes, expected %d", ErrMismatch, n, want))
	}
}

// pending is a started Isend or Irecv; req is nil when starting it failed.
type pending struct {
	req             Request
	recv            bool
	want, peer, tag int
}

func (p *proc) isend(buf []byte, dest, tag int) pending {
	req, err := p.c.Isend(buf, dest, tag)
	if err != nil {
		p.fail(dest, tag, err)
	}
	return pending{req: req, peer: dest, tag: tag}
}

// irecv starts receiving exactly len(buf) bytes.
func (p *proc) irecv(buf []byte, src, tag int) pending {
	req, err := p.c.Irecv(buf, src, tag)
	if err != nil {
		p.fail(src, tag, err)
	}
	return pending{req: req, recv: true, want: len(buf), peer: src, tag: tag}
}

// wait completes every request, also after one has failed.
func (p *proc) wait(reqs ...pending) {
	for _, q := range reqs {
		if q.req == nil {
			continue
		}
		n, err := q.req.Wait()
		if q.recv {
			p.checkRecv(n, err, q.want, q.peer, q.tag)
		} else if err != nil {
			p.fail(q.peer, q.tag, err)
		}
	}
}

// sendrecv sends sbuf to dest while receiving exactly len(rbuf) bytes from
// src, both with tag; safe under rendezvous sends since the receive is posted
// first. sbuf and rbuf must not overlap.
func (p *proc) sendrecv(sbuf []byte, dest int, rbuf []byte, src, tag int) {
	r := p.irecv(rbuf, src, tag)
	p.send(sbuf, dest, tag)
	p.wait(r)
}

// copyLocal copies a rank's own block from src to dst, which must be of one
// length: a difference is a mismatch between this rank's send and receive
// arguments.
func (p *proc) copyLocal(dst, src []byte) {
	if len(dst) != len(src) {
		p.fail(p.rank, 0, fmt.Errorf("%w: this rank sends %d bytes to itself but expects %d", ErrMismatch, len(src), len(dst)))
	}
	copy(dst, src)
}
