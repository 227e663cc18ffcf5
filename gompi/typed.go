package gompi

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/gompi/gompi/gompi/internal/base"
)

// The generic functions move slices of any fixed-size element type — numbers,
// arrays and structs of numbers — without copying: the slice's memory is
// sent as it is. Element types holding pointers (strings, slices, maps,
// pointers, interfaces, channels, functions) cannot cross a process boundary
// and are refused with ErrArg. Both sides must use the same element type.

// asBytes views s as bytes; a nil slice stays nil, and InPlace[T]() becomes
// InPlace[byte]().
func asBytes[T any](op string, s []T) ([]byte, error) {
	if !plainElem[T]() {
		if err := checkElem(op, reflect.TypeFor[T]()); err != nil {
			return nil, err
		}
	}
	if s == nil {
		return nil, nil
	}
	if isInPlace(s) {
		return InPlace[byte](), nil
	}
	n := len(s) * int(unsafe.Sizeof(*new(T)))
	if n == 0 {
		return []byte{}, nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), n), nil
}

// plainElem reports whether T is one of the common element types, which
// hold no pointers: a type switch on a typed nil pointer, which costs a few
// compares, where checkElem's reflect.TypeFor and Kind are two calls on
// every typed call (twice for the calls with two buffers).
func plainElem[T any]() bool {
	switch any((*T)(nil)).(type) {
	case *float64, *float32, *int32, *int64, *int, *uint8, *int8, *uint32, *uint64, *int16, *uint16, *uint,
		*complex128, *complex64, *bool, *uintptr:
		return true
	}
	return false
}

var plainTypes sync.Map // reflect.Type → error (nil when plain)

func checkElem(op string, t reflect.Type) error {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return nil
	}
	if v, ok := plainTypes.Load(t); ok {
		if v == nil {
			return nil
		}
		return v.(error)
	}
	var err error
	if bad := pointerPath(t); bad != "" {
		err = base.New(op, base.ErrArg, fmt.Sprintf("element type %v holds %s", t, bad),
			"only fixed-size types without pointers can be sent: numbers, arrays and structs of them")
	}
	if err == nil {
		plainTypes.Store(t, nil)
	} else {
		plainTypes.Store(t, err)
	}
	return err
}

// pointerPath describes the first pointer-holding part of t, or "" if none.
func pointerPath(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Array:
		return pointerPath(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if p := pointerPath(t.Field(i).Type); p != "" {
				return p
			}
		}
		return ""
	case reflect.String, reflect.Slice, reflect.Map, reflect.Pointer, reflect.UnsafePointer,
		reflect.Interface, reflect.Chan, reflect.Func:
		return "a " + t.Kind().String()
	}
	return ""
}

// Count returns the number of whole elements of type T a status describes,
// or Undefined if its byte count is not a multiple of T's size.
func Count[T any](st Status) int {
	size := int(unsafe.Sizeof(*new(T)))
	if size == 0 || st.Count%size != 0 {
		return Undefined
	}
	return st.Count / size
}

// Send sends the elements of buf (see Comm.Send).
func Send[T any](c *Comm, buf []T, dest, tag int) error {
	b, err := asBytes("Send", buf)
	if err != nil {
		return err
	}
	return c.Send(b, dest, tag)
}

// Ssend sends the elements of buf in synchronous mode (see Comm.Ssend).
func Ssend[T any](c *Comm, buf []T, dest, tag int) error {
	b, err := asBytes("Ssend", buf)
	if err != nil {
		return err
	}
	return c.Ssend(b, dest, tag)
}

// Rsend sends the elements of buf in ready mode (see Comm.Rsend).
func Rsend[T any](c *Comm, buf []T, dest, tag int) error {
	b, err := asBytes("Rsend", buf)
	if err != nil {
		return err
	}
	return c.Rsend(b, dest, tag)
}

// Bsend sends the elements of buf in buffered mode (see Comm.Bsend).
func Bsend[T any](c *Comm, buf []T, dest, tag int) error {
	b, err := asBytes("Bsend", buf)
	if err != nil {
		return err
	}
	return c.Bsend(b, dest, tag)
}

// Recv receives into the elements of buf (see Comm.Recv); Count[T] of the
// status gives the number of elements received.
func Recv[T any](c *Comm, buf []T, src, tag int) (Status, error) {
	b, err := asBytes("Recv", buf)
	if err != nil {
		return Status{}, err
	}
	return c.Recv(b, src, tag)
}

// Isend starts a send of the elements of buf (see Comm.Isend).
func Isend[T any](c *Comm, buf []T, dest, tag int) (*Request, error) {
	b, err := asBytes("Isend", buf)
	if err != nil {
		return nil, err
	}
	return c.Isend(b, dest, tag)
}

// Irecv posts a receive into the elements of buf (see Comm.Irecv).
func Irecv[T any](c *Comm, buf []T, src, tag int) (*Request, error) {
	b, err := asBytes("Irecv", buf)
	if err != nil {
		return nil, err
	}
	return c.Irecv(b, src, tag)
}

// Sendrecv sends sbuf to dest while receiving rbuf from src (see
// Comm.Sendrecv).
func Sendrecv[S, R any](c *Comm, sbuf []S, dest, stag int, rbuf []R, src, rtag int) (Status, error) {
	sb, err := asBytes("Sendrecv", sbuf)
	if err != nil {
		return Status{}, err
	}
	rb, err := asBytes("Sendrecv", rbuf)
	if err != nil {
		return Status{}, err
	}
	return c.Sendrecv(sb, dest, stag, rb, src, rtag)
}

// SendInit makes a persistent send of the elements of buf (see
// Comm.SendInit).
func SendInit[T any](c *Comm, buf []T, dest, tag int) (*Request, error) {
	b, err := asBytes("SendInit", buf)
	if err != nil {
		return nil, err
	}
	return c.SendInit(b, dest, tag)
}

// RecvInit makes a persistent receive into the elements of buf (see
// Comm.RecvInit).
func RecvInit[T any](c *Comm, buf []T, src, tag int) (*Request, error) {
	b, err := asBytes("RecvInit", buf)
	if err != nil {
		return nil, err
	}
	return c.RecvInit(b, src, tag)
}
