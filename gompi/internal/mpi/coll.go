//go:build mpi || mpich

package mpi

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi/internal/base"
)

// MPI's own collectives. The gompi package registers them as the algorithm
// "mpi" of every operation and puts it first in the selection table, so
// that a collective runs MPI_Bcast, MPI_Allreduce... unless an algorithm of
// package coll is named. Arguments arrive validated by coll (lengths,
// counts, root, whole elements), in bytes.

// which maps coll's operations onto the shim's (-1: none).
func which(op coll.Operation) C.int {
	switch op {
	case coll.OpBarrier:
		return C.GOMPI_BARRIER
	case coll.OpBcast:
		return C.GOMPI_BCAST
	case coll.OpReduce:
		return C.GOMPI_REDUCE
	case coll.OpAllreduce:
		return C.GOMPI_ALLREDUCE
	case coll.OpGather:
		return C.GOMPI_GATHER
	case coll.OpGatherv:
		return C.GOMPI_GATHERV
	case coll.OpScatter:
		return C.GOMPI_SCATTER
	case coll.OpScatterv:
		return C.GOMPI_SCATTERV
	case coll.OpAllgather:
		return C.GOMPI_ALLGATHER
	case coll.OpAllgatherv:
		return C.GOMPI_ALLGATHERV
	case coll.OpAlltoall:
		return C.GOMPI_ALLTOALL
	case coll.OpAlltoallv:
		return C.GOMPI_ALLTOALLV
	case coll.OpAlltoallw:
		return C.GOMPI_ALLTOALLW
	case coll.OpReduceScatter:
		return C.GOMPI_REDUCE_SCATTER
	case coll.OpReduceScatterBlock:
		return C.GOMPI_REDUCE_SCATTER_BLOCK
	case coll.OpScan:
		return C.GOMPI_SCAN
	case coll.OpExscan:
		return C.GOMPI_EXSCAN
	}
	return -1
}

// MPIName returns the MPI function of op ("MPI_Bcast").
func MPIName(op coll.Operation) string {
	s := string(op)
	return "MPI_" + string(s[0]-'a'+'A') + s[1:]
}

// collCall is one collective call translated for gompi_coll.
type collCall struct {
	op         coll.Operation
	which      C.int
	inplace    C.int
	sbuf, rbuf []byte
	scount     C.int
	rcount     C.int
	arrays     unsafe.Pointer // C memory: scounts, sdispls, rcounts, rdispls, then types
	scounts    *C.int
	sdispls    *C.int
	rcounts    *C.int
	rdispls    *C.int
	types      C.uintptr_t // in arrays: n MPI_Datatypes (as an integer: cgo need not check it)
	dt         C.gompi_h
	mop        C.gompi_h
	root       C.int
	userType   C.gompi_h // a datatype made for a user operator, freed at the end
	userKey    uintptr
	hasUser    bool
	keep       []byte // Exscan: rank 0's recv, restored at the end
}

// Coll runs op with MPI's own collective and returns when it is complete.
// The call's description lives on the stack: a blocking collective
// allocates nothing.
func (c *Comm) Coll(op coll.Operation, a *coll.Args) error {
	if c.oneRankAllgatherv(op, a) {
		return nil
	}
	var k collCall
	if err := c.prepare(op, a, &k); err != nil {
		return err
	}
	res := C.gompi_coll(k.which, 0, k.inplace, ptr(k.sbuf), ptr(k.rbuf), k.scount, k.rcount,
		k.scounts, k.sdispls, k.rcounts, k.rdispls, k.types, k.dt, k.mop, k.root, c.h)
	k.finish(a)
	if res.err != 0 {
		return c.mpiErr(MPIName(op), res.err, -1, -1)
	}
	return nil
}

