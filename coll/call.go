package coll

import "errors"

// Call runs collective op with arguments a on this rank, choosing the
// algorithm as the package documentation describes. The typed functions
// (Bcast, Allreduce...) are wrappers of Call.
func Call(c Comm, op Operation, a *Args, opts ...Option) error {
	o := merge(opts)
	rank := c.Rank()
	bytes, err := check(op, c.Size(), rank, a)
	if err != nil {
		return &Error{Op: op, Rank: rank, Peer: -1, Err: err}
	}
	alg, err := choose(c, op, a, bytes, o.algorithm)
	if err != nil {
		return &Error{Op: op, Rank: rank, Peer: -1, Err: err}
	}
	if ob, ok := c.(AlgorithmObserver); ok {
		ob.RunningAlgorithm(op, alg.Name)
	}
	if o.segment > 0 {
		b := *a
		b.SegmentSize = o.segment
		a = &b
	}
	err = alg.Run(c, a)
	if err == nil {
		return nil
	}
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Rank: rank, Peer: -1, Err: err}
	}
	if e.Op == "" {
		e.Op, e.Algorithm = op, alg.Name
	}
	return e
}

// Barrier blocks until every rank has called it.
func Barrier(c Comm, opts ...Option) error {
	return Call(c, OpBarrier, &Args{}, opts...)
}

// Bcast copies buf of root into buf of every rank; buf has the same length on
// all ranks.
func Bcast(c Comm, buf []byte, root int, opts ...Option) error {
	return Call(c, OpBcast, &Args{Recv: buf, Root: root}, opts...)
}

// Reduce combines the send vectors of all ranks element by element with op,
// in rank order, into recv at root. recv is read only at root and has the
// length of send. In place: send nil at root; recv holds root's contribution.
func Reduce(c Comm, send, recv []byte, op Op, root int, opts ...Option) error {
	return Call(c, OpReduce, &Args{Send: send, Recv: recv, Op: op, Root: root}, opts...)
}

// Allreduce is Reduce with the result in recv on every rank. In place: send
// nil; recv holds the contribution.
func Allreduce(c Comm, send, recv []byte, op Op, opts ...Option) error {
	return Call(c, OpAllreduce, &Args{Send: send, Recv: recv, Op: op}, opts...)
}

// Gather collects every rank's send block at root: block i of recv (at i·m,
// m = len(send)) is rank i's. recv is read only at root, with Size()·m bytes.
// In place: send nil at root; root's block is already in recv.
func Gather(c Comm, send, recv []byte, root int, opts ...Option) error {
	return Call(c, OpGather, &Args{Send: send, Recv: recv, Root: root}, opts...)
}

// Gatherv is Gather with blocks of different lengths: at root, rank i's block
// goes to recv[displs[i]:displs[i]+counts[i]] (counts and displs are read
// only at root). In place: send nil at root.
func Gatherv(c Comm, send, recv []byte, counts, displs []int, root int, opts ...Option) error {
	return Call(c, OpGatherv, &Args{Send: send, Recv: recv, RecvCounts: counts, RecvDispls: displs, Root: root}, opts...)
}

// Scatter hands block i of root's send (at i·m, m = len(recv)) to rank i. send
// is read only at root, with Size()·m bytes. In place: recv nil at root;
// root's block stays in send.
func Scatter(c Comm, send, recv []byte, root int, opts ...Option) error {
	return Call(c, OpScatter, &Args{Send: send, Recv: recv, Root: root}, opts...)
}

// Scatterv is Scatter with blocks of different lengths: rank i gets root's
// send[displs[i]:displs[i]+counts[i]] (counts and displs are read only at
// root). In place: recv nil at root.
func Scatterv(c Comm, send []byte, counts, displs []int, recv []byte, root int, opts ...Option) error {
	return Call(c, OpScatterv, &Args{Send: send, SendCounts: counts, SendDispls: displs, Recv: recv, Root: root}, opts...)
}

// Allgather is Gather with the result at every rank. In place: send nil; the
// rank's block is already in recv.
func Allgather(c Comm, send, recv []byte, opts ...Option) error {
	return Call(c, OpAllgather, &Args{Send: send, Recv: recv}, opts...)
}

// Allgatherv is Gatherv with the result at every rank; counts and displs are
// given on every rank (counts alike everywhere, displs may differ). In place:
// send nil.
func Allgatherv(c Comm, send, recv []byte, counts, displs []int, opts ...Option) error {
	return Call(c, OpAllgatherv, &Args{Send: send, Recv: recv, RecvCounts: counts, RecvDispls: displs}, opts...)
}

// Alltoall sends block j of send to rank j, which stores it as block i of its
// recv (i the sender); blocks are len(send)/Size() bytes. In place: send
// nil; the data to send is taken from recv.
func Alltoall(c Comm, send, recv []byte, opts ...Option) error {
	return Call(c, OpAlltoall, &Args{Send: send, Recv: recv}, opts...)
}

// Alltoallv is Alltoall with per-peer counts and displacements in bytes: the
// block for rank j is send[sdispls[j]:][:scounts[j]], the block from rank i
// lands at recv[rdispls[i]:][:rcounts[i]]. In place: send nil; the send side
// then uses recv with the receive counts and displacements.
func Alltoallv(c Comm, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int, opts ...Option) error {
	return Call(c, OpAlltoallv, &Args{Send: send, SendCounts: scounts, SendDispls: sdispls,
		Recv: recv, RecvCounts: rcounts, RecvDispls: rdispls}, opts...)
}

// Alltoallw is MPI_Alltoallw with the datatypes collapsed to bytes: the runtime
// converts each peer's (count, type) to a byte count and its displacement to
// bytes, which makes it Alltoallv; it is its own operation for selection and
// tracing. In place: send nil.
func Alltoallw(c Comm, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int, opts ...Option) error {
	return Call(c, OpAlltoallw, &Args{Send: send, SendCounts: scounts, SendDispls: sdispls,
		Recv: recv, RecvCounts: rcounts, RecvDispls: rdispls}, opts...)
}

// ReduceScatter reduces the send vectors of all ranks (their length is the
// sum of counts) with op and gives rank i the counts[i] bytes of the result
// that follow the first counts[0]+…+counts[i−1], in recv (counts[i] bytes).
// In place: send nil; recv holds the whole vector and gets the rank's part
// at its start.
func ReduceScatter(c Comm, send, recv []byte, counts []int, op Op, opts ...Option) error {
	return Call(c, OpReduceScatter, &Args{Send: send, Recv: recv, RecvCounts: counts, Op: op}, opts...)
}

// ReduceScatterBlock is ReduceScatter with equal parts: send has Size() blocks
// of len(recv) bytes. In place: send nil; recv holds the whole vector and gets
// the rank's block at its start.
func ReduceScatterBlock(c Comm, send, recv []byte, op Op, opts ...Option) error {
	return Call(c, OpReduceScatterBlock, &Args{Send: send, Recv: recv, Op: op}, opts...)
}

// Scan sets recv on rank r to x₀∘x₁∘…∘x_r, x_i being rank i's send. In place:
// send nil; recv holds the contribution.
func Scan(c Comm, send, recv []byte, op Op, opts ...Option) error {
	return Call(c, OpScan, &Args{Send: send, Recv: recv, Op: op}, opts...)
}

// Exscan sets recv on rank r > 0 to x₀∘…∘x_{r−1}; recv of rank 0 is left as
// it is. In place: send nil; recv holds the contribution.
func Exscan(c Comm, send, recv []byte, op Op, opts ...Option) error {
	return Call(c, OpExscan, &Args{Send: send, Recv: recv, Op: op}, opts...)
}
