package gompi

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi/internal/backend"
	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/gompi/internal/rma"
)

// Replace is MPI_REPLACE for Accumulate and its relatives: the target's
// element becomes the origin's (an atomic Put, element by element). It is
// for one-sided operations only.
func Replace[T any]() Op[T] {
	return predefined[T](opReplace, func() coll.Op {
		return coll.Op{Name: fmt.Sprintf("replace[%v]", reflect.TypeFor[T]()), ElemSize: int(unsafe.Sizeof(*new(T))),
			Apply: func(in, inout []byte) { copy(inout, in) }, Predefined: "replace", ElemKind: reflect.TypeFor[T]().Kind()}
	})
}

// NoOp is MPI_NO_OP for GetAccumulate and FetchAndOp: the target's element
// is read atomically and left as it is. It is for one-sided operations
// only.
func NoOp[T any]() Op[T] {
	return predefined[T](opNoOp, func() coll.Op {
		return coll.Op{Name: fmt.Sprintf("no_op[%v]", reflect.TypeFor[T]()), ElemSize: int(unsafe.Sizeof(*new(T))), Commutative: true,
			Apply: func(in, inout []byte) {}, Predefined: "no_op", ElemKind: reflect.TypeFor[T]().Kind()}
	})
}

// Put stores origin into the target's window from displacement disp. The
// transfer may complete at any time until the epoch's end (or a Flush):
// do not change origin before then.
func (x *Win[T]) Put(origin []T, target, disp int) error {
	if w := x.fast(); w != nil && w.open(target, disp, len(origin), false) {
		copyIn(w.addr(target, disp), origin) // the same-host path, untraced: no call on the way
		return nil
	}
	w, err := x.valid("Put")
	if err != nil {
		return err
	}
	b := bytesOf(origin)
	return w.traced(RoutineWinPut, target, len(b), func() error {
		_, err := w.put("Put", b, target, disp, false)
		return err
	})
}

// Rput is Put returning a request that completes when origin may be
// reused (local completion); the data has reached the target after a
// Flush or Unlock. Only within a passive-target epoch (Lock or LockAll).
func (x *Win[T]) Rput(origin []T, target, disp int) (*Request, error) {
	w, err := x.valid("Rput")
	if err != nil {
		return nil, err
	}
	b := bytesOf(origin)
	var r *backend.Request
	err = w.traced(RoutineWinRput, target, len(b), func() (err error) {
		r, err = w.put("Rput", b, target, disp, true)
		return
	})
	return w.request(r, err)
}

// Get loads count = len(result) elements of the target's window from disp
// into result. result holds them once the epoch ends (or after a Flush or
// FlushLocal); do not read it before.
func (x *Win[T]) Get(result []T, target, disp int) error {
	if w := x.fast(); w != nil && w.open(target, disp, len(result), false) {
		copyOut(result, w.addr(target, disp))
		return nil
	}
	w, err := x.valid("Get")
	if err != nil {
		return err
	}
	b := bytesOf(result)
	return w.traced(RoutineWinGet, target, len(b), func() error {
		_, err := w.get("Get", b, target, disp, false)
		return err
	})
}

// Rget is Get returning a request that completes when result holds the
// data. Only within a passive-target epoch.
func (x *Win[T]) Rget(result []T, target, disp int) (*Request, error) {
	w, err := x.valid("Rget")
	if err != nil {
		return nil, err
	}
	b := bytesOf(result)
	var r *backend.Request
	err = w.traced(RoutineWinRget, target, len(b), func() (err error) {
		r, err = w.get("Rget", b, target, disp, true)
		return
	})
	return w.request(r, err)
}

// Accumulate combines origin into the target's window from disp with op:
// target[disp+i] = origin[i] op target[disp+i], atomically per element.
// op is a predefined operator for T (Sum[T](), Max[T](), Replace[T](),
// ...); user-defined operators are ErrRMAOp, as in MPI.
func (x *Win[T]) Accumulate(origin []T, target, disp int, op Op[T]) error {
	if w := x.fast(); w != nil && w.open(target, disp, len(origin), false) {
		if last := w.lastOp.Load(); last != nil && last.op == op.op {
			// The same-host path, untraced, with the operator of the last call.
			w.accDirect(last.code, bytesOf(origin), nil, target, disp, len(origin))
			return nil
		}
	}
	w, err := x.valid("Accumulate")
	if err != nil {
		return err
	}
	b := bytesOf(origin)
	return w.traced(RoutineWinAccumulate, target, len(b), func() error {
		_, err := w.acc("Accumulate", rma.KindAcc, b, nil, target, disp, op.op, false)
		return err
	})
}

