package core

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/gompi/internal/base"
)

// Nonblocking collectives on shared-memory steps ("arrive and leave"): the
// API (gompi/nbcshm.go) gives the engine a stepper per call, which it
// advances without ever blocking: at the start call each rank writes its
// part into the step's scratch half and arrives; once the step is released
// (every rank has arrived) whoever advances the stepper reads what the rank
// needs and the request completes. Nothing in between needs a CPU of this
// rank, so the collective makes progress while the program computes: the
// other ranks' arrivals are all it waits for.
//
// The calls of one communicator go through its steps in call order: a
// stepper starts only when the one before it on the same communicator has
// completed on this rank (its reads of the scratch half are done, which is
// what the next step's arrival promises the others, see ShmBegin), so a
// second call started while the first is pending waits in this list, and
// the start call stays local. Whatever polls (Wait, Test, Waitall, the
// blocking calls' waits, Progress) advances the list; a blocking collective
// on the communicator first completes the list's calls of that
// communicator (DrainNBC), so it never overtakes them.

// NBCStepper is one nonblocking collective on shared-memory steps.
type NBCStepper interface {
	// Step advances the call as far as it can without waiting, and
	// reports whether it is complete (with its error).
	Step() (done bool, err error)
	// Sleep waits at most d, or until Step may advance.
	Sleep(d time.Duration)
}

type nbcItem struct {
	r *Request
	c *Comm
	s NBCStepper
}

// nbcList is a process's pending nonblocking collectives, oldest first.
type nbcList struct {
	n     atomic.Int32 // len(items), for lock-free looks
	mu    sync.Mutex
	items []*nbcItem
}

// StartNBC starts s on c (advancing it once now) and returns its request.
func (c *Comm) StartNBC(s NBCStepper) *Request {
	p := c.p
	r := &Request{p: p, comm: c, peer: base.ProcNull, nbc: true}
	l := &p.nbc
	l.mu.Lock()
	l.items = append(l.items, &nbcItem{r: r, c: c, s: s})
	l.n.Store(int32(len(l.items)))
	p.advanceNBCLocked()
	l.mu.Unlock()
	// Unless it completed at once (this rank arrived last), it is counted
	// as pending: if the program computes instead of calling gompi, the
	// progress goroutine completes it (and starts the calls queued behind
	// it), as it does a receive. complete sets done under mu, so the check
	// there is final.
	p.mu.Lock()
	if r.done.Load() == 0 {
		p.started(r)
	}
	p.mu.Unlock()
	return r
}

// pollNBC advances the pending nonblocking collectives once, unless another
// thread is at it.
func (p *Proc) pollNBC() {
	if p.nbc.n.Load() == 0 || !p.nbc.mu.TryLock() {
		return
	}
	p.advanceNBCLocked()
	p.nbc.mu.Unlock()
}

// advanceNBCLocked advances, per communicator, its oldest pending call and,
// as each completes, the next. Caller holds nbc.mu.
func (p *Proc) advanceNBCLocked() {
	l := &p.nbc
	var blocked []*Comm // communicators whose oldest call is still pending
	keep := l.items[:0]
	for _, it := range l.items {
		if isBlocked(blocked, it.c) {
			keep = append(keep, it)
			continue
		}
		done, err := it.s.Step()
		if !done {
			blocked = append(blocked, it.c)
			keep = append(keep, it)
			continue
		}
		p.finishNBC(it, err)
	}
	for i := len(keep); i < len(l.items); i++ {
		l.items[i] = nil
	}
	l.items = keep
	l.n.Store(int32(len(keep)))
}

func isBlocked(blocked []*Comm, c *Comm) bool {
	for _, b := range blocked {
		if b == c {
			return true
		}
	}
	return false
}

// finishNBC completes it's request with err.
func (p *Proc) finishNBC(it *nbcItem, err error) {
	p.mu.Lock()
	it.r.err = err
	it.r.st = base.EmptyStatus
	p.complete(it.r)
	p.mu.Unlock()
}

// failNBC completes every pending call on c with err (a member gone, the
// job aborted, a wait timed out): their steps will never be released.
func (p *Proc) failNBC(c *Comm, err error) {
	l := &p.nbc
	l.mu.Lock()
	keep := l.items[:0]
	for _, it := range l.items {
		if it.c == c {
			p.finishNBC(it, err)
			continue
		}
		keep = append(keep, it)
	}
	for i := len(keep); i < len(l.items); i++ {
		l.items[i] = nil
	}
	l.items = keep
	l.n.Store(int32(len(keep)))
	l.mu.Unlock()
}

