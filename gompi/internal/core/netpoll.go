//go:build linux

package core

import (
	"fmt"
	"unsafe"

	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/gompi/internal/core/match"
	"golang.org/x/sys/unix"
)

// netSend starts the send r to a peer reached over TCP. Small messages go
// eagerly, header and payload in one write; large ones announce themselves
// (rts) and their payload follows the receiver's clear-to-send, written from
// the send buffer itself.
func (p *Proc) netSend(r *Request) error {
	c := p.net.conns[r.peer]
	if c == nil || c.state.Load() != connUp {
		return p.lostErr("Send", r)
	}
	n := len(r.buf)
	f := frame{tag: r.tag, ctx: r.ctx, size: int64(n)}
	var err error
	switch {
	case n <= netEagerMax && c.outLen.Load() <= netOutMax:
		// The common case: written at once, or copied into the queue.
		f.kind = frameEager
		if r.mode == ModeSync {
			f.flags = flagSync
			f.id = p.register(r)
		}
		_, err = c.send(&f, r.buf, nil, false)
		if err == nil && r.mode != ModeSync {
			p.completeOwned(r)
		}
	case n <= netEagerMax:
		// The peer does not read and its queue is long: queue r by
		// reference rather than copy more or wait. It completes when the
		// kernel takes it (a synchronous send, on its ack), driven by
		// whichever thread progresses this rank.
		f.kind = frameEager
		p.mu.Lock()
		if r.mode == ModeSync {
			f.flags = flagSync
			f.id = p.newID()
			r.id = f.id
			p.inflight[f.id] = r
		}
		p.started(r)
		p.mu.Unlock()
		var queued bool
		queued, err = c.send(&f, r.buf, r, r.mode != ModeSync)
		if err == nil && !queued && r.mode != ModeSync {
			p.sendDone(r)
		}
	default:
		f.kind = frameRTS
		f.id = p.register(r)
		_, err = c.send(&f, nil, nil, false)
	}
	if err != nil {
		p.mu.Lock()
		p.netBreak(c, err)
		if r.done.Load() == 0 {
			delete(p.inflight, r.id)
			r.err = p.lostErr("Send", r)
			p.complete(r)
		}
		p.mu.Unlock()
	}
	return nil
}

// pollLocked makes what progress the sockets allow: queued writes, then
// every frame that has arrived. Caller holds p.mu.
//
// Which sockets can be read or written is asked of poll(2) for all of them
// at once: it looks at each socket without taking its lock, where a read of
// an empty socket (or a write to a full one) takes the lock that packet
// delivery to that socket needs too, and a waiter spinning on reads
// measurably delays the very message it waits for (kernel spin-lock
// contention in a profile of the 1-byte ping-pong).
func (n *netState) pollLocked() {
	n.ready.Store(false)
	if n.closed.Load() || len(n.pfds) == 0 {
		return
	}
	p := n.p
	for i, c := range n.list {
		ev := int16(unix.POLLIN | unix.POLLRDHUP)
		if c.hasOut.Load() {
			ev |= unix.POLLOUT
		}
		n.pfds[i].Events = ev
		if c.state.Load() != connUp {
			n.pfds[i].Fd = -1
		}
	}
	k, _, e := unix.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&n.pfds[0])), uintptr(len(n.pfds)),
		uintptr(unsafe.Pointer(&zeroTime)), 0, 0, 0)
	if int(k) <= 0 && e != unix.EINTR {
		return
	}
	n.lastMove.Store(nanotime())
	for i, c := range n.list {
		re := n.pfds[i].Revents
		if re == 0 || c.state.Load() != connUp {
			continue
		}
		if re&^unix.POLLIN != 0 && c.hasOut.Load() {
			c.flush(p)
		}
		if re&^unix.POLLOUT != 0 {
			c.read(p)
		}
	}
}

