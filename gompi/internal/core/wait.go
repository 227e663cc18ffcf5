package core

import (
	"fmt"
	"runtime"
	"time"

	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/internal/shm"
)

// policy says how a thread waits: it polls the queue for spin, then gives the
// CPU away (sched_yield) until yield has passed, then sleeps on its doorbell,
// nap at a time, re-checking its peers' liveness between naps.
//
// Spinning answers fastest when every rank has a CPU of its own, and it must
// last well beyond a typical message time: on a machine loaded by other
// processes a peer is often descheduled for a while, and a rank that yields
// or sleeps then may lose its CPU for a whole time slice, which the next
// message pays for (Open MPI spins without end in this case). When ranks
// outnumber CPUs, spinning only steals time from the rank that would answer,
// so waiting ranks give the CPU away at once.
type policy struct {
	spin, yield, nap time.Duration
	gosched          bool // yield with runtime.Gosched (ranks are goroutines)
	sleepFrom        int  // slots of this many ranks or more sleep at once (crowded.go); 0: none
}

func newPolicy(o Options) policy {
	pol := policy{spin: 2 * time.Millisecond, yield: 10 * time.Millisecond, nap: 100 * time.Millisecond}
	if o.InProcess {
		pol.gosched = true
		pol.spin = 200 * time.Microsecond
		pol.yield = 2 * time.Millisecond
	}
	if o.Oversubscribed {
		// Measured on 2 cores with 4..64 ranks: yielding for 2 ms before
		// sleeping beat 20 and 200 µs (shm barrier at 64 ranks 188 µs
		// against 385 µs) and matched yielding without end; the sleep
		// after it keeps long waits off the CPU.
		pol.spin = 0
		pol.yield = 2 * time.Millisecond
	}
	if o.Spin > 0 {
		pol.spin = o.Spin
	}
	if o.Yield > 0 {
		pol.yield = o.Yield
	}
	pol.sleepFrom = crowdedFrom(o)
	return pol
}

// backoff is the state of one wait.
type backoff struct {
	polls    int
	start    time.Time
	last     time.Time // last liveness check
	yielding bool      // the spin window has passed
}

// due counts a poll and reports whether the wait should read the clock and
// act on its policy now. The first clock read comes after 64 polls (a wait
// that ends sooner never reads it); while the spin window lasts, one every
// 256 polls (about a microsecond: a read costs as much as several polls and
// the window is in milliseconds); once it has passed, every poll, since
// each is followed by a yield or a sleep that costs far more.
func (b *backoff) due() bool {
	b.polls++
	switch {
	case b.start.IsZero():
		return b.polls&63 == 0
	case b.yielding:
		return true
	}
	return b.polls&255 == 0
}

// pause waits a little, by the policy; it reports whether the thread slept
// (after which the caller must re-check liveness).
func (b *backoff) pause(p *Proc, ready func() bool) (slept bool) {
	if !b.due() {
		return false
	}
	now := time.Now()
	if b.start.IsZero() {
		b.start, b.last = now, now
	}
	el := now.Sub(b.start)
	b.yielding = el >= p.pol.spin
	switch {
	case el < p.pol.spin:
		return false
	case el < p.pol.spin+p.pol.yield:
		if p.pol.gosched {
			runtime.Gosched()
		} else {
			shm.Yield()
		}
		return now.Sub(b.last) > p.pol.nap
	}
	p.sleep(p.pol.nap, ready)
	return true
}

// pausing is pause for waits that sleep on something other than the
// doorbell: it spins and yields by the policy and reports true when the
// caller should sleep (and then check liveness).
func (b *backoff) pausing(p *Proc) bool {
	if !b.due() {
		return false
	}
	now := time.Now()
	if b.start.IsZero() {
		b.start = now
	}
	el := now.Sub(b.start)
	b.yielding = el >= p.pol.spin
	switch {
	case el < p.pol.spin:
		return false
	case el < p.pol.spin+p.pol.yield:
		if p.pol.gosched {
			runtime.Gosched()
		} else {
			shm.Yield()
		}
		return false
	}
	return true
}

// enterWait counts the calling thread as waiting: while any thread waits, it
// drives progress and the background goroutine stays out of the way.
func (p *Proc) enterWait() {
	if p.waiters.Add(1) == 1 && p.progSleeping.Load() {
		// Wake the background goroutine so that it stops listening on the
		// doorbell: while it sleeps there, every peer rings per message.
		p.ringSelf()
	}
}

// leaveWait undoes enterWait; the last thread to leave hands progress of any
// pending nonblocking operations to the background goroutine.
func (p *Proc) leaveWait() {
	if p.waiters.Add(-1) == 0 && p.pending.Load() > 0 {
		p.kickProgress()
	}
}

// started counts r as a pending operation that needs progress. Caller holds mu.
//
// A blocking call's request is not counted: its own thread waits for it at
// once and drives its progress, and the shared counter would cost it two
// contended atomic operations.
func (p *Proc) started(r *Request) {
	if r.counted || r.blocking {
		return
	}
	r.counted = true
	if p.pending.Add(1) == 1 && p.waiters.Load() == 0 {
		p.kickProgress()
	}
}

// poll drains the queue if there is something to drain and nobody else is
// draining it.
func (p *Proc) poll() {
	if (p.seg.HeadReady(p.local) || p.boxesReady() || p.hasStreams.Load() || p.net != nil) && p.mu.TryLock() {
		p.drainLocked()
		p.mu.Unlock()
	}
	p.pushQueued()
	p.pollNBC()
}

// hasInput reports whether anything waits to be drained, or a queued send
// may go.
func (p *Proc) hasInput() bool { return !p.seg.Empty(p.local) || p.boxesReady() || p.queuedMayMove() }

