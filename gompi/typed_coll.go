package gompi

import "unsafe"

// Typed collectives: the generic functions take slices of any fixed-size
// element type, and counts and displacements in elements; they call the
// byte-slice methods of Comm without copying. InPlace[T]() as the send
// slice means "in place", as for the methods.

func elemSize[T any]() int { return int(unsafe.Sizeof(*new(T))) }

// inBytes scales element counts or displacements to bytes, into the k-th
// (0..3) of c's arrays kept for this, so that a typed collective with counts
// allocates nothing. Only blocking calls use it: blocking collectives on one
// communicator are never concurrent (MPI's rule, which collective relies on
// too), and the arrays are not used after the call returns.
func inBytes[T any](c *Comm, k int, xs []int) []int {
	size := elemSize[T]()
	if xs == nil || size == 1 {
		return xs
	}
	var out []int
	if c != nil && cap(c.scaled[k]) >= len(xs) {
		out = c.scaled[k][:len(xs)]
	} else {
		out = make([]int, len(xs))
		if c != nil {
			c.scaled[k] = out
		}
	}
	for i, x := range xs {
		out[i] = x * size
	}
	return out
}

// twoBuffers views a send and a receive slice as bytes.
func twoBuffers[T any](name string, send, recv []T) (s, r []byte, err error) {
	if s, err = asBytes(name, send); err != nil {
		return nil, nil, err
	}
	r, err = asBytes(name, recv)
	return s, r, err
}

// Barrier waits for every rank of c (the same as c.Barrier).
func Barrier(c *Comm, opts ...CollOption) error { return c.Barrier(opts...) }

// Bcast copies buf of rank root to every rank.
func Bcast[T any](c *Comm, buf []T, root int, opts ...CollOption) error {
	b, err := asBytes("Bcast", buf)
	if err != nil {
		return err
	}
	return c.Bcast(b, root, opts...)
}

// Reduce combines send of every rank with op into recv at root.
func Reduce[T any](c *Comm, send, recv []T, op Op[T], root int, opts ...CollOption) error {
	s, r, err := twoBuffers("Reduce", send, recv)
	if err != nil {
		return err
	}
	return c.Reduce(s, r, op, root, opts...)
}

// Allreduce combines send of every rank with op into recv on every rank.
func Allreduce[T any](c *Comm, send, recv []T, op Op[T], opts ...CollOption) error {
	s, r, err := twoBuffers("Allreduce", send, recv)
	if err != nil {
		return err
	}
	return c.Allreduce(s, r, op, opts...)
}

// Gather collects send of every rank into recv at root.
func Gather[T any](c *Comm, send, recv []T, root int, opts ...CollOption) error {
	s, r, err := twoBuffers("Gather", send, recv)
	if err != nil {
		return err
	}
	return c.Gather(s, r, root, opts...)
}

// Gatherv collects send of every rank into recv at root, rank i's counts[i]
// elements at displs[i].
func Gatherv[T any](c *Comm, send, recv []T, counts, displs []int, root int, opts ...CollOption) error {
	s, r, err := twoBuffers("Gatherv", send, recv)
	if err != nil {
		return err
	}
	return c.Gatherv(s, r, inBytes[T](c, 0, counts), inBytes[T](c, 1, displs), root, opts...)
}

// Scatter hands block i of root's send to rank i.
func Scatter[T any](c *Comm, send, recv []T, root int, opts ...CollOption) error {
	s, r, err := twoBuffers("Scatter", send, recv)
	if err != nil {
		return err
	}
	return c.Scatter(s, r, root, opts...)
}

// Scatterv hands rank i the counts[i] elements of root's send at displs[i].
func Scatterv[T any](c *Comm, send []T, counts, displs []int, recv []T, root int, opts ...CollOption) error {
	s, r, err := twoBuffers("Scatterv", send, recv)
	if err != nil {
		return err
	}
	return c.Scatterv(s, inBytes[T](c, 0, counts), inBytes[T](c, 1, displs), r, root, opts...)
}

// Allgather collects send of every rank into recv on every rank.
func Allgather[T any](c *Comm, send, recv []T, opts ...CollOption) error {
	s, r, err := twoBuffers("Allgather", send, recv)
	if err != nil {
		return err
	}
	return c.Allgather(s, r, opts...)
}

