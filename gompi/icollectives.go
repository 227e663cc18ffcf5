package gompi

import "github.com/gompi/gompi/coll"

// The nonblocking collectives start the operation and return its request at
// once. Arguments are those of the blocking forms; errors in them are
// returned by the request's Wait.

// Ibarrier starts a barrier.
func (c *Comm) Ibarrier(opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIbarrier, -1, -1, func(x *collComm) error { return coll.Barrier(x, opts...) })
}

// Ibcast starts a Bcast.
func (c *Comm) Ibcast(buf []byte, root int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIbcast, root, len(buf), func(x *collComm) error { return coll.Bcast(x, buf, root, opts...) })
}

// Ireduce starts a Reduce.
func (c *Comm) Ireduce(send, recv []byte, op Op, root int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIreduce, root, len(recv), func(x *collComm) error {
		return coll.Reduce(x, send, recv, op, root, opts...)
	})
}

// Iallreduce starts an Allreduce.
func (c *Comm) Iallreduce(send, recv []byte, op Op, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIallreduce, -1, len(recv), func(x *collComm) error {
		return coll.Allreduce(x, send, recv, op, opts...)
	})
}

// Igather starts a Gather.
func (c *Comm) Igather(send, recv []byte, root int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIgather, root, len(send), func(x *collComm) error {
		return coll.Gather(x, send, recv, root, opts...)
	})
}

// Igatherv starts a Gatherv.
func (c *Comm) Igatherv(send, recv []byte, counts, displs []int, root int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIgatherv, root, len(send), func(x *collComm) error {
		return coll.Gatherv(x, send, recv, counts, displs, root, opts...)
	})
}

// Iscatter starts a Scatter.
func (c *Comm) Iscatter(send, recv []byte, root int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIscatter, root, len(recv), func(x *collComm) error {
		return coll.Scatter(x, send, recv, root, opts...)
	})
}

// Iscatterv starts a Scatterv.
func (c *Comm) Iscatterv(send []byte, counts, displs []int, recv []byte, root int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIscatterv, root, len(recv), func(x *collComm) error {
		return coll.Scatterv(x, send, counts, displs, recv, root, opts...)
	})
}

// Iallgather starts an Allgather.
func (c *Comm) Iallgather(send, recv []byte, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIallgather, -1, len(send), func(x *collComm) error {
		return coll.Allgather(x, send, recv, opts...)
	})
}

// Iallgatherv starts an Allgatherv.
func (c *Comm) Iallgatherv(send, recv []byte, counts, displs []int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIallgatherv, -1, len(send), func(x *collComm) error {
		return coll.Allgatherv(x, send, recv, counts, displs, opts...)
	})
}

// Ialltoall starts an Alltoall.
func (c *Comm) Ialltoall(send, recv []byte, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIalltoall, -1, len(recv), func(x *collComm) error {
		return coll.Alltoall(x, send, recv, opts...)
	})
}

// Ialltoallv starts an Alltoallv.
func (c *Comm) Ialltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIalltoallv, -1, len(recv), func(x *collComm) error {
		return coll.Alltoallv(x, send, scounts, sdispls, recv, rcounts, rdispls, opts...)
	})
}

// Ialltoallw starts an Alltoallw.
func (c *Comm) Ialltoallw(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIalltoallw, -1, len(recv), func(x *collComm) error {
		return coll.Alltoallw(x, send, scounts, sdispls, recv, rcounts, rdispls, opts...)
	})
}

// IreduceScatter starts a ReduceScatter.
func (c *Comm) IreduceScatter(send, recv []byte, counts []int, op Op, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIreduceScatter, -1, len(recv), func(x *collComm) error {
		return coll.ReduceScatter(x, send, recv, counts, op, opts...)
	})
}

// IreduceScatterBlock starts a ReduceScatterBlock.
func (c *Comm) IreduceScatterBlock(send, recv []byte, op Op, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIreduceScatterBlock, -1, len(recv), func(x *collComm) error {
		return coll.ReduceScatterBlock(x, send, recv, op, opts...)
	})
}

// Iscan starts a Scan.
func (c *Comm) Iscan(send, recv []byte, op Op, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIscan, -1, len(recv), func(x *collComm) error {
		return coll.Scan(x, send, recv, op, opts...)
	})
}

// Iexscan starts an Exscan.
func (c *Comm) Iexscan(send, recv []byte, op Op, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIexscan, -1, len(recv), func(x *collComm) error {
		return coll.Exscan(x, send, recv, op, opts...)
	})
}