// read consumes what the kernel holds for c. Payloads of matched messages
// and of rendezvous data go straight from the socket into the receive
// buffer, except what arrived in the same read as their header.
func (c *netConn) read(p *Proc) {
	// drained: the last read took less than it could, so the socket was
	// empty then; frames still buffered are handled without another read
	// (which would only say EAGAIN, a system call on the message's path).
	drained := false
	for c.state.Load() == connUp {
		if c.inPay {
			if !c.readPayload(p) {
				return
			}
			continue
		}
		if c.rhi-c.rlo >= frameHdrSize {
			var f frame
			f.get(c.rbuf[c.rlo:])
			c.rlo += frameHdrSize
			p.netFrame(c, &f)
			continue
		}
		if drained {
			return
		}
		if c.rlo > 0 {
			c.rhi = copy(c.rbuf, c.rbuf[c.rlo:c.rhi])
			c.rlo = 0
		}
		k, ok := c.sysRead(p, c.rbuf[c.rhi:])
		if !ok {
			return
		}
		drained = k < len(c.rbuf)-c.rhi
		c.rhi += k
	}
}

// sysRead reads into b; ok is false when nothing more can be read now (or
// the connection ended, which it records).
func (c *netConn) sysRead(p *Proc, b []byte) (int, bool) {
	for {
		if len(b) == 0 {
			return 0, true
		}
		k, err := rawIO(unix.SYS_READ, c.fd, unsafe.Pointer(&b[0]), len(b))
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return 0, false
		case err != nil:
			p.netBreak(c, err)
			return 0, false
		case k == 0:
			p.netBreak(c, errClosedMidStream)
			return 0, false
		}
		return k, true
	}
}

// readPayload moves payload bytes into place; false when the socket has no
// more for now.
func (c *netConn) readPayload(p *Proc) bool {
	if len(c.dst) > 0 {
		var k int
		if c.rhi > c.rlo {
			k = copy(c.dst, c.rbuf[c.rlo:c.rhi])
			c.rlo += k
		} else {
			var ok bool
			if k, ok = c.sysRead(p, c.dst[:min(len(c.dst), c.chunk)]); !ok {
				return false
			}
		}
		c.dst = c.dst[k:]
	} else if c.discard > 0 {
		if c.rhi == c.rlo {
			c.rlo = 0
			k, ok := c.sysRead(p, c.rbuf[:min(int64(len(c.rbuf)), c.discard)])
			if !ok {
				return false
			}
			c.rhi = k
		}
		k := min(int64(c.rhi-c.rlo), c.discard)
		c.rlo += int(k)
		c.discard -= k
	}
	if len(c.dst) == 0 && c.discard == 0 {
		c.inPay = false
		p.netPayloadDone(c)
	}
	return true
}

// expect arranges for the next size payload bytes of c to go to dst (its
// first len(dst) bytes) and be dropped after that.
func (c *netConn) expect(dst []byte, size int64, target *Request, m *message) {
	if int64(len(dst)) > size {
		dst = dst[:size]
	}
	c.dst, c.discard = dst, size-int64(len(dst))
	c.target, c.msg = target, m
	c.inPay = true
}