// StartColl starts op as MPI's own nonblocking collective (MPI_Ibcast...);
// its buffers are pinned until the request completes.
func (c *Comm) StartColl(op coll.Operation, a *coll.Args) (*Request, error) {
	if c.oneRankAllgatherv(op, a) {
		return NewDone(c, base.EmptyStatus, false), nil
	}
	k := new(collCall)
	if err := c.prepare(op, a, k); err != nil {
		return nil, err
	}
	r := &Request{p: c.p, comm: c, kind: kindColl, op: "I" + MPIName(op)[4:], peer: -1, tag: -1}
	r.pinBuf(k.sbuf)
	r.pinBuf(k.rbuf)
	res := C.gompi_coll(k.which, 1, k.inplace, ptr(k.sbuf), ptr(k.rbuf), k.scount, k.rcount,
		k.scounts, k.sdispls, k.rcounts, k.rdispls, k.types, k.dt, k.mop, k.root, c.h)
	if res.err != 0 {
		r.unpin()
		k.finish(a)
		return nil, c.mpiErr(r.op, res.err, -1, -1)
	}
	r.h = res.req
	r.fin = func() { k.finish(a) }
	c.p.track(r)
	return r, nil
}

// oneRankAllgatherv does an Allgatherv on a one-rank communicator itself,
// under MPICH: MPICH 4.0 ignores the displacement there (it copies to the
// start of recv; see docs/MPI_BACKEND.md). It reports whether it did.
func (c *Comm) oneRankAllgatherv(op coll.Operation, a *coll.Args) bool {
	if Name != "mpich" || op != coll.OpAllgatherv || c.size != 1 {
		return false
	}
	if a.Send != nil { // in place, the block is where it belongs
		copy(a.Recv[a.RecvDispls[0]:][:a.RecvCounts[0]], a.Send)
	}
	return true
}

// finish frees what the call made and restores what MPI may have touched.
func (k *collCall) finish(a *coll.Args) {
	if k.arrays != nil {
		C.free(k.arrays)
		k.arrays = nil
	}
	if k.hasUser {
		forgetUserOp(k.userKey)
		C.gompi_type_free(k.userType)
		k.hasUser = false
	}
	if k.keep != nil {
		copy(a.Recv, k.keep) // MPI leaves rank 0's Exscan result undefined; gompi leaves recv as it was
	}
}

// count converts a byte length into a count of units.
func (c *Comm) count(op coll.Operation, n, unit int) (C.int, error) {
	if n/unit > maxCount {
		return 0, c.tooLarge(MPIName(op), n, -1, -1)
	}
	return C.int(n / unit), nil
}

