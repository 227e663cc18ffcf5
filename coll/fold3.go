package coll

import (
	"fmt"
	"unsafe"
)

// The three-operand fold: out = in ∘ inout in one pass, where Apply needs
// out to hold inout first (a copy, one pass more). Exscan's chain writes
// prefix r = prefix r−1 ∘ own into the buffer it publishes; with Apply it
// copied its own vector there, read the prefix, and folded: three passes
// over the vector, two with ApplyTo.

// ApplyTo sets out[i] = in[i] ∘ inout[i] element by element, leaving in and
// inout as they were (but where out is one of them). The three slices have
// the same length, a multiple of ElemSize; out may be in or inout
// themselves (the same first byte), but must not overlap them otherwise.
// The predefined operators with a vector fold (fold.go) do it in one pass;
// the others copy inout into out and Apply (out == in: through a temporary).
// The result has the bits of copy(out, inout); Apply(in, out).
func (o *Op) ApplyTo(out, in, inout []byte) {
	if len(in) != len(inout) || len(out) != len(inout) {
		panic(fmt.Sprintf("coll: %s applied to %d and %d bytes into %d", o.Name, len(in), len(inout), len(out)))
	}
	if len(out) == 0 {
		return
	}
	pi, po := unsafe.SliceData(in), unsafe.SliceData(out)
	pio := unsafe.SliceData(inout)
	if (po != pi && overlap(out, in)) || (po != pio && overlap(out, inout)) {
		panic(fmt.Sprintf("coll: %s: ApplyTo's out overlaps an operand without being it", o.Name))
	}
	switch {
	case o.apply3 != nil:
		o.apply3(in, inout, out)
	case po == pio:
		o.Apply(in, out)
	case po == pi:
		t := make([]byte, len(inout))
		copy(t, inout)
		o.Apply(in, t)
		copy(out, t)
	default:
		copy(out, inout)
		o.Apply(in, out)
	}
}

// overlap says whether a and b share a byte.
func overlap(a, b []byte) bool {
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

// vectorized3 is a predefined operator's ApplyTo with the kernel k3 over
// whole grains and the scalar Apply on a copy of the rest (below a grain).
func vectorized3(name string, k3 foldKernel3, scalar func(in, inout []byte), size int) func(in, inout, out []byte) {
	return func(in, inout, out []byte) {
		if len(inout)%size != 0 {
			panic(fmt.Sprintf("coll: %s applied to %d bytes (element size %d)", name, len(inout), size))
		}
		n := len(inout) &^ (foldGrain - 1)
		if n > 0 {
			k3(unsafe.SliceData(in), unsafe.SliceData(inout), unsafe.SliceData(out), n)
		}
		if n < len(inout) {
			var t [foldGrain]byte
			rest := t[:len(inout)-n]
			copy(rest, inout[n:])
			scalar(in[n:], rest)
			copy(out[n:], rest)
		}
	}
}
