package rma

import "unsafe"

// Regions maps the displacements of a dynamic window to the memory attached
// to it. Each attached slice gets its own range of displacements (in
// elements), never reused while the window lives, so an access to a
// detached or never attached range is recognised, never misdirected.
type Regions struct {
	next uint64 // the first displacement of the next attach
	list []region
}

type region struct {
	start uint64 // first displacement
	mem   []byte
}

// FirstDisp is the displacement of the first attached slice. It is not 0,
// so that an origin that forgot to learn a displacement fails loudly.
const FirstDisp = 1 << 20

// Attach adds mem (one or more whole elements of size bytes) and returns the
// displacement of its first element, or false if it overlaps memory
// already attached.
func (r *Regions) Attach(mem []byte, size int) (uint64, bool) {
	if r.next == 0 {
		r.next = FirstDisp
	}
	for _, g := range r.list {
		if overlap(g.mem, mem) {
			return 0, false
		}
	}
	d := r.next
	n := uint64(len(mem) / size)
	r.next += n + 1 // a gap of one element: an access past the end never reaches the next region
	r.list = append(r.list, region{start: d, mem: mem})
	return d, true
}

// Detach removes the attached slice that starts where mem starts, and
// reports whether there was one.
func (r *Regions) Detach(mem []byte) bool {
	for i, g := range r.list {
		if len(mem) > 0 && &g.mem[0] == &mem[0] {
			r.list = append(r.list[:i], r.list[i+1:]...)
			return true
		}
	}
	return false
}

// Find returns the bytes of count elements of size bytes from displacement
// disp, or nil if they are not all inside one attached slice.
func (r *Regions) Find(disp, count uint64, size int) []byte {
	for _, g := range r.list {
		n := uint64(len(g.mem) / size)
		if disp >= g.start && disp-g.start <= n && count <= n-(disp-g.start) {
			off := (disp - g.start) * uint64(size)
			return g.mem[off : off+count*uint64(size)]
		}
	}
	return nil
}

// Len is the number of attached slices.
func (r *Regions) Len() int { return len(r.list) }

func overlap(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	a0, b0 := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return a0 < b0+uintptr(len(b)) && b0 < a0+uintptr(len(a))
}
