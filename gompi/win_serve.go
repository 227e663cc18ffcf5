package gompi

import (
	"github.com/gompi/gompi/gompi/internal/backend"
	"github.com/gompi/gompi/gompi/internal/rma"
)

// Reply codes of Flush, Unlock and Lock acknowledgements.
const (
	replyOK    = 0
	replyRange = 1 // an earlier operation of this origin fell outside the window
)

// serve is the window's service goroutine: it receives the active messages
// of every origin (this rank included) on the private communicator, in
// arrival order, and carries them out on this rank's memory. It is what
// makes passive-target operations complete while the rank's own goroutines
// compute: the engine below delivers to it without their help.
func (w *window) serve() {
	defer func() {
		close(w.stopped)
		w.ccond.Broadcast() // a Wait must not sleep on a service that is gone
	}()
	buf := make([]byte, inlineMax)
	var scratch, old []byte
	var grants []rma.Waiter
	for {
		st, err := w.c.Recv(buf, AnySource, tagHeader)
		if err != nil {
			if !w.freed.Load() {
				w.srvErr.Store(&err)
			}
			return
		}
		var h rma.Header
		payload, err := h.Decode(buf[:st.Count])
		if err != nil {
			continue // not from a window: nothing else sends on this communicator
		}
		o := st.Source
		n := int(h.Count) * w.elem
		payTag, replyTag := int(2*h.Tag+1), int(2*h.Tag+2)
		switch h.Kind {
		case rma.KindStop:
			return
		case rma.KindPut:
			dst := w.target(h.Disp, h.Count)
			if dst == nil {
				w.errs[o] = replyRange
			}
			if h.Flags&rma.FlagInline != 0 {
				raceLock()
				copy(dst, payload)
				raceUnlock()
				continue
			}
			if dst == nil || raceEnabled {
				scratch = grow(scratch, n)
				w.c.Recv(scratch, o, payTag)
				raceLock()
				copy(dst, scratch)
				raceUnlock()
				continue
			}
			w.c.Recv(dst, o, payTag) // straight into the window: one copy
		case rma.KindGet:
			src := w.target(h.Disp, h.Count)
			if raceEnabled && src != nil {
				scratch = grow(scratch, n)
				raceLock()
				copy(scratch, src)
				raceUnlock()
				src = scratch
			}
			w.c.Send(src, o, replyTag, backend.ModeStandard) // empty if refused: the origin sees the short count
		case rma.KindAcc, rma.KindGetAcc:
			in := payload
			if h.Flags&rma.FlagInline == 0 && (h.Kind == rma.KindAcc || h.Op != rma.OpNoOp) {
				scratch = grow(scratch, n)
				in = scratch
				w.c.Recv(in, o, payTag)
			}
			dst := w.target(h.Disp, h.Count)
			if h.Kind == rma.KindGetAcc {
				if dst == nil {
					w.c.Send(nil, o, replyTag, backend.ModeStandard)
					continue
				}
				old = grow(old, n)
				raceLock()
				copy(old, dst)
				w.combine(h.Op, dst, in[:n], nil)
				raceUnlock()
				w.c.Send(old, o, replyTag, backend.ModeStandard)
				continue
			}
			if dst == nil {
				w.errs[o] = replyRange
				continue
			}
			raceLock()
			w.combine(h.Op, dst, in[:n], nil)
			raceUnlock()
		case rma.KindCAS:
			dst := w.target(h.Disp, 1)
			if dst == nil || len(payload) < 2*w.elem {
				w.c.Send(nil, o, replyTag, backend.ModeStandard)
				continue
			}
			old = grow(old, w.elem)
			raceLock()
			rma.CAS(w.elem, dst, payload[:w.elem], payload[w.elem:2*w.elem], old)
			raceUnlock()
			w.c.Send(old, o, replyTag, backend.ModeStandard)
		case rma.KindLock:
			if w.locks.Acquire(rma.Waiter{Origin: o, Type: h.Lock, Tag: h.Tag}) {
				w.reply(o, replyTag, replyOK)
			}
		case rma.KindUnlock:
			grants = w.locks.Release(h.Lock, grants[:0])
			w.reply(o, replyTag, w.errs[o])
			w.errs[o] = replyOK
			for _, g := range grants {
				w.reply(g.Origin, int(2*g.Tag+2), replyOK)
			}
		case rma.KindFlush:
			w.reply(o, replyTag, w.errs[o])
			w.errs[o] = replyOK
		case rma.KindComplete:
			w.cmu.Lock()
			w.done++
			w.cmu.Unlock()
			w.ccond.Broadcast()
		}
	}
}

func (w *window) reply(to, tag int, code uint8) {
	b := [1]byte{code}
	w.c.Send(b[:], to, tag, backend.ModeStandard)
}

// target returns count elements of this rank's memory from disp, or nil if
// they are not all inside the window.
func (w *window) target(disp, count uint64) []byte {
	if w.flavor == flavorDynamic {
		w.regMu.RLock()
		defer w.regMu.RUnlock()
		return w.regions.Find(disp, count, w.elem)
	}
	size := uint64(len(w.mem) / w.elem)
	if disp > size || count > size-disp {
		return nil
	}
	e := uint64(w.elem)
	return w.mem[disp*e : (disp+count)*e]
}

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}
