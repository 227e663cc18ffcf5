package rma

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"sync"
	"testing"
	"unsafe"
)

func TestHeaderRoundTrip(t *testing.T) {
	h := Header{Kind: KindGetAcc, Op: OpBXor, Lock: LockExclusive, Flags: FlagInline, Tag: 1<<29 + 5, Disp: 1 << 40, Count: 12345}
	b := make([]byte, HeaderSize+3)
	h.Encode(b)
	copy(b[HeaderSize:], "abc")
	var g Header
	rest, err := g.Decode(b)
	if err != nil || g != h || string(rest) != "abc" {
		t.Fatalf("decoded %+v, %q, %v; want %+v", g, rest, err, h)
	}
}

func FuzzHeaderDecode(f *testing.F) {
	b := make([]byte, HeaderSize)
	(&Header{Kind: KindPut, Count: 3}).Encode(b)
	f.Add(b)
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0xff}, HeaderSize))
	f.Fuzz(func(t *testing.T, b []byte) {
		var h Header
		rest, err := h.Decode(b)
		if err != nil {
			return
		}
		// What decodes encodes back to the same bytes.
		again := make([]byte, HeaderSize)
		h.Encode(again)
		if !bytes.Equal(again, b[:HeaderSize]) || len(rest) != len(b)-HeaderSize {
			t.Fatalf("%x decoded to %+v, which encodes to %x", b, h, again)
		}
	})
}

func bytesOf[E any](s []E) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// apply runs Apply on copies and returns the result.
func apply[E any](op OpCode, dst, src []E) []E {
	d := append([]E(nil), dst...)
	Apply(op, reflect.TypeFor[E]().Kind(), int(unsafe.Sizeof(d[0])), bytesOf(d), bytesOf(src))
	return d
}

