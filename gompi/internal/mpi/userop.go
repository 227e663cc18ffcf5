//go:build mpi || mpich

package mpi

/*
#include "shim.h"
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/gompi/gompi/coll"
)

// User operators. MPI calls one C function for every user operator (one
// commutative, one not); it finds the Go Op by the datatype, which is made
// for each call (see collCall.setOp).

var (
	userOps    sync.Map // datatype key → coll.Op
	userOpOnce sync.Once
	userOpsMPI [2]C.gompi_h // not commutative, commutative
)

func userOp(commutative bool) C.gompi_h {
	userOpOnce.Do(func() {
		userOpsMPI[0] = C.gompi_user_op(0)
		userOpsMPI[1] = C.gompi_user_op(1)
	})
	if commutative {
		return userOpsMPI[1]
	}
	return userOpsMPI[0]
}

func rememberUserOp(key uintptr, o coll.Op) uintptr {
	userOps.Store(key, o)
	return key
}

func forgetUserOp(key uintptr) { userOps.Delete(key) }

//export gompiUserOp
func gompiUserOp(in, inout unsafe.Pointer, n C.int, key C.uintptr_t) {
	v, ok := userOps.Load(uintptr(key))
	if !ok || n <= 0 {
		return
	}
	o := v.(coll.Op)
	size := int(n) * o.ElemSize
	o.Apply(unsafe.Slice((*byte)(in), size), unsafe.Slice((*byte)(inout), size))
}
