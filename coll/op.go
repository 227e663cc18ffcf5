package coll

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"
)

// Op is a reduction operator on a fixed-size element type. Buffers reduced
// with it hold whole elements: a byte length that is not a multiple of
// ElemSize is an argument error, and algorithms split vectors only on element
// boundaries.
type Op struct {
	Name        string // e.g. "sum[int32]"
	Commutative bool   // a∘b == b∘a; false: algorithms must combine in rank order
	ElemSize    int    // bytes per element
	// Apply sets inout[i] = in[i] ∘ inout[i] element by element; in is the
	// left operand (it comes from lower ranks), as for MPI_User_function. The
	// two slices have the same length, a multiple of ElemSize, and do not
	// overlap; Apply may be given unaligned slices and copes with them.
	Apply func(in, inout []byte)
	// Predefined names the MPI operator this Op computes ("sum", "max",
	// "minloc"...) and ElemKind the kind of its element type, for Ops made by
	// this package's constructors (Sum, Max, MinLoc...), so that a runtime
	// over a real MPI library can run the library's own operator. Ops made
	// by NewOp have neither.
	Predefined string
	ElemKind   reflect.Kind
	// apply3 is ApplyTo's vector fold (fold3.go), set for the predefined
	// operators that have one.
	apply3 func(in, inout, out []byte)
}

// predefined returns MPI's operator name over elements of type T, made by mk
// the first time and marked as predefined.
func predefined[T any](name string, mk func() Op) Op {
	k := predefinedKey{name, reflect.TypeFor[T]()}
	if v, ok := predefinedOps.Load(k); ok {
		return v.(Op)
	}
	op := mk()
	op.Predefined, op.ElemKind = name, k.elem.Kind()
	op = vectorized(op, name, op.ElemKind) // fold.go
	v, _ := predefinedOps.LoadOrStore(k, op)
	return v.(Op)
}

// predefinedOps caches the predefined operators, made once per name and
// element type: programs write gompi.Sum[float64]() in every call, and
// making an Op (its name, its closures) cost more than a small Allreduce.
var predefinedOps sync.Map // predefinedKey → Op

type predefinedKey struct {
	name string
	elem reflect.Type
}

// combineLow sets acc = acc ∘ hi, where acc holds the contribution of lower
// ranks than hi. hi is clobbered. For a commutative op this is one Apply; for
// another it costs one copy more.
func (o *Op) combineLow(acc, hi []byte) {
	if o.Commutative {
		o.Apply(hi, acc)
		return
	}
	o.Apply(acc, hi)
	copy(acc, hi)
}

// Integer is the integer element types.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// Float is the floating-point element types.
type Float interface{ ~float32 | ~float64 }

// Real is the ordered numeric element types.
type Real interface{ Integer | Float }

// Number is every numeric element type.
type Number interface {
	Real | ~complex64 | ~complex128
}

// ValueIndex is the element of MinLoc and MaxLoc: a value and where it came
// from (MPI_2INT, MPI_DOUBLE_INT...).
type ValueIndex[T Real] struct {
	Value T
	Index int
}

// NewOp makes an Op over elements of type T from f, which sets
// inout[i] = in[i] ∘ inout[i]. T must be plain data (no pointers, slices,
// strings or maps): elements travel as bytes. Non-commutative ops are combined
// in rank order by every algorithm that accepts them.
func NewOp[T any](name string, commutative bool, f func(in, inout []T)) Op {
	var zero T
	size, align := int(unsafe.Sizeof(zero)), uintptr(unsafe.Alignof(zero))
	return Op{
		Name:        fmt.Sprintf("%s[%T]", name, zero),
		Commutative: commutative,
		ElemSize:    size,
		Apply: func(in, inout []byte) {
			if size == 0 {
				return
			}
			if len(in) != len(inout) || len(inout)%size != 0 {
				panic(fmt.Sprintf("coll: %s applied to %d and %d bytes (element size %d)", name, len(in), len(inout), size))
			}
			a, aok := elems[T](in, size, align)
			b, bok := elems[T](inout, size, align)
			if !aok {
				a = make([]T, len(in)/size)
				copy(bytesOf(a, size), in)
			}
			if bok {
				f(a, b)
				return
			}
			b = make([]T, len(inout)/size)
			copy(bytesOf(b, size), inout)
			f(a, b)
			copy(inout, bytesOf(b, size))
		},
	}
}

// elems views b as a []T without copying; ok is false when b is not aligned
// for T (the caller then works on an aligned copy).
func elems[T any](b []byte, size int, align uintptr) (s []T, ok bool) {
	if len(b) == 0 {
		return nil, true
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%align != 0 {
		return nil, false
	}
	return unsafe.Slice((*T)(p), len(b)/size), true
}

func bytesOf[T any](s []T, size int) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*size)
}

// Sum is MPI_SUM.
func Sum[T Number]() Op {
	return predefined[T]("sum", func() Op { return NewOp("sum", true, sumLoop[T]) })
}

// sumLoop is Sum's element loop (the scalar one; predefined puts the vector
// fold of fold_amd64.go in front of it where the CPU has one).
func sumLoop[T Number](in, inout []T) {
	n := len(inout)
	in = in[:n]
	i := 0
	for ; i+4 <= n; i += 4 { // unrolled: twice as fast here
		a, b := in[i:i+4:i+4], inout[i:i+4:i+4]
		b[0] = a[0] + b[0]
		b[1] = a[1] + b[1]
		b[2] = a[2] + b[2]
		b[3] = a[3] + b[3]
	}
	for ; i < n; i++ {
		inout[i] = in[i] + inout[i]
	}
}