// netFrame handles one frame header from c. Caller holds p.mu.
func (p *Proc) netFrame(c *netConn, f *frame) {
	src := c.peer
	switch f.kind {
	case frameEager:
		c.hdr = *f
		if rv := p.match.Arrive(match.Key{Ctx: f.ctx, Src: src, Tag: f.tag}); rv != nil {
			r := rv.Owner
			p.setStatus(r, src, f.tag, f.size, int(min(f.size, int64(len(r.buf)))))
			c.expect(r.buf, f.size, r, nil)
		} else {
			// Kept once its payload is in (netPayloadDone): nothing else of
			// this sender's arrives before.
			m := newMessage(f.ctx, src, f.tag, f.size, kindNetEager)
			m.sync, m.sreq = f.flags&flagSync != 0, f.id
			m.data = make([]byte, f.size)
			c.expect(m.data, f.size, nil, m)
		}
		if f.size == 0 {
			c.inPay = false
			p.netPayloadDone(c)
		}
	case frameRTS:
		if rv := p.match.Arrive(match.Key{Ctx: f.ctx, Src: src, Tag: f.tag}); rv != nil {
			p.netRendezvous(rv.Owner, src, f.tag, f.size, f.id)
		} else {
			m := newMessage(f.ctx, src, f.tag, f.size, kindNetRTS)
			m.sreq = f.id
			p.match.Keep(&m.Msg)
		}
	case frameCTS:
		r := p.inflight[f.id]
		delete(p.inflight, f.id)
		if r == nil {
			return
		}
		r.id = 0
		n := min(f.size, int64(len(r.buf)))
		if n == 0 {
			r.st = base.EmptyStatus
			p.complete(r)
			return
		}
		d := frame{kind: frameData, size: n, id: f.id2}
		queued, err := c.send(&d, r.buf[:n], r, true)
		if err != nil {
			p.netBreak(c, err)
			if r.done.Load() == 0 {
				r.err = p.lostErr("Send", r)
				p.complete(r)
			}
			return
		}
		if !queued {
			r.st = base.EmptyStatus
			p.complete(r)
		}
	case frameData:
		c.hdr = *f
		r := p.inflight[f.id]
		if r == nil {
			c.expect(nil, f.size, nil, nil) // a withdrawn receive: drop it
			return
		}
		c.expect(r.buf[r.got:r.size], f.size, r, nil)
	case frameAck:
		r := p.inflight[f.id]
		delete(p.inflight, f.id)
		if r != nil {
			r.st = base.EmptyStatus
			p.complete(r)
		}
	case frameBye:
		p.netBreak(c, nil)
	default:
		p.netBreak(c, fmt.Errorf("a frame of unknown kind %d: the stream is corrupt", f.kind))
	}
}

// netPayloadDone finishes the frame whose payload has just been read.
func (p *Proc) netPayloadDone(c *netConn) {
	r, m := c.target, c.msg
	c.target, c.msg, c.dst = nil, nil, nil
	switch {
	case m != nil:
		// An unexpected eager message is complete: a receive posted while it
		// arrived may take it now, else it waits in the unexpected queue.
		if rv := p.match.Arrive(m.Key); rv != nil {
			p.deliverMsg(rv.Owner, m)
		} else {
			p.match.Keep(&m.Msg)
		}
	case r != nil && c.hdr.kind == frameData:
		delete(p.inflight, r.id)
		p.complete(r)
	case r != nil:
		if c.hdr.flags&flagSync != 0 {
			c.sendCtl(p, &frame{kind: frameAck, id: c.hdr.id})
		}
		p.complete(r)
	}
}

// netDeliverMsg completes the receive r with m, an unexpected message that
// came over TCP. Caller holds p.mu.
func (p *Proc) netDeliverMsg(r *Request, m *message) {
	if m.kind == kindNetEager {
		p.finishRecv(r, m.Src, m.Tag, m.Size, m.data)
		if m.sync {
			if c := p.net.conns[m.Src]; c != nil && c.state.Load() == connUp {
				c.sendCtl(p, &frame{kind: frameAck, id: m.sreq})
			}
		}
		return
	}
	p.netRendezvous(r, m.Src, m.Tag, m.Size, m.sreq)
}

// netRendezvous answers an rts that r matched: clear to send as many bytes
// as r's buffer takes, to be read into it as they come.
func (p *Proc) netRendezvous(r *Request, src, tag int32, size int64, sreq uint64) {
	n := min(size, int64(len(r.buf)))
	p.setStatus(r, src, tag, size, int(n))
	c := p.net.conns[src]
	if c == nil || c.state.Load() != connUp {
		if r.err == nil {
			r.err = p.lostErr("Recv", r)
		}
		p.complete(r)
		return
	}
	f := frame{kind: frameCTS, size: n, id: sreq}
	if n > 0 {
		r.id = p.newID()
		r.size, r.got = n, 0
		p.inflight[r.id] = r
		f.id2 = r.id
	}
	c.sendCtl(p, &f)
	if n == 0 && r.done.Load() == 0 {
		p.complete(r)
	}
}

var zeroTime unix.Timespec // ppoll's timeout: do not wait