// prepare translates a call into gompi_coll's arguments, in k.
func (c *Comm) prepare(op coll.Operation, a *coll.Args, k *collCall) error {
	w := which(op)
	if w < 0 {
		return base.New(string(op), base.ErrNotSupported, "no MPI collective for "+string(op), "")
	}
	k.op, k.which, k.dt, k.root = op, w, byteType, C.int(a.Root)
	n, me := c.size, c.rank
	isRoot := me == a.Root
	var err error
	bytesOf := func(x int) (C.int, error) { return c.count(op, x, 1) }
	switch op {
	case coll.OpBarrier:
	case coll.OpBcast:
		k.rbuf = a.Recv
		k.rcount, err = bytesOf(len(a.Recv))
	case coll.OpReduce, coll.OpAllreduce, coll.OpScan, coll.OpExscan, coll.OpReduceScatterBlock:
		unit, err2 := k.setOp(a.Op)
		if err2 != nil {
			return err2
		}
		k.sbuf, k.rbuf = a.Send, a.Recv
		vec := a.Send
		if a.Send == nil {
			k.inplace, vec = C.GOMPI_INPLACE_SEND, a.Recv
		}
		switch {
		case op == coll.OpReduce && !isRoot:
			k.rbuf = nil // recv is significant at the root only
		case op == coll.OpReduceScatterBlock:
			vec = a.Recv // the count is one block
			if a.Send == nil {
				vec = a.Recv[:len(a.Recv)/n]
			}
		case op == coll.OpExscan && me == 0:
			k.keep = append([]byte(nil), a.Recv...)
		}
		k.rcount, err = c.count(op, len(vec), unit)
	case coll.OpReduceScatter:
		unit, err2 := k.setOp(a.Op)
		if err2 != nil {
			return err2
		}
		k.sbuf, k.rbuf = a.Send, a.Recv
		if a.Send == nil {
			k.inplace = C.GOMPI_INPLACE_SEND
		}
		k.alloc(n, false)
		if err = k.fill(c, k.rcounts, a.RecvCounts, unit); err != nil {
			k.finish(a)
			return err
		}
	case coll.OpGather, coll.OpAllgather:
		block := len(a.Send)
		if a.Send == nil && (isRoot || op == coll.OpAllgather) {
			k.inplace, block = C.GOMPI_INPLACE_SEND, len(a.Recv)/n
		}
		k.sbuf = a.Send
		if isRoot || op == coll.OpAllgather {
			k.rbuf = a.Recv
		}
		k.scount, err = bytesOf(block)
		k.rcount = k.scount
	case coll.OpScatter:
		block := len(a.Recv)
		if a.Recv == nil && isRoot {
			k.inplace, block = C.GOMPI_INPLACE_RECV, len(a.Send)/n
		}
		if isRoot {
			k.sbuf = a.Send
		}
		k.rbuf = a.Recv
		k.scount, err = bytesOf(block)
		k.rcount = k.scount
	case coll.OpGatherv, coll.OpAllgatherv:
		k.sbuf = a.Send
		if a.Send == nil && (isRoot || op == coll.OpAllgatherv) {
			k.inplace = C.GOMPI_INPLACE_SEND
		}
		k.scount, err = bytesOf(len(a.Send))
		if isRoot || op == coll.OpAllgatherv {
			k.rbuf = a.Recv
			k.alloc(n, false)
			if err == nil {
				err = k.layout(c, k.rcounts, k.rdispls, a.RecvCounts, a.RecvDispls)
			}
		}
	case coll.OpScatterv:
		k.rbuf = a.Recv
		if a.Recv == nil && isRoot {
			k.inplace = C.GOMPI_INPLACE_RECV
		}
		k.rcount, err = bytesOf(len(a.Recv))
		if isRoot {
			k.sbuf = a.Send
			k.alloc(n, false)
			if err == nil {
				err = k.layout(c, k.scounts, k.sdispls, a.SendCounts, a.SendDispls)
			}
		}
	case coll.OpAlltoall:
		k.sbuf, k.rbuf = a.Send, a.Recv
		if a.Send == nil {
			k.inplace = C.GOMPI_INPLACE_SEND
		}
		k.scount, err = bytesOf(len(a.Recv) / n)
		k.rcount = k.scount
	case coll.OpAlltoallv, coll.OpAlltoallw:
		k.sbuf, k.rbuf = a.Send, a.Recv
		k.alloc(n, op == coll.OpAlltoallw)
		if a.Send == nil {
			k.inplace = C.GOMPI_INPLACE_SEND
		} else {
			err = k.layout(c, k.scounts, k.sdispls, a.SendCounts, a.SendDispls)
		}
		if err == nil {
			err = k.layout(c, k.rcounts, k.rdispls, a.RecvCounts, a.RecvDispls)
		}
	}
	if err != nil {
		k.finish(a)
		return err
	}
	return nil
}