// Prod is MPI_PROD.
func Prod[T Number]() Op {
	return predefined[T]("prod", func() Op {
		return NewOp("prod", true, func(in, inout []T) {
			n := len(inout)
			in = in[:n]
			i := 0
			for ; i+4 <= n; i += 4 { // unrolled: twice as fast here
				a, b := in[i:i+4:i+4], inout[i:i+4:i+4]
				b[0] = a[0] * b[0]
				b[1] = a[1] * b[1]
				b[2] = a[2] * b[2]
				b[3] = a[3] * b[3]
			}
			for ; i < n; i++ {
				inout[i] = in[i] * inout[i]
			}
		})
	})
}

// Min is MPI_MIN.
func Min[T Real]() Op {
	return predefined[T]("min", func() Op {
		return NewOp("min", true, func(in, inout []T) {
			n := len(inout)
			in = in[:n]
			i := 0
			for ; i+4 <= n; i += 4 { // unrolled: twice as fast here
				a, b := in[i:i+4:i+4], inout[i:i+4:i+4]
				b[0] = min(a[0], b[0])
				b[1] = min(a[1], b[1])
				b[2] = min(a[2], b[2])
				b[3] = min(a[3], b[3])
			}
			for ; i < n; i++ {
				inout[i] = min(in[i], inout[i])
			}
		})
	})
}

// Max is MPI_MAX.
func Max[T Real]() Op {
	return predefined[T]("max", func() Op {
		return NewOp("max", true, func(in, inout []T) {
			n := len(inout)
			in = in[:n]
			i := 0
			for ; i+4 <= n; i += 4 { // unrolled: twice as fast here
				a, b := in[i:i+4:i+4], inout[i:i+4:i+4]
				b[0] = max(a[0], b[0])
				b[1] = max(a[1], b[1])
				b[2] = max(a[2], b[2])
				b[3] = max(a[3], b[3])
			}
			for ; i < n; i++ {
				inout[i] = max(in[i], inout[i])
			}
		})
	})
}

func truth[T Real](b bool) T {
	if b {
		return 1
	}
	return 0
}

// LAnd is MPI_LAND: nonzero is true, the result is 1 or 0.
func LAnd[T Real]() Op {
	return predefined[T]("land", func() Op {
		return NewOp("land", true, func(in, inout []T) {
			in = in[:len(inout)]
			for i := range inout {
				inout[i] = truth[T](in[i] != 0 && inout[i] != 0)
			}
		})
	})
}

// LOr is MPI_LOR: nonzero is true, the result is 1 or 0.
func LOr[T Real]() Op {
	return predefined[T]("lor", func() Op {
		return NewOp("lor", true, func(in, inout []T) {
			in = in[:len(inout)]
			for i := range inout {
				inout[i] = truth[T](in[i] != 0 || inout[i] != 0)
			}
		})
	})
}

// LXor is MPI_LXOR: nonzero is true, the result is 1 or 0.
func LXor[T Real]() Op {
	return predefined[T]("lxor", func() Op {
		return NewOp("lxor", true, func(in, inout []T) {
			in = in[:len(inout)]
			for i := range inout {
				inout[i] = truth[T]((in[i] != 0) != (inout[i] != 0))
			}
		})
	})
}

// BAnd is MPI_BAND.
func BAnd[T Integer]() Op {
	return predefined[T]("band", func() Op {
		return NewOp("band", true, func(in, inout []T) {
			in = in[:len(inout)]
			for i := range inout {
				inout[i] = in[i] & inout[i]
			}
		})
	})
}

// BOr is MPI_BOR.
func BOr[T Integer]() Op {
	return predefined[T]("bor", func() Op {
		return NewOp("bor", true, func(in, inout []T) {
			in = in[:len(inout)]
			for i := range inout {
				inout[i] = in[i] | inout[i]
			}
		})
	})
}

// BXor is MPI_BXOR.
func BXor[T Integer]() Op {
	return predefined[T]("bxor", func() Op {
		return NewOp("bxor", true, func(in, inout []T) {
			in = in[:len(inout)]
			for i := range inout {
				inout[i] = in[i] ^ inout[i]
			}
		})
	})
}

// MinLoc is MPI_MINLOC: the smallest value and its index; on equal values the
// lower index wins.
func MinLoc[T Real]() Op {
	return predefined[T]("minloc", func() Op {
		return NewOp("minloc", true, func(in, inout []ValueIndex[T]) {
			in = in[:len(inout)]
			for i := range inout {
				a, b := in[i], inout[i]
				if a.Value < b.Value || a.Value == b.Value && a.Index < b.Index {
					inout[i] = a
				}
			}
		})
	})
}

// MaxLoc is MPI_MAXLOC: the largest value and its index; on equal values the
// lower index wins.
func MaxLoc[T Real]() Op {
	return predefined[T]("maxloc", func() Op {
		return NewOp("maxloc", true, func(in, inout []ValueIndex[T]) {
			in = in[:len(inout)]
			for i := range inout {
				a, b := in[i], inout[i]
				if a.Value > b.Value || a.Value == b.Value && a.Index < b.Index {
					inout[i] = a
				}
			}
		})
	})
}
