package gompi

import (
	"fmt"
	"slices"

	"github.com/gompi/gompi/gompi/internal/backend"
	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/gompi/internal/rma"
)

// Fence closes the window's current fence epoch and opens the next: every
// operation issued before it, by any rank, has taken effect everywhere
// when it returns. It is collective. The first Fence opens the first
// epoch; Lock, LockAll, Start or Post end the fence epochs (they are
// ErrRMASync while operations issued since the last Fence are
// outstanding).
func (x *Win[T]) Fence() error {
	w, err := x.valid("Fence")
	if err != nil {
		return err
	}
	return w.traced(RoutineWinFence, -1, -1, func() error {
		w.mu.Lock()
		open := w.lockAll || w.access != nil || w.exposure != nil || slices.ContainsFunc(w.lockType, func(l uint8) bool { return l != 0 })
		w.mu.Unlock()
		if open {
			return w.errf("Fence", base.ErrRMASync, -1, "a lock, access or exposure epoch is open",
				"close it (Unlock, UnlockAll, Complete, Wait) before a Fence")
		}
		raceSync()
		ferr := w.completeAll("Fence", true)
		barrier := w.barrier
		switch {
		case w.nat != nil:
			barrier = w.natFence // MPI_Win_fence
		case w.direct:
			barrier = w.barrierDirect
		}
		if err := barrier(); err != nil {
			return err
		}
		raceSync()
		w.mu.Lock()
		w.fence = true
		w.gateSet(gateFence, true, -1)
		w.mu.Unlock()
		return ferr
	})
}

// endFence ends the fence epochs before another kind of synchronization;
// operations still outstanding from the last fence make that an error.
// Called with w.mu held.
func (w *window) endFence(name string) error {
	if !w.fence {
		return nil
	}
	for t := range w.n {
		if w.dirty[t] || len(w.pending[t]) > 0 {
			return w.errf(name, base.ErrRMASync, t, "operations issued since the last Fence are outstanding",
				"complete them with a Fence first")
		}
	}
	w.gateSet(gateFence, false, -1)
	w.fence = false
	return nil
}

// Lock opens a passive-target epoch on target: it returns once the target
// granted the lock (shared: with other shared holders; exclusive: alone).
func (x *Win[T]) Lock(typ LockType, target int) error {
	w, err := x.valid("Lock")
	if err != nil {
		return err
	}
	return w.traced(RoutineWinLock, target, -1, func() error {
		if typ != LockShared && typ != LockExclusive {
			return w.errf("Lock", base.ErrArg, target, fmt.Sprintf("lock type %d", typ), "use LockShared or LockExclusive")
		}
		if target == ProcNull {
			return nil
		}
		if target < 0 || target >= w.n {
			return w.errf("Lock", base.ErrRank, target, fmt.Sprintf("target %d is not a rank of the window (0..%d)", target, w.n-1), "")
		}
		w.mu.Lock()
		if err := w.endFence("Lock"); err != nil {
			w.mu.Unlock()
			return err
		}
		if w.lockAll || w.lockType[target] != 0 {
			w.mu.Unlock()
			return w.errf("Lock", base.ErrRMASync, target, "the target is already locked by this rank", "Unlock it first")
		}
		w.lockType[target] = uint8(typ) // claimed now; undone if the grant fails
		w.mu.Unlock()
		var err error
		switch {
		case w.nat != nil:
			err = w.natLock(typ, target)
		case w.direct && typ == LockExclusive:
			err = w.lockExclusive(w.hdrs[target])
		case w.direct:
			err = w.lockShared(w.hdrs[target])
		default:
			err = w.roundTrip("Lock", rma.KindLock, uint8(typ), []int{target})
		}
		w.mu.Lock()
		if err != nil {
			w.lockType[target] = 0
		} else {
			w.gateSet(gateLock, true, target)
		}
		w.mu.Unlock()
		return err
	})
}

