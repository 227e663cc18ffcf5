package rma

import (
	"bytes"
	"reflect"
	"sync/atomic"
	"unsafe"
)

// OpCode is an accumulate operation as it travels in a Header. Only MPI's
// predefined operations exist here (as in MPI): the target applies them on
// its own, knowing its element type, without the origin's function.
type OpCode uint8

// The operations.
const (
	OpNone OpCode = iota // no operation (Put, Get)
	OpSum
	OpProd
	OpMin
	OpMax
	OpLAnd
	OpLOr
	OpLXor
	OpBAnd
	OpBOr
	OpBXor
	OpReplace
	OpNoOp
	OpMinLoc // pairs only (Loc)
	OpMaxLoc
	opEnd
)

var opNames = [...]string{OpNone: "", OpSum: "sum", OpProd: "prod", OpMin: "min", OpMax: "max", OpLAnd: "land",
	OpLOr: "lor", OpLXor: "lxor", OpBAnd: "band", OpBOr: "bor", OpBXor: "bxor", OpReplace: "replace", OpNoOp: "no_op",
	OpMinLoc: "minloc", OpMaxLoc: "maxloc"}

func (o OpCode) String() string {
	if o < opEnd {
		return opNames[o]
	}
	return "op(?)"
}

// ParseOp returns the operation MPI calls name ("sum", "replace", ...), as
// package coll's Op.Predefined spells it.
func ParseOp(name string) (OpCode, bool) {
	for o := OpSum; o < opEnd; o++ {
		if opNames[o] == name {
			return o, true
		}
	}
	return OpNone, false
}

func isInt(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

func isFloat(k reflect.Kind) bool { return k == reflect.Float32 || k == reflect.Float64 }

func isComplex(k reflect.Kind) bool { return k == reflect.Complex64 || k == reflect.Complex128 }

// Supports reports whether op can combine elements of kind k (the kind of
// the window's element type; Struct or Array for composite types, which
// only Replace and NoOp can handle), following MPI's table of operations
// and types.
func Supports(op OpCode, k reflect.Kind) bool {
	switch op {
	case OpReplace, OpNoOp:
		return true
	case OpSum, OpProd:
		return isInt(k) || isFloat(k) || isComplex(k)
	case OpMin, OpMax:
		return isInt(k) || isFloat(k)
	case OpLAnd, OpLOr, OpLXor:
		return isInt(k) || isFloat(k) || k == reflect.Bool
	case OpBAnd, OpBOr, OpBXor:
		return isInt(k)
	}
	return false
}

// SupportsCAS reports whether compare-and-swap works on kind k (MPI: integer
// and logical types).
func SupportsCAS(k reflect.Kind) bool { return isInt(k) || k == reflect.Bool }

// Apply combines src into dst element by element (dst[i] = src[i] op
// dst[i]); size is the element size, and both slices hold the same whole
// number of elements. The caller has checked Supports. Aligned 4- and
// 8-byte integers are combined with atomic instructions (words), so that
// origins on the same host that update them directly (Accumulate,
// FetchAndOp, CompareAndSwap) and the target's service never lose an
// update of each other.
func Apply(op OpCode, k reflect.Kind, size int, dst, src []byte) {
	if op == OpNoOp || words(op, k, size, dst, src, nil) {
		return
	}
	if op == OpReplace {
		copy(dst, src)
		return
	}
	switch k {
	case reflect.Int8:
		ints(op, as[int8](dst), as[int8](src))
	case reflect.Int16:
		ints(op, as[int16](dst), as[int16](src))
	case reflect.Int32:
		ints(op, as[int32](dst), as[int32](src))
	case reflect.Int64, reflect.Int:
		if size == 4 {
			ints(op, as[int32](dst), as[int32](src))
			return
		}
		ints(op, as[int64](dst), as[int64](src))
	case reflect.Uint8:
		ints(op, as[uint8](dst), as[uint8](src))
	case reflect.Uint16:
		ints(op, as[uint16](dst), as[uint16](src))
	case reflect.Uint32:
		ints(op, as[uint32](dst), as[uint32](src))
	case reflect.Uint64, reflect.Uint, reflect.Uintptr:
		if size == 4 {
			ints(op, as[uint32](dst), as[uint32](src))
			return
		}
		ints(op, as[uint64](dst), as[uint64](src))
	case reflect.Float32:
		floats(op, as[float32](dst), as[float32](src))
	case reflect.Float64:
		floats(op, as[float64](dst), as[float64](src))
	case reflect.Complex64:
		complexes(op, as[complex64](dst), as[complex64](src))
	case reflect.Complex128:
		complexes(op, as[complex128](dst), as[complex128](src))
	case reflect.Bool:
		bools(op, dst, src)
	}
}

// CAS compares the element at dst with compare and, if equal (bit for
// bit), stores origin there; old receives the element as it was.
func CAS(size int, dst, origin, compare, old []byte) {
	switch {
	case size == 8 && aligned[uint64](dst):
		casWord[uint64](dst, origin, compare, old)
	case size == 4 && aligned[uint32](dst):
		casWord[uint32](dst, origin, compare, old)
	default:
		copy(old, dst[:size])
		if bytes.Equal(dst[:size], compare[:size]) {
			copy(dst, origin[:size])
		}
	}
}

// as views b as a slice of E (b's length is a multiple of E's size).
func as[E any](b []byte) []E {
	n := len(b) / int(unsafe.Sizeof(*new(E)))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*E)(unsafe.Pointer(&b[0])), n)
}

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// common combines a and b with the operations integers and floats share;
// ok is false for the others.
func common[E integer | ~float32 | ~float64](op OpCode, a, b E) (r E, ok bool) {
	switch op {
	case OpSum:
		return a + b, true
	case OpProd:
		return a * b, true
	case OpMin:
		return min(a, b), true
	case OpMax:
		return max(a, b), true
	case OpLAnd:
		return truth[E](a != 0 && b != 0), true
	case OpLOr:
		return truth[E](a != 0 || b != 0), true
	case OpLXor:
		return truth[E]((a != 0) != (b != 0)), true
	}
	return 0, false
}