// Raccumulate is Accumulate returning a request that completes when origin
// may be reused. Only within a passive-target epoch.
func (x *Win[T]) Raccumulate(origin []T, target, disp int, op Op[T]) (*Request, error) {
	w, err := x.valid("Raccumulate")
	if err != nil {
		return nil, err
	}
	b := bytesOf(origin)
	var r *backend.Request
	err = w.traced(RoutineWinRaccumulate, target, len(b), func() (err error) {
		r, err = w.acc("Raccumulate", rma.KindAcc, b, nil, target, disp, op.op, true)
		return
	})
	return w.request(r, err)
}

// GetAccumulate loads the target's elements from disp into result and
// combines origin into them with op, atomically per element. With NoOp,
// origin is not used (it may be nil): an atomic Get. result holds the old
// elements once the epoch ends (or after a Flush).
func (x *Win[T]) GetAccumulate(origin, result []T, target, disp int, op Op[T]) error {
	if w := x.fast(); w != nil && len(origin) == len(result) && w.open(target, disp, len(result), false) {
		if last := w.lastOp.Load(); last != nil && last.op == op.op {
			w.accDirect(last.code, bytesOf(origin), bytesOf(result), target, disp, len(result))
			return nil
		}
	}
	w, err := x.valid("GetAccumulate")
	if err != nil {
		return err
	}
	b, r := bytesOf(origin), bytesOf(result)
	return w.traced(RoutineWinGetAccumulate, target, len(r), func() error {
		_, err := w.acc("GetAccumulate", rma.KindGetAcc, b, r, target, disp, op.op, false)
		return err
	})
}

// RgetAccumulate is GetAccumulate returning a request that completes when
// result holds the old elements. Only within a passive-target epoch.
func (x *Win[T]) RgetAccumulate(origin, result []T, target, disp int, op Op[T]) (*Request, error) {
	w, err := x.valid("RgetAccumulate")
	if err != nil {
		return nil, err
	}
	b, rb := bytesOf(origin), bytesOf(result)
	var r *backend.Request
	err = w.traced(RoutineWinRgetAccumulate, target, len(rb), func() (err error) {
		r, err = w.acc("RgetAccumulate", rma.KindGetAcc, b, rb, target, disp, op.op, true)
		return
	})
	return w.request(r, err)
}

// FetchAndOp is GetAccumulate of one element: *result receives the
// target's element at disp, which becomes origin op itself.
func (x *Win[T]) FetchAndOp(origin T, result *T, target, disp int, op Op[T]) error {
	if w := x.fast(); w != nil && result != nil && w.open(target, disp, 1, false) {
		if last := w.lastOp.Load(); last != nil && last.op == op.op {
			// The same-host path, untraced, with the operator of the last call.
			w.accDirect(last.code, unsafe.Slice((*byte)(unsafe.Pointer(&origin)), w.elem), bytesOf(unsafe.Slice(result, 1)), target, disp, 1)
			return nil
		}
	}
	w, err := x.valid("FetchAndOp")
	if err != nil {
		return err
	}
	if result == nil {
		return w.errf("FetchAndOp", base.ErrArg, target, "result is nil", "pass where the old element is to go")
	}
	return w.traced(RoutineWinFetchAndOp, target, w.elem, func() error {
		res := bytesOf(unsafe.Slice(result, 1))
		if w.direct {
			// Same host: no copy of origin is kept, so it needs no heap.
			return w.fetchDirect(unsafe.Slice((*byte)(unsafe.Pointer(&origin)), w.elem), res, target, disp, op.op)
		}
		_, err := w.acc("FetchAndOp", rma.KindGetAcc, bytesOf([]T{origin}), res, target, disp, op.op, false)
		return err
	})
}