// Allgatherv is Gatherv with the result on every rank.
func Allgatherv[T any](c *Comm, send, recv []T, counts, displs []int, opts ...CollOption) error {
	s, r, err := twoBuffers("Allgatherv", send, recv)
	if err != nil {
		return err
	}
	return c.Allgatherv(s, r, inBytes[T](c, 0, counts), inBytes[T](c, 1, displs), opts...)
}

// Alltoall sends block j of send to rank j.
func Alltoall[T any](c *Comm, send, recv []T, opts ...CollOption) error {
	s, r, err := twoBuffers("Alltoall", send, recv)
	if err != nil {
		return err
	}
	return c.Alltoall(s, r, opts...)
}

// Alltoallv is Alltoall with per-peer counts and displacements in elements.
func Alltoallv[T any](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int, opts ...CollOption) error {
	s, r, err := twoBuffers("Alltoallv", send, recv)
	if err != nil {
		return err
	}
	return c.Alltoallv(s, inBytes[T](c, 0, scounts), inBytes[T](c, 1, sdispls), r, inBytes[T](c, 2, rcounts), inBytes[T](c, 3, rdispls), opts...)
}

// ReduceScatter reduces send of every rank with op and gives rank i counts[i]
// elements of the result.
func ReduceScatter[T any](c *Comm, send, recv []T, counts []int, op Op[T], opts ...CollOption) error {
	s, r, err := twoBuffers("ReduceScatter", send, recv)
	if err != nil {
		return err
	}
	return c.ReduceScatter(s, r, inBytes[T](c, 0, counts), op, opts...)
}

// ReduceScatterBlock is ReduceScatter with len(recv) elements for every rank.
func ReduceScatterBlock[T any](c *Comm, send, recv []T, op Op[T], opts ...CollOption) error {
	s, r, err := twoBuffers("ReduceScatterBlock", send, recv)
	if err != nil {
		return err
	}
	return c.ReduceScatterBlock(s, r, op, opts...)
}

// Scan sets recv on rank r to the reduction of ranks 0..r.
func Scan[T any](c *Comm, send, recv []T, op Op[T], opts ...CollOption) error {
	s, r, err := twoBuffers("Scan", send, recv)
	if err != nil {
		return err
	}
	return c.Scan(s, r, op, opts...)
}

// Exscan sets recv on rank r > 0 to the reduction of ranks 0..r-1.
func Exscan[T any](c *Comm, send, recv []T, op Op[T], opts ...CollOption) error {
	s, r, err := twoBuffers("Exscan", send, recv)
	if err != nil {
		return err
	}
	return c.Exscan(s, r, op, opts...)
}

// Ibcast starts a typed Bcast.
func Ibcast[T any](c *Comm, buf []T, root int, opts ...CollOption) (*Request, error) {
	b, err := asBytes("Ibcast", buf)
	if err != nil {
		return nil, err
	}
	return c.Ibcast(b, root, opts...)
}

// Iallreduce starts a typed Allreduce.
func Iallreduce[T any](c *Comm, send, recv []T, op Op[T], opts ...CollOption) (*Request, error) {
	s, r, err := twoBuffers("Iallreduce", send, recv)
	if err != nil {
		return nil, err
	}
	return c.Iallreduce(s, r, op, opts...)
}

// Ireduce starts a typed Reduce.
func Ireduce[T any](c *Comm, send, recv []T, op Op[T], root int, opts ...CollOption) (*Request, error) {
	s, r, err := twoBuffers("Ireduce", send, recv)
	if err != nil {
		return nil, err
	}
	return c.Ireduce(s, r, op, root, opts...)
}

// Iallgather starts a typed Allgather.
func Iallgather[T any](c *Comm, send, recv []T, opts ...CollOption) (*Request, error) {
	s, r, err := twoBuffers("Iallgather", send, recv)
	if err != nil {
		return nil, err
	}
	return c.Iallgather(s, r, opts...)
}

// Ialltoall starts a typed Alltoall.
func Ialltoall[T any](c *Comm, send, recv []T, opts ...CollOption) (*Request, error) {
	s, r, err := twoBuffers("Ialltoall", send, recv)
	if err != nil {
		return nil, err
	}
	return c.Ialltoall(s, r, opts...)
}