func ints[E integer](op OpCode, d, s []E) {
	for i := range d {
		a, b := s[i], d[i]
		r, ok := common(op, a, b)
		if !ok {
			switch op {
			case OpBAnd:
				r = a & b
			case OpBOr:
				r = a | b
			case OpBXor:
				r = a ^ b
			}
		}
		d[i] = r
	}
}

func floats[E ~float32 | ~float64](op OpCode, d, s []E) {
	for i := range d {
		d[i], _ = common(op, s[i], d[i])
	}
}

func complexes[E ~complex64 | ~complex128](op OpCode, d, s []E) {
	for i := range d {
		switch op {
		case OpSum:
			d[i] = s[i] + d[i]
		case OpProd:
			d[i] = s[i] * d[i]
		}
	}
}

func bools(op OpCode, d, s []byte) {
	for i := range d {
		a, b := s[i] != 0, d[i] != 0
		var r bool
		switch op {
		case OpLAnd:
			r = a && b
		case OpLOr:
			r = a || b
		case OpLXor:
			r = a != b
		}
		d[i] = 0
		if r {
			d[i] = 1
		}
	}
}

func truth[E integer | ~float32 | ~float64](t bool) E {
	if t {
		return 1
	}
	return 0
}

// FetchApply is Apply that also stores the elements as they were in old.
// Aligned 4- and 8-byte integers are fetched and combined atomically,
// element by element; for other elements the caller must hold the
// target's accumulate lock.
func FetchApply(op OpCode, k reflect.Kind, size int, dst, src, old []byte) {
	if op == OpSum && size == 8 && len(dst) == 8 && isInt(k) && aligned[uint64](dst) {
		// FetchAndOp's usual case (a counter): the instruction, with no
		// generic code on the way.
		v := get[uint64](src)
		put(old, atomic.AddUint64((*uint64)(unsafe.Pointer(&dst[0])), v)-v)
		return
	}
	if !words(op, k, size, dst, src, old) {
		copy(old, dst)
		Apply(op, k, size, dst, src)
	}
}

// Atomic reports whether elements of kind k and size bytes are combined
// with atomic instructions (so that no lock is needed) by Apply,
// FetchApply and CAS, given aligned memory: integers of 4 and 8 bytes.
func Atomic(k reflect.Kind, size int) bool { return (size == 4 || size == 8) && isInt(k) }