// CompareAndSwap compares the target's element at disp with compare and,
// if they are equal bit for bit, replaces it with origin; *result receives
// the element as it was. T must be an integer or bool type (ErrRMAOp
// otherwise), as in MPI.
func (x *Win[T]) CompareAndSwap(origin, compare T, result *T, target, disp int) error {
	if w := x.fast(); w != nil && result != nil && w.open(target, disp, 1, false) && rma.SupportsCAS(w.kind) {
		oc := [2]T{origin, compare}
		w.casDirect(bytesOf(oc[:]), bytesOf(unsafe.Slice(result, 1)), target, disp)
		return nil
	}
	w, err := x.valid("CompareAndSwap")
	if err != nil {
		return err
	}
	if result == nil {
		return w.errf("CompareAndSwap", base.ErrArg, target, "result is nil", "pass where the old element is to go")
	}
	return w.traced(RoutineWinCompareAndSwap, target, w.elem, func() error {
		oc := [2]T{origin, compare} // stays on the stack on the same-host path
		return w.cas(bytesOf(oc[:]), bytesOf(unsafe.Slice(result, 1)), target, disp)
	})
}

// request wraps a backend request for the caller; a ProcNull target gives a
// completed one.
func (w *window) request(r *backend.Request, err error) (*Request, error) {
	if err != nil {
		return nil, err
	}
	if r == nil {
		return (*Request)(backend.NewDone(w.c, procNullStatus, false)), nil
	}
	return (*Request)(r), nil
}

// check validates target, displacement and count (in elements) of an
// operation and that an epoch gives access to the target; it returns false
// for ProcNull (nothing to do). Called with w.mu held.
func (w *window) check(name string, target, disp, count int, passive bool) (bool, error) {
	if target == ProcNull {
		return false, nil
	}
	if target < 0 || target >= w.n {
		return false, w.errf(name, base.ErrRank, target, fmt.Sprintf("target %d is not a rank of the window (0..%d)", target, w.n-1), "")
	}
	if disp < 0 {
		return false, w.errf(name, base.ErrRMARange, target, fmt.Sprintf("displacement %d is negative", disp), "")
	}
	if w.flavor != flavorDynamic && count > w.sizes[target]-disp {
		return false, w.errf(name, base.ErrRMARange, target,
			fmt.Sprintf("elements %d..%d are outside the target's window of %d", disp, disp+count-1, w.sizes[target]),
			"keep displacement plus count within the target's size")
	}
	if w.lockAll || w.lockType[target] != 0 {
		return true, nil
	}
	if passive {
		return false, w.errf(name, base.ErrRMASync, target, "request-based operations need a passive-target epoch",
			"call Lock or LockAll first")
	}
	if w.fence || w.access != nil && w.inAccess[target] {
		return true, nil
	}
	return false, w.errf(name, base.ErrRMASync, target, "no epoch gives access to this target",
		"open one first: Fence, Start (with the target in the group), Lock or LockAll")
}

// opChecked is an operator opCode accepted last, so that a loop with one
// operator checks it once.
type opChecked struct {
	op   *coll.Op
	name string
	size int
	code rma.OpCode
}

// opCode checks that op can combine elements of the window.
func (w *window) opCode(name string, target int, op *coll.Op) (rma.OpCode, error) {
	if op == nil {
		return 0, w.errf(name, base.ErrArg, target, "the operator is nil (a zero Op)", "pass a predefined operator such as gompi.Sum[int64]()")
	}
	last := w.lastOp.Load()
	if last != nil && last.op == op {
		return last.code, nil // the same predefined operator (they are made once per type)
	}
	if last != nil && last.name == op.Name && last.size == op.ElemSize && op.Predefined != "" {
		return last.code, nil
	}
	code, err := w.checkOp(name, target, op)
	if err == nil {
		w.lastOp.Store(&opChecked{op, op.Name, op.ElemSize, code})
	}
	return code, err
}