// alloc makes the C arrays of counts and displacements (and, for
// Alltoallw, of datatypes, all MPI_BYTE): MPI reads them until a
// nonblocking collective completes, so they live in C memory.
func (k *collCall) alloc(n int, types bool) {
	k.arrays = C.gompi_arrays(C.int(n), boolInt(types))
	ints := unsafe.Slice((*C.int)(k.arrays), 4*n)
	if n > 0 {
		k.scounts, k.sdispls, k.rcounts, k.rdispls = &ints[0], &ints[n], &ints[2*n], &ints[3*n]
	}
	if types {
		k.types = C.gompi_arrays_types(k.arrays, C.int(n))
	}
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// layout fills the C arrays of a block layout given in bytes.
func (k *collCall) layout(c *Comm, counts, displs *C.int, xs, ds []int) error {
	if err := k.fill(c, counts, xs, 1); err != nil {
		return err
	}
	return k.fill(c, displs, ds, 1)
}

// fill copies xs, in bytes, into the C array at dst as counts of units.
func (k *collCall) fill(c *Comm, dst *C.int, xs []int, unit int) error {
	d := unsafe.Slice(dst, len(xs))
	for i, x := range xs {
		v, err := c.count(k.op, x, unit)
		if err != nil {
			return err
		}
		d[i] = v
	}
	return nil
}

// Handles of MPI's datatypes and operators, read once.
var (
	byteType  = C.gompi_type_byte()
	kindTypes [reflect.UnsafePointer + 1]C.gompi_h // by element kind; zero where MPI has no type
	mpiOps    [len(opNames)]C.gompi_h
)

// opNames are the predefined operators in the shim's order (gompi_op).
var opNames = [...]string{"sum", "prod", "min", "max", "land", "lor", "lxor", "band", "bor", "bxor"}

func init() {
	// The shim's element kinds (gompi_type), in reflect.Kind order; int,
	// uint and uintptr are 64-bit on the platforms Go and MPI share here.
	for i, k := range []reflect.Kind{reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128} {
		kindTypes[k] = C.gompi_type(C.int(i + 1))
	}
	if unsafe.Sizeof(int(0)) == 8 {
		kindTypes[reflect.Int], kindTypes[reflect.Uint], kindTypes[reflect.Uintptr] =
			kindTypes[reflect.Int64], kindTypes[reflect.Uint64], kindTypes[reflect.Uint64]
	}
	for i := range opNames {
		mpiOps[i] = C.gompi_op(C.int(i))
	}
}

// predefinedOp returns the index of a predefined operator in opNames, -1 if
// name is none of them.
func predefinedOp(name string) int {
	switch name {
	case "sum":
		return 0
	case "prod":
		return 1
	case "min":
		return 2
	case "max":
		return 3
	case "land":
		return 4
	case "lor":
		return 5
	case "lxor":
		return 6
	case "band":
		return 7
	case "bor":
		return 8
	case "bxor":
		return 9
	}
	return -1
}

// allows says whether MPI defines predefined operator name on kind.
func allows(name string, kind reflect.Kind) bool {
	switch kind {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true // every predefined operator but the *loc ones takes integers
	case reflect.Float32, reflect.Float64:
		return name == "sum" || name == "prod" || name == "min" || name == "max"
	case reflect.Complex64, reflect.Complex128:
		return name == "sum" || name == "prod"
	}
	return false
}

// setOp picks the datatype and operator of a reduction: MPI's own where the
// Op is one of coll's constructors on a type MPI knows, otherwise a
// datatype of the element's size and a user operator that calls Apply. It
// returns the element size.
func (k *collCall) setOp(o coll.Op) (int, error) {
	if i := predefinedOp(o.Predefined); i >= 0 && allows(o.Predefined, o.ElemKind) {
		k.dt, k.mop = kindTypes[o.ElemKind], mpiOps[i]
		return o.ElemSize, nil
	}
	if o.ElemSize <= 0 || o.Apply == nil {
		return 0, base.New(string(k.op), base.ErrArg, fmt.Sprintf("operator %s has no element size or no function", o.Name), "")
	}
	t := C.gompi_type_contiguous(C.int(o.ElemSize))
	if t.err != 0 {
		return 0, base.New(string(k.op), base.ErrInternal, "MPI_Type_contiguous: "+errString(t.err), "")
	}
	k.userType = t._type
	k.hasUser = true
	k.userKey = rememberUserOp(uintptr(C.gompi_type_key(k.userType)), o)
	k.dt = k.userType
	k.mop = userOp(o.Commutative)
	return o.ElemSize, nil
}