// Unlock closes the passive-target epoch on target: every operation of
// this rank to it has taken effect when it returns.
func (x *Win[T]) Unlock(target int) error {
	w, err := x.valid("Unlock")
	if err != nil {
		return err
	}
	return w.traced(RoutineWinUnlock, target, -1, func() error {
		if target == ProcNull {
			return nil
		}
		if target < 0 || target >= w.n {
			return w.errf("Unlock", base.ErrRank, target, fmt.Sprintf("target %d is not a rank of the window (0..%d)", target, w.n-1), "")
		}
		w.mu.Lock()
		typ := w.lockType[target]
		if typ == 0 || w.lockAll {
			w.mu.Unlock()
			return w.errf("Unlock", base.ErrRMASync, target, "the target is not locked by this rank (with Lock)", "")
		}
		w.gateSet(gateLock, false, target)
		w.mu.Unlock()
		err := w.completeTargets("Unlock", []int{target}, false)
		if w.nat != nil {
			if uerr := w.natUnlock(target); err == nil {
				err = uerr
			}
		} else if w.direct {
			w.hdrs[target].unlock(typ)
		} else if rerr := w.roundTrip("Unlock", rma.KindUnlock, typ, []int{target}); err == nil {
			err = rerr
		}
		w.mu.Lock()
		w.lockType[target], w.dirty[target] = 0, false
		w.mu.Unlock()
		return err
	})
}

// LockAll opens a shared passive-target epoch on every rank of the window.
func (x *Win[T]) LockAll() error {
	w, err := x.valid("LockAll")
	if err != nil {
		return err
	}
	return w.traced(RoutineWinLockAll, -1, -1, func() error {
		w.mu.Lock()
		if err := w.endFence("LockAll"); err != nil {
			w.mu.Unlock()
			return err
		}
		if w.lockAll || slices.ContainsFunc(w.lockType, func(l uint8) bool { return l != 0 }) {
			w.mu.Unlock()
			return w.errf("LockAll", base.ErrRMASync, -1, "a lock is already held by this rank", "Unlock or UnlockAll first")
		}
		w.lockAll = true
		w.mu.Unlock()
		var err error
		if w.nat != nil {
			err = w.natLockAll()
		} else if w.direct {
			for i, h := range w.hdrs {
				if err = w.lockShared(h); err != nil {
					for _, held := range w.hdrs[:i] {
						held.unlock(rma.LockShared)
					}
					break
				}
			}
		} else {
			err = w.roundTrip("LockAll", rma.KindLock, rma.LockShared, w.all())
		}
		w.mu.Lock()
		if err != nil {
			w.lockAll = false
		} else {
			w.gateSet(gateLock, true, -1)
		}
		w.mu.Unlock()
		return err
	})
}

// UnlockAll closes the epoch LockAll opened.
func (x *Win[T]) UnlockAll() error {
	w, err := x.valid("UnlockAll")
	if err != nil {
		return err
	}
	return w.traced(RoutineWinUnlockAll, -1, -1, func() error {
		w.mu.Lock()
		if !w.lockAll {
			w.mu.Unlock()
			return w.errf("UnlockAll", base.ErrRMASync, -1, "no LockAll epoch is open", "")
		}
		w.gateSet(gateLock, false, -1)
		w.mu.Unlock()
		all := w.all()
		err := w.completeTargets("UnlockAll", all, false)
		if w.nat != nil {
			if uerr := w.natUnlockAll(); err == nil {
				err = uerr
			}
		} else if w.direct {
			for _, h := range w.hdrs {
				h.unlock(rma.LockShared)
			}
		} else if rerr := w.roundTrip("UnlockAll", rma.KindUnlock, rma.LockShared, all); err == nil {
			err = rerr
		}
		w.mu.Lock()
		w.lockAll = false
		clear(w.dirty)
		w.mu.Unlock()
		return err
	})
}

// Flush completes every operation of this rank to target, at the origin
// and at the target, within a passive-target epoch (which stays open).
func (x *Win[T]) Flush(target int) error {
	// Direct operations are complete when issued: under a lock, an
	// untraced Flush of a direct window is one load of the target's gate.
	if w := x.fast(); w != nil && uint(target) < uint(len(w.gate)) && w.gate[target].Load()&gateLock != 0 {
		raceSync()
		return nil
	}
	return x.flush(RoutineWinFlush, "Flush", target, true)
}