func TestApply(t *testing.T) {
	cases := []struct {
		name string
		got  any
		want any
	}{
		{"sum int64 (atomic)", apply(OpSum, []int64{1, -2}, []int64{10, 20}), []int64{11, 18}},
		{"prod int64 (cas loop)", apply(OpProd, []int64{3, -2}, []int64{5, 7}), []int64{15, -14}},
		{"min int64", apply(OpMin, []int64{3, -2}, []int64{5, -7}), []int64{3, -7}},
		{"max uint64", apply(OpMax, []uint64{3, math.MaxUint64}, []uint64{5, 1}), []uint64{5, math.MaxUint64}},
		{"band uint64", apply(OpBAnd, []uint64{0b1100}, []uint64{0b1010}), []uint64{0b1000}},
		{"bor int", apply(OpBOr, []int{0b1100}, []int{0b1010}), []int{0b1110}},
		{"bxor int64", apply(OpBXor, []int64{0b1100}, []int64{0b1010}), []int64{0b0110}},
		{"lxor int64", apply(OpLXor, []int64{0, 3, 0}, []int64{0, 4, 5}), []int64{0, 0, 1}},
		{"sum int8 wraps", apply(OpSum, []int8{127}, []int8{1}), []int8{-128}},
		{"max int16", apply(OpMax, []int16{-5, 9}, []int16{-3, 2}), []int16{-3, 9}},
		{"land uint32 (cas loop)", apply(OpLAnd, []uint32{0, 2}, []uint32{1, 3}), []uint32{0, 1}},
		{"sum int32 (atomic)", apply(OpSum, []int32{1, -2}, []int32{10, math.MinInt32}), []int32{11, math.MaxInt32 - 1}},
		{"min int32 (cas loop, signed)", apply(OpMin, []int32{3, -2}, []int32{5, 7}), []int32{3, -2}},
		{"max uint32 (cas loop, unsigned)", apply(OpMax, []uint32{3, math.MaxUint32}, []uint32{5, 1}), []uint32{5, math.MaxUint32}},
		{"band uint32 (atomic)", apply(OpBAnd, []uint32{0b1100}, []uint32{0b1010}), []uint32{0b1000}},
		{"bor int32 (atomic)", apply(OpBOr, []int32{0b1100}, []int32{0b1010}), []int32{0b1110}},
		{"replace int32 (atomic)", apply(OpReplace, []int32{1, 2}, []int32{3, 4}), []int32{3, 4}},
		{"sum float64", apply(OpSum, []float64{1.5}, []float64{2.25}), []float64{3.75}},
		{"min float32", apply(OpMin, []float32{1.5, -1}, []float32{2.25, -3}), []float32{1.5, -3}},
		{"prod complex128", apply(OpProd, []complex128{1i}, []complex128{1i}), []complex128{-1}},
		{"lor bool", apply(OpLOr, []bool{false, false}, []bool{false, true}), []bool{false, true}},
		{"replace int64 (atomic)", apply(OpReplace, []int64{1, 2}, []int64{3, 4}), []int64{3, 4}},
		{"replace struct", apply(OpReplace, []struct{ A, B int32 }{{1, 2}}, []struct{ A, B int32 }{{3, 4}}), []struct{ A, B int32 }{{3, 4}}},
		{"no_op", apply(OpNoOp, []float64{1}, []float64{9}), []float64{1}},
	}
	for _, c := range cases {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestFetchApplyAndCAS(t *testing.T) {
	for _, op := range []OpCode{OpSum, OpMax, OpMin, OpReplace, OpNoOp, OpBXor, OpBAnd} {
		dst := []int32{5, -6}
		old := make([]int32, 2)
		FetchApply(op, reflect.Int32, 4, bytesOf(dst), bytesOf([]int32{7, -7}), bytesOf(old))
		if !reflect.DeepEqual(old, []int32{5, -6}) {
			t.Errorf("%v int32: old %v, want [5 -6]", op, old)
		}
		if want := apply(op, []int32{5, -6}, []int32{7, -7}); !reflect.DeepEqual(dst, want) {
			t.Errorf("%v int32: result %v, want %v", op, dst, want)
		}
	}
	for _, op := range []OpCode{OpSum, OpMax, OpReplace, OpNoOp, OpBXor} {
		for _, k := range []struct {
			kind reflect.Kind
			dst  []int64
		}{{reflect.Int64, []int64{5, -6}}, {reflect.Float64, nil}} {
			if k.dst == nil {
				continue
			}
			dst := append([]int64(nil), k.dst...)
			old := make([]int64, 2)
			FetchApply(op, k.kind, 8, bytesOf(dst), bytesOf([]int64{7, 7}), bytesOf(old))
			if !reflect.DeepEqual(old, k.dst) {
				t.Errorf("%v: old %v, want %v", op, old, k.dst)
			}
			if want := apply(op, k.dst, []int64{7, 7}); !reflect.DeepEqual(dst, want) {
				t.Errorf("%v: result %v, want %v", op, dst, want)
			}
		}
	}
	for _, size := range []int{8, 4} {
		dst := []int64{42}
		old := make([]byte, 8)
		oc := bytesOf([]int64{9, 42})
		CAS(size, bytesOf(dst), oc[:size], oc[8:8+size], old)
		if dst[0] != 9 || old[0] != 42 {
			t.Errorf("size %d: CAS that matched left %d, returned %d", size, dst[0], old[0])
		}
		CAS(size, bytesOf(dst), oc[:size], oc[8:8+size], old)
		if dst[0] != 9 || old[0] != 9 {
			t.Errorf("size %d: CAS that did not match left %d, returned %d", size, dst[0], old[0])
		}
	}
}

func TestSupports(t *testing.T) {
	cases := []struct {
		op   OpCode
		kind reflect.Kind
		want bool
	}{
		{OpSum, reflect.Float32, true}, {OpSum, reflect.Struct, false}, {OpSum, reflect.Bool, false},
		{OpMax, reflect.Complex128, false}, {OpBAnd, reflect.Float64, false}, {OpBXor, reflect.Uint8, true},
		{OpLAnd, reflect.Bool, true}, {OpReplace, reflect.Array, true}, {OpNoOp, reflect.Struct, true},
	}
	for _, c := range cases {
		if got := Supports(c.op, c.kind); got != c.want {
			t.Errorf("Supports(%v, %v) = %v, want %v", c.op, c.kind, got, c.want)
		}
	}
	if SupportsCAS(reflect.Float64) || !SupportsCAS(reflect.Uint16) || !SupportsCAS(reflect.Bool) {
		t.Error("compare-and-swap is for integers and bool")
	}
	for o := OpSum; o < opEnd; o++ {
		if p, ok := ParseOp(o.String()); !ok || p != o {
			t.Errorf("ParseOp(%q) = %v, %v", o.String(), p, ok)
		}
	}
	if Supports(OpMinLoc, reflect.Struct) || Supports(OpMaxLoc, reflect.Int) {
		t.Error("MinLoc and MaxLoc combine pairs (Loc), not numbers")
	}
}

// TestLoc: pairs of every value kind combine as MPI's MINLOC and MAXLOC,
// the lower index winning on equal values, and only coll.ValueIndex has a
// pair layout.
func TestLoc(t *testing.T) {
	type vi[T any] struct { // the layout of coll.ValueIndex[T], for the bytes
		Value T
		Index int
	}
	check := func(name string, l Loc, op OpCode, dst, src []byte, want int) {
		t.Helper()
		l.Apply(op, dst, src)
		if got := int(l.index(dst)); got != want {
			t.Errorf("%s %v: index %d, want %d", name, op, got, want)
		}
	}
	i8 := Loc{Kind: reflect.Int8, Size: 1, IndexOff: 8, Elem: 16}
	a, b := vi[int8]{-3, 5}, vi[int8]{2, 1}
	check("int8", i8, OpMinLoc, bytesOf(unsafe.Slice(&b, 1)), bytesOf(unsafe.Slice(&a, 1)), 5)
	a, b = vi[int8]{-3, 5}, vi[int8]{2, 1}
	check("int8", i8, OpMaxLoc, bytesOf(unsafe.Slice(&b, 1)), bytesOf(unsafe.Slice(&a, 1)), 1)
	u16 := Loc{Kind: reflect.Uint16, Size: 2, IndexOff: 8, Elem: 16}
	c, d := vi[uint16]{65535, 4}, vi[uint16]{1, 9}
	check("uint16", u16, OpMaxLoc, bytesOf(unsafe.Slice(&d, 1)), bytesOf(unsafe.Slice(&c, 1)), 4)
	f64 := Loc{Kind: reflect.Float64, Size: 8, IndexOff: 8, Elem: 16}
	e, f := vi[float64]{1.5, 2}, vi[float64]{1.5, 7}
	check("float64 tie", f64, OpMinLoc, bytesOf(unsafe.Slice(&f, 1)), bytesOf(unsafe.Slice(&e, 1)), 2)
	e, f = vi[float64]{1.5, 7}, vi[float64]{1.5, 2}
	check("float64 tie", f64, OpMaxLoc, bytesOf(unsafe.Slice(&f, 1)), bytesOf(unsafe.Slice(&e, 1)), 2)
	if _, ok := LocOf(reflect.TypeFor[vi[float64]]()); ok {
		t.Error("a struct of another package has no pair layout")
	}
	if _, ok := LocOf(reflect.TypeFor[float64]()); ok {
		t.Error("a number has no pair layout")
	}
}

func TestLockTable(t *testing.T) {
	var lt LockTable
	w := func(o int, typ uint8) Waiter { return Waiter{Origin: o, Type: typ, Tag: uint32(o)} }
	if !lt.Acquire(w(0, LockShared)) || !lt.Acquire(w(1, LockShared)) {
		t.Fatal("two shared locks must be granted together")
	}
	if lt.Acquire(w(2, LockExclusive)) {
		t.Fatal("an exclusive lock was granted while shared holders remain")
	}
	if lt.Acquire(w(3, LockShared)) {
		t.Fatal("a shared lock overtook a waiting exclusive one")
	}
	if g := lt.Release(LockShared, nil); len(g) != 0 {
		t.Fatalf("granted %v with a shared holder left", g)
	}
	if g := lt.Release(LockShared, nil); !reflect.DeepEqual(g, []Waiter{w(2, LockExclusive)}) {
		t.Fatalf("granted %v, want the exclusive waiter", g)
	}
	if g := lt.Release(LockExclusive, nil); !reflect.DeepEqual(g, []Waiter{w(3, LockShared)}) {
		t.Fatalf("granted %v, want the shared waiter", g)
	}
	lt.Release(LockShared, nil)
	if lt.Held() {
		t.Fatal("the lock is still held after every release")
	}
}

func TestRegions(t *testing.T) {
	var r Regions
	a, b := make([]byte, 32), make([]byte, 16)
	da, ok := r.Attach(a, 8)
	if !ok || da != FirstDisp {
		t.Fatalf("first attach at %d, %v", da, ok)
	}
	db, _ := r.Attach(b, 8)
	if _, ok := r.Attach(a[8:16], 8); ok {
		t.Fatal("overlapping memory was attached")
	}
	if got := r.Find(da+1, 3, 8); len(got) != 24 || &got[0] != &a[8] {
		t.Fatal("Find inside the first region")
	}
	if r.Find(da+2, 3, 8) != nil || r.Find(da+4, 1, 8) != nil || r.Find(db+2, 1, 8) != nil || r.Find(0, 1, 8) != nil {
		t.Fatal("Find accepted an access outside the attached memory")
	}
	if !r.Detach(a) || r.Find(da, 1, 8) != nil || r.Detach(a) {
		t.Fatal("Detach")
	}
	if r.Len() != 1 || r.Find(db, 2, 8) == nil {
		t.Fatal("the other region went too")
	}
}

// TestAtomicWordsLoseNoUpdate: 4- and 8-byte integers are combined with
// atomic instructions (no lock is taken for them), so goroutines that
// combine into one element at once lose no update: Sum by Apply and
// FetchApply (an instruction), BXor (a loop of compare-and-swap). Lost
// updates are rare on 2 CPUs; under -race a plain access is reported.
func TestAtomicWordsLoseNoUpdate(t *testing.T) {
	const workers, times = 4, 5001
	for _, c := range []struct {
		name string
		kind reflect.Kind
		size int
	}{{"int32", reflect.Int32, 4}, {"int64", reflect.Int64, 8}, {"uint32", reflect.Uint32, 4}} {
		var mem [2]uint64 // element 0: the sum, element 1: the bits (aligned for both sizes)
		sum, bits := bytesOf(mem[:])[:c.size], bytesOf(mem[:])[8:8+c.size]
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				one, bit := intOf(c.size, 1), intOf(c.size, 1<<w)
				for range times {
					if w%2 == 0 {
						FetchApply(OpSum, c.kind, c.size, sum, one, make([]byte, c.size))
					} else {
						Apply(OpSum, c.kind, c.size, sum, one)
					}
					Apply(OpBXor, c.kind, c.size, bits, bit)
				}
			}()
		}
		wg.Wait()
		if got := low(sum); got != workers*times {
			t.Errorf("%s: sum %d, want %d", c.name, got, workers*times)
		}
		if b := low(bits); b != 1<<workers-1 {
			t.Errorf("%s: bits %b, want %b (each flipped an odd number of times)", c.name, b, 1<<workers-1)
		}
	}
}

// intOf is v as an integer of size bytes in the machine's byte order.
func intOf(size int, v uint64) []byte {
	b := make([]byte, 8)
	if size == 4 {
		binary.NativeEndian.PutUint32(b, uint32(v))
	} else {
		binary.NativeEndian.PutUint64(b, v)
	}
	return b[:size]
}

// low reads an integer of size bytes in the machine's byte order.
func low(b []byte) uint64 {
	if len(b) == 4 {
		return uint64(binary.NativeEndian.Uint32(b))
	}
	return binary.NativeEndian.Uint64(b)
}
