package gompi

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gompi/gompi/gompi/internal/backend"
	"github.com/gompi/gompi/gompi/internal/base"
)

// BsendOverhead is the space each buffered message takes in the attached
// buffer beyond its own bytes (alignment): size buffers for k messages of n
// bytes as k*(n+BsendOverhead).
const BsendOverhead = 16

// bsendBuffer is the buffer attached for buffered sends, one per rank: a
// first-fit allocator over the user's slice; each region is freed when the
// send out of it completes.
type bsendBuffer struct {
	mu      sync.Mutex
	buf     []byte
	used    firstFit // allocated regions
	pending map[*backend.Request]struct{}
}

// BufferAttach gives this rank buf for buffered sends (Bsend, Ibsend). A rank
// has at most one attached buffer; buf belongs to gompi until
// BufferDetach returns it.
func (c *Comm) BufferAttach(buf []byte) error {
	if err := c.valid("BufferAttach"); err != nil {
		return err
	}
	b := &c.r.bsend
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf != nil {
		return c.errf("BufferAttach", base.ErrBuffer, -1, -1, "a buffer is already attached", "detach it first")
	}
	if len(buf) == 0 {
		return c.errf("BufferAttach", base.ErrArg, -1, -1, "the buffer is empty", "")
	}
	b.buf = buf
	b.pending = make(map[*backend.Request]struct{})
	return nil
}

// BufferDetach waits until every buffered send out of the attached buffer
// has completed, then returns the buffer (nil if none was attached).
func (c *Comm) BufferDetach() ([]byte, error) {
	if err := c.valid("BufferDetach"); err != nil {
		return nil, err
	}
	return c.r.bsend.detach(c)
}

// BufferAttach attaches buf to the world communicator's rank (see
// Comm.BufferAttach).
func BufferAttach(buf []byte) error { return World().BufferAttach(buf) }

// BufferDetach detaches the buffer of this process's rank (see
// Comm.BufferDetach).
func BufferDetach() ([]byte, error) { return World().BufferDetach() }

func (b *bsendBuffer) detach(c *Comm) ([]byte, error) {
	b.mu.Lock()
	var reqs []*backend.Request
	for r := range b.pending {
		reqs = append(reqs, r)
	}
	b.mu.Unlock()
	var errs []error
	for _, r := range reqs {
		if _, err := r.Wait(); err != nil {
			errs = append(errs, err)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	buf := b.buf
	b.buf, b.used, b.pending = nil, firstFit{}, nil
	return buf, errors.Join(errs...)
}

// alloc finds room for n bytes; ok is false if the buffer cannot hold them now.
func (b *bsendBuffer) alloc(n int) (span, bool) {
	return b.used.alloc((n+BsendOverhead+7)&^7, len(b.buf))
}

func (b *bsendBuffer) release(s span) { b.used.release(s) }

// Bsend sends in buffered mode: the message is copied into the attached
// buffer and Bsend returns at once. If the buffer has no room for it,
// Bsend returns ErrBuffer and sends nothing.
func (c *Comm) Bsend(buf []byte, dest, tag int) error {
	r, err := c.ibsend(RoutineBsend, "Bsend", buf, dest, tag, false)
	_ = r
	return err
}

// Ibsend starts a buffered-mode send; the request completes as soon as the
// message is copied, which is at once.
func (c *Comm) Ibsend(buf []byte, dest, tag int) (*Request, error) {
	return c.ibsend(RoutineIbsend, "Ibsend", buf, dest, tag, true)
}

func (c *Comm) ibsend(op Routine, name string, buf []byte, dest, tag int, wantReq bool) (*Request, error) {
	var req *Request
	f := func() error {
		if err := c.checkSend(name, dest, tag); err != nil {
			return err
		}
		if wantReq {
			req = (*Request)(backend.NewDone(c.c, procNullStatus, false))
		}
		if dest == ProcNull {
			return nil
		}
		b := &c.r.bsend
		b.mu.Lock()
		if b.buf == nil {
			b.mu.Unlock()
			return c.errf(name, base.ErrBuffer, dest, tag, "no buffer is attached", "call BufferAttach first")
		}
		s, ok := b.alloc(len(buf))
		if !ok {
			// Sends out of the buffer may have completed unseen (under MPI,
			// only a look at their requests completes them): look, then try
			// again. Not under b.mu: completing one takes it.
			b.mu.Unlock()
			c.r.proc.Progress()
			b.mu.Lock()
			s, ok = b.alloc(len(buf))
		}
		if !ok {
			size := len(b.buf)
			b.mu.Unlock()
			return c.errf(name, base.ErrBuffer, dest, tag,
				fmt.Sprintf("a %d-byte message does not fit in what is free of the %d-byte attached buffer", len(buf), size),
				"attach a larger buffer (each message needs its size plus BsendOverhead)")
		}
		region := b.buf[s.start : s.start+len(buf)]
		copy(region, buf)
		b.mu.Unlock()
		var r *backend.Request
		// onDone runs under the engine's lock; the buffer's lock comes after
		// it in lock order, never before, so it is not held across Isend.
		r, err := c.c.IsendDone(region, dest, tag, backend.ModeStandard, func() {
			b.mu.Lock()
			b.release(s)
			delete(b.pending, r)
			b.mu.Unlock()
		})
		b.mu.Lock()
		defer b.mu.Unlock()
		if err != nil {
			b.release(s)
			return err
		}
		if !r.Done() {
			b.pending[r] = struct{}{}
		}
		return nil
	}
	if t := tracer.Load(); t != nil && wantReq {
		return t.runReq(op, c, dest, tag, len(buf), func() (*Request, error) { err := f(); return req, err })
	}
	var err error
	if t := tracer.Load(); t != nil {
		err = t.run(op, c, dest, tag, len(buf), f)
	} else {
		err = f()
	}
	return req, err
}
