package gompi

import (
	"fmt"
	"unsafe"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi/internal/base"
)

// Op is a reduction operator for Reduce, Allreduce, ReduceScatter, Scan and
// Exscan, made for one element type: Sum[float64](), MaxLoc[int32](), or a
// function of your own with NewOp. Results combine in rank order, so an
// operator need not be commutative.
type Op = coll.Op

// Element type sets of the operators.
type (
	// Number is every numeric type.
	Number = coll.Number
	// Real is the ordered numeric types.
	Real = coll.Real
	// Integer is the integer types.
	Integer = coll.Integer
)

// ValueIndex is the element of MinLoc and MaxLoc: a value and where it came
// from (ties keep the lower index, as in MPI).
type ValueIndex[T Real] = coll.ValueIndex[T]

// Sum adds.
func Sum[T Number]() Op { return coll.Sum[T]() }

// Prod multiplies.
func Prod[T Number]() Op { return coll.Prod[T]() }

// Min keeps the smaller.
func Min[T Real]() Op { return coll.Min[T]() }

// Max keeps the larger.
func Max[T Real]() Op { return coll.Max[T]() }

// LAnd is logical and (non-zero is true; the result is 0 or 1).
func LAnd[T Real]() Op { return coll.LAnd[T]() }

// LOr is logical or.
func LOr[T Real]() Op { return coll.LOr[T]() }

// LXor is logical exclusive or.
func LXor[T Real]() Op { return coll.LXor[T]() }

// BAnd is bitwise and.
func BAnd[T Integer]() Op { return coll.BAnd[T]() }

// BOr is bitwise or.
func BOr[T Integer]() Op { return coll.BOr[T]() }

// BXor is bitwise exclusive or.
func BXor[T Integer]() Op { return coll.BXor[T]() }

// MinLoc keeps the smaller value with its index.
func MinLoc[T Real]() Op { return coll.MinLoc[T]() }

// MaxLoc keeps the larger value with its index.
func MaxLoc[T Real]() Op { return coll.MaxLoc[T]() }

// NewOp makes an operator from f, which must set inout[i] = in[i] ∘ inout[i]
// (in holds the lower ranks' contribution). A non-commutative operator is
// applied in rank order by every algorithm.
func NewOp[T any](name string, commutative bool, f func(in, inout []T)) Op {
	return coll.NewOp(name, commutative, f)
}

// checkOp refuses an operator made for another element type than T.
func checkOp[T any](name string, op Op) error {
	if size := int(unsafe.Sizeof(*new(T))); op.ElemSize != size {
		return base.New(name, base.ErrArg,
			fmt.Sprintf("operator %s works on %d-byte elements, the buffers hold %d-byte %T", op.Name, op.ElemSize, size, *new(T)),
			"make the operator for the buffers' element type")
	}
	return nil
}