// failNBCLost fails the pending calls of communicators with a member gone
// (from the waits' liveness check: a Waitall over such a call must not
// hang).
func (p *Proc) failNBCLost() {
	if p.nbc.n.Load() == 0 {
		return
	}
	p.nbc.mu.Lock()
	var gone []*Comm
	for _, it := range p.nbc.items {
		if !isBlocked(gone, it.c) && it.c.goneErr() != nil {
			gone = append(gone, it.c)
		}
	}
	p.nbc.mu.Unlock()
	for _, c := range gone {
		p.failNBC(c, c.goneErr())
	}
}

// goneErr is ErrPeerLost if a member of c is gone, else nil.
func (c *Comm) goneErr() error {
	for i, w := range c.members {
		if w != int32(c.p.rank) && c.p.peerGone(w) {
			return &base.Error{Op: "collective", Rank: c.rank, Peer: i, Tag: -1, Err: base.ErrPeerLost,
				Detail: fmt.Sprintf("rank %d left while the others waited for it in a nonblocking collective", i),
				Hint:   base.HintPeerLost}
		}
	}
	return nil
}

// pendingNBC returns the oldest pending call on c, or nil.
func (p *Proc) pendingNBC(c *Comm) *nbcItem {
	if p.nbc.n.Load() == 0 {
		return nil
	}
	p.nbc.mu.Lock()
	defer p.nbc.mu.Unlock()
	for _, it := range p.nbc.items {
		if it.c == c {
			return it
		}
	}
	return nil
}

// waitNBC waits for a nonblocking collective's request, advancing the list
// and sleeping on the step the oldest call of its communicator waits for.
func (p *Proc) waitNBC(r *Request) error {
	c := r.comm
	var sleeper NBCStepper
	err := c.shmWait(func() bool {
		p.pollNBC()
		return r.done.Load() != 0
	}, func(d time.Duration) {
		if it := p.pendingNBC(c); it != nil {
			sleeper = it.s
			sleeper.Sleep(d)
		}
	})
	if err != nil && r.done.Load() == 0 {
		p.failNBC(c, err)
	}
	return nil
}

// DrainNBC completes this rank's pending nonblocking collectives on c (a
// blocking collective on c calls it first: it must not overtake them).
func (c *Comm) DrainNBC() error {
	p := c.p
	if p.nbc.n.Load() == 0 || p.pendingNBC(c) == nil {
		return nil
	}
	err := c.shmWait(func() bool {
		p.pollNBC()
		return p.pendingNBC(c) == nil
	}, func(d time.Duration) {
		if it := p.pendingNBC(c); it != nil {
			it.s.Sleep(d)
		}
	})
	if err != nil {
		p.failNBC(c, err)
	}
	return err
}

// ShmReady reports whether c's last step is closed (released, or never left
// open by this rank): a nonblocking collective may then write its part
// into ShmScratch and arrive (ShmArriveNB) without waiting.
func (c *Comm) ShmReady() bool {
	if !c.shmOpen {
		return true
	}
	if !c.shmCtl().Released(c.shmSeq-1, c.size) {
		return false
	}
	c.shmOpen = false
	return true
}

// ShmArriveNB arrives at the next step without waiting and returns its
// number, leaving the step open; call it after ShmReady and after writing
// this rank's part. ShmReleasedAt then says when the others have arrived.
func (c *Comm) ShmArriveNB() uint64 {
	k := c.shmSeq
	c.arriveOpen(false) // ShmBegin inside does not wait: ShmReady said the last step is closed
	return k
}

// ShmReleasedAt reports whether step k has been released.
func (c *Comm) ShmReleasedAt(k uint64) bool { return c.shmCtl().Released(k, c.size) }

// ShmSleepAt waits at most d, or until step k is released.
func (c *Comm) ShmSleepAt(k uint64, d time.Duration) { c.shmCtl().Sleep(k, c.size, d) }

// ShmScratchAt returns the scratch half of step k.
func (c *Comm) ShmScratchAt(k uint64) []byte { return c.shmHalf(k) }

// NBC reports whether r is a nonblocking collective on shared-memory steps.
func (r *Request) NBC() bool { return r.nbc }
