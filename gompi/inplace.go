package gompi

import "unsafe"

// inPlaceMark is the memory InPlace slices point at: they are empty, so
// nothing is ever read or written there; only the address tells them apart.
// uint64 elements align it for every element type.
var inPlaceMark [1]uint64

// InPlace returns the marker that, passed as the send buffer of a
// collective (the receive buffer of Scatter and Scatterv at the root),
// means "in place" (MPI_IN_PLACE): the data is taken from, and the result
// left in, the other buffer.
//
//	gompi.Allreduce(c, gompi.InPlace[float64](), sums, gompi.Sum[float64]())
//	c.Allreduce(gompi.InPlace[byte](), buf, gompi.Sum[int32]())
//
// It is an empty slice; a nil (or any other empty) slice is an empty
// buffer, never "in place", so a slice left nil by mistake does not change
// the meaning of the call.
func InPlace[T any]() []T {
	return unsafe.Slice((*T)(unsafe.Pointer(&inPlaceMark)), 0)
}

// isInPlace reports whether s is the InPlace marker.
func isInPlace[T any](s []T) bool {
	return len(s) == 0 && cap(s) == 0 && unsafe.Pointer(unsafe.SliceData(s)) == unsafe.Pointer(&inPlaceMark)
}

// inPlace translates the API's buffer for package coll, where nil means in
// place: the marker becomes nil, and nil an empty buffer.
func inPlace(b []byte) []byte {
	switch {
	case isInPlace(b):
		return nil
	case b == nil:
		return []byte{}
	}
	return b
}