// waitReq blocks until r completes, driving progress. The caller has called
// enterWait. It returns an error only if the wait itself failed (abort,
// timeout); r's own error is in r.err.
func (p *Proc) waitReq(r *Request) error {
	if r.done.Load() != 0 {
		return nil
	}
	var b backoff
	ready := func() bool { return r.done.Load() != 0 || p.hasInput() }
	for r.done.Load() == 0 {
		p.poll()
		if r.done.Load() != 0 {
			break
		}
		if b.pause(p, ready) {
			b.last = time.Now()
			if err := p.check(r, b.start); err != nil {
				return err
			}
		}
	}
	return nil
}

// waitUntil blocks until try succeeds, progressing communication. try may
// act (take a cell, write a record): it is called only by this loop, and
// the wait ends at its first success. ready, free of side effects, tells a
// thread about to sleep whether try could succeed now; nil means try itself
// has none. r (may be nil) names the operation for liveness checks.
func (p *Proc) waitUntil(r *Request, try, ready func() bool) error {
	p.enterWait()
	defer p.leaveWait()
	if ready == nil {
		ready = try
	}
	var b backoff
	wake := func() bool { return p.hasInput() || ready() }
	for !try() {
		p.poll()
		if try() {
			break
		}
		if b.pause(p, wake) {
			b.last = time.Now()
			if err := p.check(r, b.start); err != nil {
				return err
			}
		}
	}
	return nil
}

// check runs after a sleep: it fails the wait if the job aborts or the wait
// timed out, and completes r with ErrPeerLost if its peer is gone.
func (p *Proc) check(r *Request, since time.Time) error {
	if rank, code, ok := p.seg.Aborted(); ok {
		return base.New(opName(r), base.ErrAborted, fmt.Sprintf("rank %d called Abort(%d)", rank, code), "")
	}
	if p.opts.Cancelled != nil {
		if err := p.opts.Cancelled(); err != nil {
			p.withdraw(r)
			return err
		}
	}
	if p.opts.Timeout > 0 && !since.IsZero() && time.Since(since) > p.opts.Timeout {
		p.withdraw(r)
		return base.New(opName(r), base.ErrTimeout, fmt.Sprintf("no progress for %v", p.opts.Timeout),
			"the peer never sent or received the matching message; raise GOMPI_TIMEOUT if it is just slow")
	}
	p.sweepLost()
	p.failNBCLost()
	if r == nil || !p.lost(r) {
		return nil
	}
	// The peer is gone, but what it sent before it went may still be queued.
	// A send of r's still in its peer's send queue fails there.
	p.pushQueued()
	p.mu.Lock()
	p.drainLocked()
	if r.done.Load() == 0 {
		if r.op == opRecv {
			p.match.Cancel(&r.rv)
		}
		if r.id != 0 {
			delete(p.inflight, r.id)
		}
		if r.streams {
			p.dropStream(r)
		}
		r.err = p.lostErr(opName(r), r)
		p.complete(r)
	}
	p.mu.Unlock()
	return nil
}

// withdraw takes a receive that will no longer be waited for out of the
// posted queue, so that a late message cannot land in a buffer the caller
// has taken back. A send stays in flight: its buffer is still in use.
func (p *Proc) withdraw(r *Request) {
	if r != nil && r.op == opRecv {
		p.cancel(r)
	}
}

// lost reports whether the peer r waits for can no longer answer.
func (p *Proc) lost(r *Request) bool {
	if r.peer == base.ProcNull {
		return false // no peer: a request completed by a goroutine
	}
	if r.peer != base.AnySource {
		return p.peerGone(r.peer)
	}
	for _, w := range r.comm.members {
		if w != int32(p.rank) && !p.peerGone(w) {
			return false
		}
	}
	return r.comm.size > 1
}

func opName(r *Request) string {
	switch {
	case r == nil:
		return "wait"
	case r.op == opRecv:
		return "Recv"
	default:
		return "Send"
	}
}

// kickProgress wakes the background progress goroutine, starting it on first
// use.
func (p *Proc) kickProgress() {
	if p.opts.NoProgress {
		return
	}
	if !p.progressOn.Load() && !p.finalized.Load() && p.progressOn.CompareAndSwap(false, true) {
		p.bg.Add(1)
		go func() {
			defer p.bg.Done()
			p.progressLoop()
		}()
	}
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// armDelay is how long the progress goroutine leaves a fresh nonblocking
// operation alone: most are waited for at once, and a goroutine asleep on the
// doorbell would make every peer pay a wake-up system call per message.
const armDelay = 30 * time.Microsecond

// progressLoop drives progress while nonblocking operations are pending and no
// thread waits — so a receive posted before a computation is filled during it.
func (p *Proc) progressLoop() {
	for {
		select {
		case <-p.kick:
		case <-p.quit:
			return
		}
		time.Sleep(armDelay)
		for p.pending.Load() > 0 && p.waiters.Load() == 0 {
			select {
			case <-p.quit:
				return
			default:
			}
			if p.mu.TryLock() {
				p.drainLocked()
				p.mu.Unlock()
			}
			p.pushQueued()
			p.sweepLost()
			p.pollNBC()
			p.failNBCLost()
			if p.pending.Load() == 0 || p.waiters.Load() != 0 {
				break
			}
			// A nonblocking collective's step is released by the others'
			// arrivals, which ring no doorbell: look again soon.
			nap := 10 * time.Millisecond
			if p.nbc.n.Load() > 0 {
				nap = time.Millisecond
			}
			p.progSleeping.Store(true)
			p.sleep(nap, func() bool {
				return p.hasInput() || p.waiters.Load() != 0 || p.pending.Load() == 0 || p.hasStreams.Load()
			})
			p.progSleeping.Store(false)
		}
	}
}