func (w *window) checkOp(name string, target int, op *coll.Op) (rma.OpCode, error) {
	if op.Predefined == "" {
		return 0, w.errf(name, base.ErrRMAOp, target, fmt.Sprintf("operator %s is user-defined", op.Name),
			"one-sided operations take only predefined operators (MPI's rule)")
	}
	code, ok := rma.ParseOp(op.Predefined)
	if !ok {
		return 0, w.errf(name, base.ErrRMAOp, target, fmt.Sprintf("operator %s has no one-sided form", op.Name),
			"use sum, prod, min, max, the logical and bitwise operators, Replace or NoOp")
	}
	if code.IsLoc() {
		if w.loc == nil || op.ElemSize != w.elem || op.ElemKind != w.loc.Kind {
			return 0, w.errf(name, base.ErrRMAOp, target, fmt.Sprintf("operator %s is for another element type than %v", op.Name, w.typ),
				"MinLoc and MaxLoc take a window of gompi.ValueIndex of the same value type")
		}
		return code, nil
	}
	if op.ElemSize != w.elem || code != rma.OpReplace && code != rma.OpNoOp && op.ElemKind != w.kind {
		return 0, w.errf(name, base.ErrRMAOp, target, fmt.Sprintf("operator %s is for another element type than %v", op.Name, w.typ),
			"make the operator for the window's element type")
	}
	if !rma.Supports(code, w.kind) {
		return 0, w.errf(name, base.ErrRMAOp, target, fmt.Sprintf("operator %s does not apply to %v", op.Name, w.typ), "")
	}
	return code, nil
}

// send sends header h to target, with payload inline when it fits, and
// records the sends as pending (or returns the last one's request when
// own). Called with w.mu held.
func (w *window) send(h *rma.Header, payload []byte, target int, own bool) (*backend.Request, error) {
	var msg []byte
	if rma.HeaderSize+len(payload) <= inlineMax {
		h.Flags |= rma.FlagInline
		msg = make([]byte, rma.HeaderSize+len(payload))
		copy(msg[rma.HeaderSize:], payload)
		payload = nil
	} else {
		msg = make([]byte, rma.HeaderSize)
	}
	h.Encode(msg)
	r, err := w.c.Isend(msg, target, tagHeader, backend.ModeStandard)
	if err != nil {
		return nil, err
	}
	if payload != nil {
		w.pending[target] = append(w.pending[target], waitOp{req: r})
		if r, err = w.c.Isend(payload, target, int(2*h.Tag+1), backend.ModeStandard); err != nil {
			return nil, err
		}
	}
	if own {
		return r, nil
	}
	w.pending[target] = append(w.pending[target], waitOp{req: r})
	return nil, nil
}

func (w *window) put(name string, b []byte, target, disp int, own bool) (*backend.Request, error) {
	if w.open(target, disp, len(b)/w.elem, own) {
		copy(w.at(target, disp, len(b)/w.elem), b)
		return nil, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if ok, err := w.check(name, target, disp, len(b)/w.elem, own); !ok || err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, nil
	}
	if w.nat != nil {
		return w.natOp(name, natPut, b, nil, nil, target, disp, len(b)/w.elem, 0, own)
	}
	if w.direct {
		copy(w.at(target, disp, len(b)/w.elem), b)
		return nil, nil
	}
	h := rma.Header{Kind: rma.KindPut, Tag: w.nextTag(), Disp: uint64(disp), Count: uint64(len(b) / w.elem)}
	w.dirty[target] = true
	return w.send(&h, b, target, own)
}

func (w *window) get(name string, b []byte, target, disp int, own bool) (*backend.Request, error) {
	if w.open(target, disp, len(b)/w.elem, own) {
		copy(b, w.at(target, disp, len(b)/w.elem))
		return nil, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if ok, err := w.check(name, target, disp, len(b)/w.elem, own); !ok || err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, nil
	}
	if w.nat != nil {
		return w.natOp(name, natGet, nil, nil, b, target, disp, len(b)/w.elem, 0, own)
	}
	if w.direct {
		copy(b, w.at(target, disp, len(b)/w.elem))
		return nil, nil
	}
	h := rma.Header{Kind: rma.KindGet, Tag: w.nextTag(), Disp: uint64(disp), Count: uint64(len(b) / w.elem)}
	reply := w.c.Irecv(b, target, int(2*h.Tag+2))
	if _, err := w.send(&h, nil, target, false); err != nil {
		reply.Cancel()
		return nil, err
	}
	if own {
		return reply, nil
	}
	w.pending[target] = append(w.pending[target], waitOp{req: reply, want: len(b)})
	return nil, nil
}