// FlushLocal completes every operation of this rank to target at the
// origin: origin buffers may be reused and results read.
func (x *Win[T]) FlushLocal(target int) error {
	return x.flush(RoutineWinFlushLocal, "FlushLocal", target, false)
}

// FlushAll is Flush of every target.
func (x *Win[T]) FlushAll() error { return x.flush(RoutineWinFlushAll, "FlushAll", -1, true) }

// FlushLocalAll is FlushLocal of every target.
func (x *Win[T]) FlushLocalAll() error {
	return x.flush(RoutineWinFlushLocalAll, "FlushLocalAll", -1, false)
}

func (x *Win[T]) flush(r Routine, name string, target int, remote bool) error {
	w, err := x.valid(name)
	if err != nil {
		return err
	}
	// Direct operations are complete when issued.
	flushed := w.direct && uint(target) < uint(w.n) && w.gate[target].Load()&gateLock != 0
	if flushed && tracer.Load() == nil {
		raceSync()
		return nil
	}
	return w.traced(r, target, -1, func() error {
		if flushed {
			raceSync()
			return nil
		}
		if target == ProcNull {
			return nil
		}
		if target >= w.n {
			return w.errf(name, base.ErrRank, target, fmt.Sprintf("target %d is not a rank of the window (0..%d)", target, w.n-1), "")
		}
		w.mu.Lock()
		ok := w.lockAll || target >= 0 && w.lockType[target] != 0
		if !ok && target < 0 {
			ok = slices.ContainsFunc(w.lockType, func(l uint8) bool { return l != 0 })
		}
		w.mu.Unlock()
		if !ok {
			return w.errf(name, base.ErrRMASync, target, "no passive-target epoch is open on the target", "call Lock or LockAll first")
		}
		if w.direct {
			return w.completeTargets(name, nil, remote) // every operation is complete already
		}
		targets := []int{target}
		if target < 0 {
			targets = w.all()
		}
		err := w.completeTargets(name, targets, remote)
		if w.nat != nil {
			if ferr := w.natFlush(target, remote); err == nil {
				err = ferr
			}
		}
		return err
	})
}

// Sync makes this rank's stores to its own window memory (and to memory of
// WinAllocateShared peers) visible to the others and theirs to it: a full
// memory barrier.
func (x *Win[T]) Sync() error {
	w, err := x.valid("Sync")
	if err != nil {
		return err
	}
	return w.traced(RoutineWinSync, -1, -1, func() error {
		fence()
		raceSync()
		if w.nat != nil {
			return w.natWinSync()
		}
		return nil
	})
}

// Post opens an exposure epoch: the ranks of group may access this rank's
// window between their Start and Complete; Wait or Test closes it.
func (x *Win[T]) Post(group []int) error {
	w, err := x.valid("Post")
	if err != nil {
		return err
	}
	return w.traced(RoutineWinPost, -1, -1, func() error {
		if err := w.checkGroup("Post", group); err != nil {
			return err
		}
		w.mu.Lock()
		if err := w.endFence("Post"); err != nil {
			w.mu.Unlock()
			return err
		}
		if w.exposure != nil {
			w.mu.Unlock()
			return w.errf("Post", base.ErrRMASync, -1, "an exposure epoch is already open", "call Wait first")
		}
		w.exposure = slices.Clone(group)
		w.mu.Unlock()
		raceSync()
		if w.nat != nil {
			return w.natPost(group)
		}
		for _, g := range group {
			if w.direct {
				w.signal(g, &w.posts[g][w.me])
				continue
			}
			if err := w.c.Send(nil, g, tagPost, backend.ModeStandard); err != nil {
				return err
			}
		}
		return nil
	})
}

