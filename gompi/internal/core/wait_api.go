package core

import (
	"github.com/gompi/gompi/gompi/internal/base"
)

// Wait blocks until r completes and returns its status. A persistent request
// becomes inactive again; an inactive one returns at once with an empty
// status.
func (r *Request) Wait() (base.Status, error) {
	if r.done.Load() == 0 && r.bg != nil {
		// A nonblocking collective: its goroutine waits inside its
		// algorithm. Spinning here too would take the CPU it needs
		// (a rank's 8-byte Iallreduce+Wait took 131 µs that way, its
		// Allreduce 0.84 µs).
		<-r.bg
	}
	if r.done.Load() == 0 && r.nbc {
		r.p.waitNBC(r) // completes r, with an error if the step cannot be
	}
	if r.done.Load() == 0 {
		p := r.p
		p.enterWait()
		err := p.waitReq(r)
		p.leaveWait()
		if err != nil {
			return base.Status{}, err
		}
	}
	r.active = false
	return r.st, r.err
}

// Test reports whether r has completed, progressing communication once.
func (r *Request) Test() (base.Status, bool, error) {
	if r.done.Load() == 0 {
		r.p.pollAlways()
		if r.done.Load() == 0 && r.nbc {
			r.p.failNBCLost() // its step waits for a rank that is gone: fail it
		}
		if r.done.Load() == 0 {
			return base.Status{}, false, nil
		}
	}
	r.active = false
	return r.st, true, r.err
}

// Cancel takes back a receive that has not matched; its status then says
// Cancelled. A receive that already matched completes normally.
func (r *Request) Cancel() error {
	if r.op != opRecv {
		return base.New("Cancel", base.ErrNotSupported, "only receives can be cancelled",
			"complete the send instead; cancelling sends is deprecated in MPI")
	}
	r.p.cancel(r)
	return nil
}

// Start runs a persistent request once more.
func (r *Request) Start() error {
	if !r.persistent {
		return base.New("Start", base.ErrRequest, "not a persistent request", "make it with SendInit or RecvInit")
	}
	if r.active || r.done.Load() == 0 {
		return base.New("Start", base.ErrRequest, "the request is still active", "Wait for it before starting it again")
	}
	r.active = true
	if r.peer == base.ProcNull {
		return nil // a persistent operation with ProcNull: nothing to do
	}
	r.err = nil
	r.st = base.Status{}
	// The protocol state of the last run (a pipelined rendezvous counts the
	// bytes it has moved) starts again from nothing.
	r.id, r.got, r.size, r.sent, r.rreq, r.streams = 0, 0, 0, 0, 0, false
	r.done.Store(0)
	if r.op == opRecv {
		r.p.irecv(r)
		return nil
	}
	if err := r.p.isend(r); err != nil {
		r.err = err
		r.done.Store(1)
		return err
	}
	return nil
}

// pollAlways drains the queue once, waiting for the lock if another thread
// holds it (Test must make progress, not just look).
func (p *Proc) pollAlways() {
	if p.seg.HeadReady(p.local) || p.boxesReady() || p.hasStreams.Load() || p.net != nil {
		p.mu.Lock()
		p.drainLocked()
		p.mu.Unlock()
	}
	p.pushQueued()
	p.pollNBC()
}

// Progress drains this rank's queue once.
func (p *Proc) Progress() { p.pollAlways() }

// live reports whether r takes part in WaitAny: not nil, and not an inactive
// persistent request.
func (r *Request) live() bool { return r != nil && (!r.persistent || r.active) }

// WaitAny blocks until one of reqs completes and returns its index; nil
// entries and inactive persistent requests are skipped; -1 if none is left.
func (p *Proc) WaitAny(reqs []*Request) (int, error) {
	idx := -1
	var first *Request
	for _, r := range reqs {
		if r.live() {
			first = r
			break
		}
	}
	if first == nil {
		return -1, nil
	}
	err := p.waitUntil(first, func() bool {
		for i, r := range reqs {
			if r.live() && r.done.Load() != 0 {
				idx = i
				return true
			}
		}
		return false
	}, nil)
	return idx, err
}

// WaitSome blocks until at least one of reqs completes.
func (p *Proc) WaitSome(reqs []*Request) error {
	_, err := p.WaitAny(reqs)
	return err
}
