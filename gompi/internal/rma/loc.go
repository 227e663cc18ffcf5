package rma

import (
	"encoding/binary"
	"math"
	"reflect"
	"strings"
)

// Loc is the layout of the pair element of MinLoc and MaxLoc (MPI's
// MPI_2INT, MPI_DOUBLE_INT...): package coll's ValueIndex, a number (Kind,
// Size bytes at offset 0) and a Go int index at IndexOff, Elem bytes in
// all. The target combines pairs knowing only this, as it does numbers
// knowing only their kind.
type Loc struct {
	Kind                 reflect.Kind
	Size, IndexOff, Elem int
}

// LocOf returns the layout of t if t is coll.ValueIndex of a number type.
func LocOf(t reflect.Type) (Loc, bool) {
	if t.Kind() != reflect.Struct || t.NumField() != 2 || t.PkgPath() != "github.com/gompi/gompi/coll" ||
		!strings.HasPrefix(t.Name(), "ValueIndex[") {
		return Loc{}, false
	}
	v, i := t.Field(0), t.Field(1)
	k := v.Type.Kind()
	if v.Name != "Value" || i.Name != "Index" || i.Type.Kind() != reflect.Int || !isInt(k) && !isFloat(k) {
		return Loc{}, false
	}
	return Loc{Kind: k, Size: int(v.Type.Size()), IndexOff: int(i.Offset), Elem: int(t.Size())}, true
}

// IsLoc reports whether o is MinLoc or MaxLoc.
func (o OpCode) IsLoc() bool { return o == OpMinLoc || o == OpMaxLoc }

// Apply combines src into dst pair by pair: MinLoc keeps the smaller
// value, MaxLoc the larger, and on equal values the lower index (MPI's
// rule, and package coll's).
func (l Loc) Apply(op OpCode, dst, src []byte) {
	for off := 0; off+l.Elem <= len(dst) && off+l.Elem <= len(src); off += l.Elem {
		d, s := dst[off:off+l.Elem], src[off:off+l.Elem]
		c := l.compare(s, d)
		if op == OpMaxLoc {
			c = -c
		}
		if c < 0 || c == 0 && l.index(s) < l.index(d) {
			copy(d, s)
		}
	}
}

func (l Loc) index(b []byte) int64 { return int64(binary.NativeEndian.Uint64(b[l.IndexOff:])) }

// compare returns -1, 0 or 1 as a's value is below, equal to or above b's.
func (l Loc) compare(a, b []byte) int {
	switch {
	case isFloat(l.Kind):
		x, y := l.float(a), l.float(b)
		return cmp3(x < y, x > y)
	case l.Kind == reflect.Int || l.Kind >= reflect.Int8 && l.Kind <= reflect.Int64:
		x, y := l.signed(a), l.signed(b)
		return cmp3(x < y, x > y)
	}
	x, y := l.unsigned(a), l.unsigned(b)
	return cmp3(x < y, x > y)
}

func cmp3(less, more bool) int {
	switch {
	case less:
		return -1
	case more:
		return 1
	}
	return 0
}

func (l Loc) unsigned(b []byte) uint64 {
	switch l.Size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.NativeEndian.Uint16(b))
	case 4:
		return uint64(binary.NativeEndian.Uint32(b))
	}
	return binary.NativeEndian.Uint64(b)
}

func (l Loc) signed(b []byte) int64 {
	u, shift := l.unsigned(b), 64-8*l.Size
	return int64(u<<shift) >> shift // sign-extended
}

func (l Loc) float(b []byte) float64 {
	if l.Size == 4 {
		return float64(math.Float32frombits(binary.NativeEndian.Uint32(b)))
	}
	return math.Float64frombits(binary.NativeEndian.Uint64(b))
}