// fetchDirect is FetchAndOp on the same-host path.
func (w *window) fetchDirect(origin, result []byte, target, disp int, op *coll.Op) error {
	code, err := w.opCode("FetchAndOp", target, op)
	if err != nil {
		return err
	}
	if w.open(target, disp, 1, false) {
		w.accDirect(code, origin, result, target, disp, 1)
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if ok, err := w.check("FetchAndOp", target, disp, 1, false); !ok || err != nil {
		return err
	}
	w.accDirect(code, origin, result, target, disp, 1)
	return nil
}

// acc sends an Accumulate (result nil) or a GetAccumulate.
func (w *window) acc(name string, kind rma.Kind, origin, result []byte, target, disp int, op *coll.Op, own bool) (*backend.Request, error) {
	code, err := w.opCode(name, target, op)
	if err != nil {
		return nil, err
	}
	count := len(origin) / w.elem
	if kind == rma.KindGetAcc {
		count = len(result) / w.elem
		if code == rma.OpNoOp {
			origin = nil
		} else if len(origin) != len(result) {
			return nil, w.errf(name, base.ErrArg, target, fmt.Sprintf("origin holds %d elements, result %d", len(origin)/w.elem, count),
				"give origin and result the same length (origin may be nil with NoOp)")
		}
	}
	if w.open(target, disp, count, own) {
		if kind == rma.KindAcc {
			result = nil
		}
		w.accDirect(code, origin, result, target, disp, count)
		return nil, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if ok, err := w.check(name, target, disp, count, own); !ok || err != nil {
		return nil, err
	}
	if count == 0 {
		return nil, nil
	}
	if w.nat != nil {
		which := natAcc
		switch {
		case kind == rma.KindGetAcc && name == "FetchAndOp":
			which = natFetch
		case kind == rma.KindGetAcc:
			which = natGetAcc
		}
		return w.natOp(name, which, origin, nil, result, target, disp, count, code, own)
	}
	if w.direct {
		if kind == rma.KindAcc {
			result = nil
		}
		w.accDirect(code, origin, result, target, disp, count)
		return nil, nil
	}
	h := rma.Header{Kind: kind, Op: code, Tag: w.nextTag(), Disp: uint64(disp), Count: uint64(count)}
	w.dirty[target] = true
	if kind == rma.KindAcc {
		return w.send(&h, origin, target, own)
	}
	reply := w.c.Irecv(result, target, int(2*h.Tag+2))
	if _, err := w.send(&h, origin, target, false); err != nil {
		reply.Cancel()
		return nil, err
	}
	if own {
		return reply, nil
	}
	w.pending[target] = append(w.pending[target], waitOp{req: reply, want: len(result)})
	return nil, nil
}

func (w *window) cas(originCompare, result []byte, target, disp int) error {
	if !rma.SupportsCAS(w.kind) {
		return w.errf("CompareAndSwap", base.ErrRMAOp, target, fmt.Sprintf("element type %v is not an integer or bool", w.typ),
			"compare-and-swap works on integer and bool elements (MPI's rule)")
	}
	if w.open(target, disp, 1, false) {
		w.casDirect(originCompare, result, target, disp)
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if ok, err := w.check("CompareAndSwap", target, disp, 1, false); !ok || err != nil {
		return err
	}
	if w.nat != nil {
		_, err := w.natOp("CompareAndSwap", natCAS, originCompare[:w.elem], originCompare[w.elem:], result, target, disp, 1, 0, false)
		return err
	}
	if w.direct {
		w.casDirect(originCompare, result, target, disp)
		return nil
	}
	h := rma.Header{Kind: rma.KindCAS, Tag: w.nextTag(), Disp: uint64(disp), Count: 1}
	w.dirty[target] = true
	reply := w.c.Irecv(result, target, int(2*h.Tag+2))
	// A copy goes out, so that originCompare can live on the caller's stack.
	if _, err := w.send(&h, append([]byte(nil), originCompare...), target, false); err != nil {
		reply.Cancel()
		return err
	}
	w.pending[target] = append(w.pending[target], waitOp{req: reply, want: len(result)})
	return nil
}