// Start opens an access epoch to the ranks of group; it waits until each
// has posted.
func (x *Win[T]) Start(group []int) error {
	w, err := x.valid("Start")
	if err != nil {
		return err
	}
	return w.traced(RoutineWinStart, -1, -1, func() error {
		if err := w.checkGroup("Start", group); err != nil {
			return err
		}
		w.mu.Lock()
		if err := w.endFence("Start"); err != nil {
			w.mu.Unlock()
			return err
		}
		if w.access != nil {
			w.mu.Unlock()
			return w.errf("Start", base.ErrRMASync, -1, "an access epoch is already open", "call Complete first")
		}
		w.mu.Unlock()
		if w.direct {
			if _, err := w.arrived(group, w.posts, w.postsSeen, true); err != nil {
				return err
			}
		}
		if w.nat != nil {
			if err := w.natStart(group); err != nil {
				return err
			}
		}
		for _, g := range group {
			if w.direct || w.nat != nil {
				break
			}
			if _, err := w.c.Recv(nil, g, tagPost); err != nil {
				return err
			}
		}
		w.mu.Lock()
		w.access = slices.Clone(group)
		for _, g := range group {
			w.inAccess[g] = true
			w.gateSet(gateStart, true, g)
		}
		w.mu.Unlock()
		return nil
	})
}

// Complete closes the access epoch Start opened: the targets learn that
// this rank's operations to them have taken effect.
func (x *Win[T]) Complete() error {
	w, err := x.valid("Complete")
	if err != nil {
		return err
	}
	return w.traced(RoutineWinComplete, -1, -1, func() error {
		w.mu.Lock()
		group := w.access
		for _, g := range group {
			w.gateSet(gateStart, false, g)
		}
		w.mu.Unlock()
		if group == nil {
			return w.errf("Complete", base.ErrRMASync, -1, "no access epoch is open", "call Start first")
		}
		err := w.completeTargets("Complete", group, false)
		if w.nat != nil {
			if cerr := w.natComplete(); err == nil {
				err = cerr
			}
		}
		var h [rma.HeaderSize]byte
		(&rma.Header{Kind: rma.KindComplete}).Encode(h[:])
		for _, g := range group {
			if w.nat != nil {
				break
			}
			if w.direct {
				w.signal(g, &w.completes[g][w.me])
				continue
			}
			if serr := w.c.Send(h[:], g, tagHeader, backend.ModeStandard); err == nil {
				err = serr
			}
		}
		w.mu.Lock()
		for _, g := range group {
			w.inAccess[g], w.dirty[g] = false, false
		}
		w.access = nil
		w.mu.Unlock()
		return err
	})
}

// Wait closes the exposure epoch Post opened, once every rank of its group
// has called Complete.
func (x *Win[T]) Wait() error {
	w, err := x.valid("Wait")
	if err != nil {
		return err
	}
	return w.traced(RoutineWinWait, -1, -1, func() error {
		_, err := w.waitPosted("Wait", true)
		return err
	})
}

// Test is Wait that does not block: it reports whether the exposure epoch
// is closed (and closes it if so).
func (x *Win[T]) Test() (bool, error) {
	w, err := x.valid("Test")
	if err != nil {
		return false, err
	}
	var done bool
	err = w.traced(RoutineWinTest, -1, -1, func() (err error) {
		done, err = w.waitPosted("Test", false)
		return
	})
	return done, err
}

func (w *window) waitPosted(name string, block bool) (bool, error) {
	w.mu.Lock()
	group := w.exposure
	w.mu.Unlock()
	if group == nil {
		return false, w.errf(name, base.ErrRMASync, -1, "no exposure epoch is open", "call Post first")
	}
	if w.nat != nil {
		if ok, err := w.natWait(block); !ok || err != nil {
			return false, err
		}
		w.mu.Lock()
		w.exposure = nil
		w.mu.Unlock()
		return true, nil
	}
	if w.direct {
		if ok, err := w.arrived(group, w.completes, w.completesSeen, block); !ok || err != nil {
			return false, err
		}
		raceSync()
		w.mu.Lock()
		w.exposure = nil
		w.mu.Unlock()
		return true, nil
	}
	w.cmu.Lock()
	for w.done < len(group) {
		if !block {
			w.cmu.Unlock()
			return false, nil
		}
		if p := w.srvErr.Load(); p != nil {
			w.cmu.Unlock()
			return false, *p
		}
		w.ccond.Wait()
	}
	w.done -= len(group)
	w.cmu.Unlock()
	raceSync()
	w.mu.Lock()
	w.exposure = nil
	w.mu.Unlock()
	return true, nil
}

