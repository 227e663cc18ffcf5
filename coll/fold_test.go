package coll

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// refFold is the element loop a predefined operator computes, written out
// plainly: the vector folds (fold.go) must give the same bits.
func refFold[T Real](name string, in, inout []T) {
	for i := range inout {
		a, b := in[i], inout[i]
		switch name {
		case "sum":
			inout[i] = a + b
		case "prod":
			inout[i] = a * b
		case "min":
			inout[i] = min(a, b)
		case "max":
			inout[i] = max(a, b)
		}
	}
}

func refBits[T Integer](name string, in, inout []T) {
	for i := range inout {
		switch name {
		case "band":
			inout[i] &= in[i]
		case "bor":
			inout[i] |= in[i]
		case "bxor":
			inout[i] ^= in[i]
		}
	}
}

func randomElems[T Real](r *rand.Rand, n int, float bool) []T {
	s := make([]T, n)
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), n*int(unsafe.Sizeof(s[0])))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	if float { // finite values of both signs, some zeros
		for i := range s {
			s[i] = T(r.NormFloat64() * 1e3)
			if i%17 == 0 {
				s[i] = 0
			}
		}
	}
	return s
}

func asBytes[T any](s []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// checkFold compares op (a predefined operator, vectorized where the CPU
// allows) with the reference over lengths around the kernels' grains and at
// unaligned offsets.
func checkFold[T Real](t *testing.T, name string, op Op, ref func(string, []T, []T), float bool) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, uint64(len(op.Name))))
	size := int(unsafe.Sizeof(*new(T)))
	for _, n := range []int{0, 1, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 1000, 4099} {
		for _, shift := range []int{0, 1, 3} {
			in, inout := randomElems[T](r, n, float), randomElems[T](r, n, float)
			want := append([]T(nil), inout...)
			ref(name, in, want)
			// unaligned copies of the vectors
			bi := make([]byte, n*size+shift)[shift:]
			bo := make([]byte, n*size+shift)[shift:]
			copy(bi, asBytes(in))
			copy(bo, asBytes(inout))
			op.Apply(bi, bo)
			if !bytes.Equal(bo, asBytes(want)) {
				t.Fatalf("%s: %d elements at offset %d: not the reference's bits", op.Name, n, shift)
			}
		}
	}
}

func TestVectorFoldsMatchScalar(t *testing.T) {
	for _, name := range []string{"sum", "prod", "min", "max"} {
		t.Run(name, func(t *testing.T) {
			mk := func(ops map[string]Op) Op { return ops[name] }
			checkFold[float32](t, name, mk(map[string]Op{"sum": Sum[float32](), "prod": Prod[float32](), "min": Min[float32](), "max": Max[float32]()}), refFold[float32], true)
			checkFold[float64](t, name, mk(map[string]Op{"sum": Sum[float64](), "prod": Prod[float64](), "min": Min[float64](), "max": Max[float64]()}), refFold[float64], true)
			checkFold[int8](t, name, mk(map[string]Op{"sum": Sum[int8](), "prod": Prod[int8](), "min": Min[int8](), "max": Max[int8]()}), refFold[int8], false)
			checkFold[uint8](t, name, mk(map[string]Op{"sum": Sum[uint8](), "prod": Prod[uint8](), "min": Min[uint8](), "max": Max[uint8]()}), refFold[uint8], false)
			checkFold[int16](t, name, mk(map[string]Op{"sum": Sum[int16](), "prod": Prod[int16](), "min": Min[int16](), "max": Max[int16]()}), refFold[int16], false)
			checkFold[uint16](t, name, mk(map[string]Op{"sum": Sum[uint16](), "prod": Prod[uint16](), "min": Min[uint16](), "max": Max[uint16]()}), refFold[uint16], false)
			checkFold[int32](t, name, mk(map[string]Op{"sum": Sum[int32](), "prod": Prod[int32](), "min": Min[int32](), "max": Max[int32]()}), refFold[int32], false)
			checkFold[uint32](t, name, mk(map[string]Op{"sum": Sum[uint32](), "prod": Prod[uint32](), "min": Min[uint32](), "max": Max[uint32]()}), refFold[uint32], false)
			checkFold[int64](t, name, mk(map[string]Op{"sum": Sum[int64](), "prod": Prod[int64](), "min": Min[int64](), "max": Max[int64]()}), refFold[int64], false)
			checkFold[uint64](t, name, mk(map[string]Op{"sum": Sum[uint64](), "prod": Prod[uint64](), "min": Min[uint64](), "max": Max[uint64]()}), refFold[uint64], false)
			checkFold[int](t, name, mk(map[string]Op{"sum": Sum[int](), "prod": Prod[int](), "min": Min[int](), "max": Max[int]()}), refFold[int], false)
			checkFold[uint](t, name, mk(map[string]Op{"sum": Sum[uint](), "prod": Prod[uint](), "min": Min[uint](), "max": Max[uint]()}), refFold[uint], false)
		})
	}
	for _, name := range []string{"band", "bor", "bxor"} {
		t.Run(name, func(t *testing.T) {
			pick := func(and, or, xor Op) Op {
				return map[string]Op{"band": and, "bor": or, "bxor": xor}[name]
			}
			checkFold[int8](t, name, pick(BAnd[int8](), BOr[int8](), BXor[int8]()), refBits[int8], false)
			checkFold[uint16](t, name, pick(BAnd[uint16](), BOr[uint16](), BXor[uint16]()), refBits[uint16], false)
			checkFold[int32](t, name, pick(BAnd[int32](), BOr[int32](), BXor[int32]()), refBits[int32], false)
			checkFold[uint64](t, name, pick(BAnd[uint64](), BOr[uint64](), BXor[uint64]()), refBits[uint64], false)
		})
	}
}

// TestVectorFloatSpecials: infinities, NaN, signed zeros and denormals go
// through the vector add and multiply as through the scalar ones.
func TestVectorFloatSpecials(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, -5e-324, math.MaxFloat64, 1e-310}
	var in, inout []float64
	for _, a := range vals {
		for _, b := range vals {
			in, inout = append(in, a), append(inout, b)
		}
	}
	for len(in)%8 != 0 {
		in, inout = append(in, 1), append(inout, 2)
	}
	for _, c := range []struct {
		op   Op
		name string
	}{{Sum[float64](), "sum"}, {Prod[float64](), "prod"}} {
		want := append([]float64(nil), inout...)
		refFold(c.name, in, want)
		got := append([]float64(nil), inout...)
		c.op.Apply(asBytes(in), asBytes(got))
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
				t.Fatalf("%s(%v, %v) = %v, want %v", c.name, in[i], inout[i], got[i], want[i])
			}
		}
	}
}
