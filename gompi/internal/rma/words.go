package rma

import (
	"encoding/binary"
	"reflect"
	"sync/atomic"
	"unsafe"
)

// Atomic instructions on 4- and 8-byte integers in window memory, one
// generic code for both sizes: each helper picks the instruction by the
// size of W, a constant in each instantiation.

// word is the unsigned integer of an element's size.
type word interface{ ~uint32 | ~uint64 }

func is4[W word]() bool { var w W; return unsafe.Sizeof(w) == 4 }

func p32[W word](p *W) *uint32 { return (*uint32)(unsafe.Pointer(p)) }
func p64[W word](p *W) *uint64 { return (*uint64)(unsafe.Pointer(p)) }

func load[W word](p *W) W {
	if is4[W]() {
		return W(atomic.LoadUint32(p32(p)))
	}
	return W(atomic.LoadUint64(p64(p)))
}

func cas[W word](p *W, old, new W) bool {
	if is4[W]() {
		return atomic.CompareAndSwapUint32(p32(p), uint32(old), uint32(new))
	}
	return atomic.CompareAndSwapUint64(p64(p), uint64(old), uint64(new))
}

// add, and, or and swap return the element as it was.
func add[W word](p *W, v W) W {
	if is4[W]() {
		return W(atomic.AddUint32(p32(p), uint32(v))) - v
	}
	return W(atomic.AddUint64(p64(p), uint64(v))) - v
}

func and[W word](p *W, v W) W {
	if is4[W]() {
		return W(atomic.AndUint32(p32(p), uint32(v)))
	}
	return W(atomic.AndUint64(p64(p), uint64(v)))
}

func or[W word](p *W, v W) W {
	if is4[W]() {
		return W(atomic.OrUint32(p32(p), uint32(v)))
	}
	return W(atomic.OrUint64(p64(p), uint64(v)))
}

func swap[W word](p *W, v W) W {
	if is4[W]() {
		return W(atomic.SwapUint32(p32(p), uint32(v)))
	}
	return W(atomic.SwapUint64(p64(p), uint64(v)))
}

// get and put read and write an element in the machine's own byte order
// (window memory is only ever shared on one host); each is one load or
// store, where a copy was a call.
func get[W word](b []byte) W {
	if is4[W]() {
		return W(binary.NativeEndian.Uint32(b))
	}
	return W(binary.NativeEndian.Uint64(b))
}

func put[W word](b []byte, v W) {
	if is4[W]() {
		binary.NativeEndian.PutUint32(b, uint32(v))
	} else {
		binary.NativeEndian.PutUint64(b, uint64(v))
	}
}

func aligned[W word](b []byte) bool {
	var w W
	return len(b) > 0 && uintptr(unsafe.Pointer(&b[0]))%unsafe.Sizeof(w) == 0
}

func isSigned(k reflect.Kind) bool {
	return k == reflect.Int || k == reflect.Int8 || k == reflect.Int16 || k == reflect.Int32 || k == reflect.Int64
}

// words combines aligned 4- or 8-byte integers with atomic instructions,
// element by element, and stores the elements as they were in old when
// old is not nil. It reports false (and does nothing) for other elements
// or unaligned memory.
func words(op OpCode, k reflect.Kind, size int, dst, src, old []byte) bool {
	if !isInt(k) {
		return false
	}
	switch size {
	case 4:
		return atomicWords[uint32](op, isSigned(k), dst, src, old)
	case 8:
		return atomicWords[uint64](op, isSigned(k), dst, src, old)
	}
	return false
}

// atomicWords is words for elements of W: Sum, BAnd, BOr, Replace and
// NoOp are one instruction each, the others a loop of compare-and-swap.
func atomicWords[W word](op OpCode, signed bool, dst, src, old []byte) bool {
	if !aligned[W](dst) {
		return false
	}
	n := int(unsafe.Sizeof(W(0)))
	d := as[W](dst)
	for i := range d {
		var s, o W
		if op != OpNoOp {
			s = get[W](src[n*i:])
		}
		switch op {
		case OpSum:
			o = add(&d[i], s)
		case OpBAnd:
			o = and(&d[i], s)
		case OpBOr:
			o = or(&d[i], s)
		case OpReplace:
			o = swap(&d[i], s)
		case OpNoOp:
			o = load(&d[i])
		default:
			for {
				o = load(&d[i])
				if r := combineWord(op, signed, o, s); r == o || cas(&d[i], o, r) {
					break
				}
			}
		}
		if old != nil {
			put(old[n*i:], o)
		}
	}
	return true
}

// combineWord is s op o, for elements signed or not.
func combineWord[W word](op OpCode, signed bool, o, s W) W {
	switch {
	case !signed:
		x := [1]W{o}
		ints(op, x[:], []W{s})
		return x[0]
	case is4[W]():
		x := [1]int32{int32(o)}
		ints(op, x[:], []int32{int32(s)})
		return W(uint32(x[0]))
	default:
		x := [1]int64{int64(o)}
		ints(op, x[:], []int64{int64(s)})
		return W(uint64(x[0]))
	}
}

// casWord is CAS of an aligned element of W.
func casWord[W word](dst, origin, compare, old []byte) {
	p := &as[W](dst)[0]
	o, c := get[W](origin), get[W](compare)
	for {
		v := load(p)
		if v != c || cas(p, c, o) {
			put(old, v)
			return
		}
	}
}