func (w *window) checkGroup(name string, group []int) error {
	seen := make([]bool, w.n)
	for _, g := range group {
		if g < 0 || g >= w.n {
			return w.errf(name, base.ErrRank, g, fmt.Sprintf("rank %d of the group is not a rank of the window (0..%d)", g, w.n-1), "")
		}
		if seen[g] {
			return w.errf(name, base.ErrArg, g, fmt.Sprintf("rank %d is twice in the group", g), "")
		}
		seen[g] = true
	}
	return nil
}

func (w *window) all() []int {
	all := make([]int, w.n)
	for i := range all {
		all[i] = i
	}
	return all
}

// completeAll completes every outstanding operation of this rank
// (remotely too when remote).
func (w *window) completeAll(name string, remote bool) error {
	return w.completeTargets(name, w.all(), remote)
}

// completeTargets waits for the operations of this rank to targets: their
// sends and replies, and with remote, an acknowledgement from each target
// that took data from it since the last one (the target answers after
// every earlier message of this origin).
func (w *window) completeTargets(name string, targets []int, remote bool) error {
	if w.nat != nil {
		// MPI completes the operations (the caller's MPI call); what
		// is left is what gompi refused to issue.
		w.mu.Lock()
		for _, t := range targets {
			w.dirty[t] = false
		}
		w.mu.Unlock()
		return w.natDeferred(name, targets)
	}
	if w.direct {
		// Direct operations are complete when issued; whatever tells
		// the target (an unlock, a barrier, a flag) is atomic and
		// orders them before it.
		raceSync()
		return nil
	}
	defer raceSync()
	w.mu.Lock()
	var ops []waitOp
	var acks []int
	for _, t := range targets {
		ops = append(ops, w.pending[t]...)
		w.pending[t] = w.pending[t][:0]
		if remote && w.dirty[t] {
			acks = append(acks, t)
			w.dirty[t] = false
		}
	}
	w.mu.Unlock()
	var err error
	if len(acks) > 0 {
		err = w.roundTrip(name, rma.KindFlush, 0, acks)
	}
	for _, op := range ops {
		st, werr := op.req.Wait()
		if werr == nil && op.want > 0 && st.Count != op.want {
			werr = w.errf(name, base.ErrRMARange, st.Source, "an operation read outside the target's window", "attach the memory first (dynamic window)")
		}
		if err == nil {
			err = werr
		}
	}
	return err
}

// roundTrip sends a header of kind to each target and waits for every
// one's one-byte answer.
func (w *window) roundTrip(name string, kind rma.Kind, lock uint8, targets []int) error {
	replies := make([]*backend.Request, len(targets))
	codes := make([]byte, len(targets))
	var err error
	for i, t := range targets {
		h := rma.Header{Kind: kind, Lock: lock, Tag: w.nextTag()}
		replies[i] = w.c.Irecv(codes[i:i+1], t, int(2*h.Tag+2))
		var b [rma.HeaderSize]byte
		h.Encode(b[:])
		if serr := w.c.Send(b[:], t, tagHeader, backend.ModeStandard); serr != nil {
			replies[i].Cancel()
			replies[i], err = nil, serr
		}
	}
	for i, r := range replies {
		if r == nil {
			continue
		}
		if _, werr := r.Wait(); werr != nil && err == nil {
			err = werr
		}
		if codes[i] == replyRange && err == nil {
			err = w.errf(name, base.ErrRMARange, targets[i], "an operation fell outside the target's window; nothing was written",
				"attach the memory first (dynamic window)")
		}
	}
	return err
}
