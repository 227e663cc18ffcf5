package gompi

import (
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi/internal/base"
)

// Op is a reduction operator over elements of type T, for Reduce, Allreduce,
// ReduceScatter, Scan and Exscan: Sum[float64](), MaxLoc[int32]() (whose
// elements are ValueIndex[int32]), or a function of your own with NewOp.
// The typed collectives take an Op of their buffers' element type, so an
// operator made for another type is a compile error:
//
//	gompi.Allreduce(c, in, out, gompi.Sum[float32]()) // in, out []float32
//
// Results combine in rank order, so an operator need not be commutative.
// The zero Op is no operator: collectives refuse it with ErrArg.
type Op[T any] struct{ op *coll.Op }

// AnyOp is an operator of any element type. The byte-slice methods of Comm
// (c.Allreduce, c.Scan, ...) take one, since bytes carry no element type to
// check it against at compile time; they check at run time that the buffers
// hold whole elements. Every Op[T] is an AnyOp; nothing else is.
type AnyOp interface {
	collOp() *coll.Op
}

func (o Op[T]) collOp() *coll.Op { return o.op }

// Name returns the operator's name with its element type, e.g. "sum[float64]".
func (o Op[T]) Name() string {
	if o.op == nil {
		return "<no operator>"
	}
	return o.op.Name
}

// Commutative reports whether the operator was declared commutative.
func (o Op[T]) Commutative() bool { return o.op != nil && o.op.Commutative }

// String is Name.
func (o Op[T]) String() string { return o.Name() }

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

// The predefined operators, one cache each, keyed by the element type.
const (
	opSum = iota
	opProd
	opMin
	opMax
	opLAnd
	opLOr
	opLXor
	opBAnd
	opBOr
	opBXor
	opMinLoc
	opMaxLoc
	opReplace // one-sided only (win_ops.go)
	opNoOp    // one-sided only
	numPredefined
)

// predefinedOps holds, per operator, element type (a reflect.Type, an
// interface already, so that looking it up allocates nothing) → *coll.Op.
// Programs write gompi.Sum[float64]() in every call; the call must cost a
// look-up, not the making of an operator. The common element types have a
// plain array slot (commonOps), which costs a type switch instead of a
// sync.Map look-up (a hash of the type and atomic loads) per call.
var (
	predefinedOps [numPredefined]sync.Map
	commonOps     [numPredefined][numCommon]atomic.Pointer[coll.Op]
)

const numCommon = 12

// commonType returns T's slot in commonOps, -1 for other types.
func commonType[T any]() int {
	switch any((*T)(nil)).(type) { // a nil pointer: the conversion allocates nothing
	case *float64:
		return 0
	case *float32:
		return 1
	case *int:
		return 2
	case *int64:
		return 3
	case *int32:
		return 4
	case *int16:
		return 5
	case *int8:
		return 6
	case *uint:
		return 7
	case *uint64:
		return 8
	case *uint32:
		return 9
	case *uint16:
		return 10
	case *uint8:
		return 11
	}
	return -1
}

// predefined returns operator which over T, made by mk the first time.
func predefined[T any](which int, mk func() coll.Op) Op[T] {
	k := commonType[T]()
	if k >= 0 {
		if o := commonOps[which][k].Load(); o != nil {
			return Op[T]{o}
		}
	}
	t := reflect.TypeFor[T]()
	v, ok := predefinedOps[which].Load(t)
	if !ok {
		op := mk()
		v, _ = predefinedOps[which].LoadOrStore(t, &op)
	}
	o := v.(*coll.Op)
	if k >= 0 {
		commonOps[which][k].Store(o) // the same operator the map holds, whoever stores first
	}
	return Op[T]{o}
}

// Sum adds.
func Sum[T Number]() Op[T] { return predefined[T](opSum, coll.Sum[T]) }

// Prod multiplies.
func Prod[T Number]() Op[T] { return predefined[T](opProd, coll.Prod[T]) }

// Min keeps the smaller.
func Min[T Real]() Op[T] { return predefined[T](opMin, coll.Min[T]) }

// Max keeps the larger.
func Max[T Real]() Op[T] { return predefined[T](opMax, coll.Max[T]) }

// LAnd is logical and (non-zero is true; the result is 0 or 1).
func LAnd[T Real]() Op[T] { return predefined[T](opLAnd, coll.LAnd[T]) }

// LOr is logical or.
func LOr[T Real]() Op[T] { return predefined[T](opLOr, coll.LOr[T]) }

// LXor is logical exclusive or.
func LXor[T Real]() Op[T] { return predefined[T](opLXor, coll.LXor[T]) }

// BAnd is bitwise and.
func BAnd[T Integer]() Op[T] { return predefined[T](opBAnd, coll.BAnd[T]) }

// BOr is bitwise or.
func BOr[T Integer]() Op[T] { return predefined[T](opBOr, coll.BOr[T]) }

// BXor is bitwise exclusive or.
func BXor[T Integer]() Op[T] { return predefined[T](opBXor, coll.BXor[T]) }

// MinLoc keeps the smaller value with its index. Its elements are
// ValueIndex[T].
func MinLoc[T Real]() Op[ValueIndex[T]] {
	return predefined[ValueIndex[T]](opMinLoc, coll.MinLoc[T])
}

// MaxLoc keeps the larger value with its index. Its elements are
// ValueIndex[T].
func MaxLoc[T Real]() Op[ValueIndex[T]] {
	return predefined[ValueIndex[T]](opMaxLoc, coll.MaxLoc[T])
}

// NewOp makes an operator from f, which must set inout[i] = in[i] ∘ inout[i]
// (in holds the lower ranks' contribution). A non-commutative operator is
// applied in rank order by every algorithm. Make it once and keep it: each
// call makes a new operator. T must be plain data, as for the buffers.
func NewOp[T any](name string, commutative bool, f func(in, inout []T)) Op[T] {
	op := coll.NewOp(name, commutative, f)
	return Op[T]{&op}
}

// opOf returns the operator behind op for a collective, or ErrArg for a
// missing one (a nil AnyOp, or the zero Op).
func opOf(r Routine, op AnyOp) (coll.Op, error) {
	var o *coll.Op
	if op != nil {
		o = op.collOp()
	}
	if o == nil {
		return coll.Op{}, base.New(r.String(), base.ErrArg, "the operator is nil (a zero Op)",
			"pass a predefined operator such as gompi.Sum[float64]() or one made by gompi.NewOp")
	}
	return *o, nil
}

// opErr records c's rank in an error of opOf.
func (c *Comm) opErr(err error) error {
	if e, ok := err.(*base.Error); ok && c != nil {
		e.Rank = c.c.Rank()
	}
	return err
}
