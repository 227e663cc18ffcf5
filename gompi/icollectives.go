package gompi

import "github.com/gompi/gompi/coll"

// The nonblocking collectives start the operation and return its request at
// once. Arguments are those of the blocking forms; errors in them are
// returned by the request's Wait.

// Ibarrier starts a barrier.
func (c *Comm) Ibarrier(opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIbarrier, -1, -1, coll.OpBarrier, coll.Args{}, opts)
}

// Ibcast starts a Bcast.
func (c *Comm) Ibcast(buf []byte, root int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIbcast, root, len(buf), coll.OpBcast, coll.Args{Recv: buf, Root: root}, opts)
}

// Ireduce starts a Reduce.
func (c *Comm) Ireduce(send, recv []byte, op AnyOp, root int, opts ...CollOption) (*Request, error) {
	o, err := opOf(RoutineIreduce, op)
	if err != nil {
		return nil, c.opErr(err)
	}
	return c.icollective(RoutineIreduce, root, len(recv), coll.OpReduce, coll.Args{Send: inPlace(send), Recv: recv, Op: o, Root: root}, opts)
}

// Iallreduce starts an Allreduce.
func (c *Comm) Iallreduce(send, recv []byte, op AnyOp, opts ...CollOption) (*Request, error) {
	o, err := opOf(RoutineIallreduce, op)
	if err != nil {
		return nil, c.opErr(err)
	}
	return c.icollective(RoutineIallreduce, -1, len(recv), coll.OpAllreduce, coll.Args{Send: inPlace(send), Recv: recv, Op: o}, opts)
}

// Igather starts a Gather.
func (c *Comm) Igather(send, recv []byte, root int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIgather, root, len(send), coll.OpGather, coll.Args{Send: inPlace(send), Recv: recv, Root: root}, opts)
}

// Igatherv starts a Gatherv.
func (c *Comm) Igatherv(send, recv []byte, counts, displs []int, root int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIgatherv, root, len(send), coll.OpGatherv, coll.Args{Send: inPlace(send), Recv: recv, RecvCounts: counts, RecvDispls: displs, Root: root}, opts)
}

// Iscatter starts a Scatter.
func (c *Comm) Iscatter(send, recv []byte, root int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIscatter, root, len(recv), coll.OpScatter, coll.Args{Send: send, Recv: inPlace(recv), Root: root}, opts)
}

// Iscatterv starts a Scatterv.
func (c *Comm) Iscatterv(send []byte, counts, displs []int, recv []byte, root int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIscatterv, root, len(recv), coll.OpScatterv, coll.Args{Send: send, SendCounts: counts, SendDispls: displs, Recv: inPlace(recv), Root: root}, opts)
}

// Iallgather starts an Allgather.
func (c *Comm) Iallgather(send, recv []byte, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIallgather, -1, len(send), coll.OpAllgather, coll.Args{Send: inPlace(send), Recv: recv}, opts)
}

// Iallgatherv starts an Allgatherv.
func (c *Comm) Iallgatherv(send, recv []byte, counts, displs []int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIallgatherv, -1, len(send), coll.OpAllgatherv, coll.Args{Send: inPlace(send), Recv: recv, RecvCounts: counts, RecvDispls: displs}, opts)
}

// Ialltoall starts an Alltoall.
func (c *Comm) Ialltoall(send, recv []byte, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIalltoall, -1, len(recv), coll.OpAlltoall, coll.Args{Send: inPlace(send), Recv: recv}, opts)
}

// Ialltoallv starts an Alltoallv.
func (c *Comm) Ialltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIalltoallv, -1, len(recv), coll.OpAlltoallv, coll.Args{Send: inPlace(send), SendCounts: scounts, SendDispls: sdispls, Recv: recv, RecvCounts: rcounts, RecvDispls: rdispls}, opts)
}

// Ialltoallw starts an Alltoallw.
func (c *Comm) Ialltoallw(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int, opts ...CollOption) (*Request, error) {
	return c.icollective(RoutineIalltoallw, -1, len(recv), coll.OpAlltoallw, coll.Args{Send: inPlace(send), SendCounts: scounts, SendDispls: sdispls, Recv: recv, RecvCounts: rcounts, RecvDispls: rdispls}, opts)
}

// IreduceScatter starts a ReduceScatter.
func (c *Comm) IreduceScatter(send, recv []byte, counts []int, op AnyOp, opts ...CollOption) (*Request, error) {
	o, err := opOf(RoutineIreduceScatter, op)
	if err != nil {
		return nil, c.opErr(err)
	}
	return c.icollective(RoutineIreduceScatter, -1, len(recv), coll.OpReduceScatter, coll.Args{Send: inPlace(send), Recv: recv, RecvCounts: counts, Op: o}, opts)
}

// IreduceScatterBlock starts a ReduceScatterBlock.
func (c *Comm) IreduceScatterBlock(send, recv []byte, op AnyOp, opts ...CollOption) (*Request, error) {
	o, err := opOf(RoutineIreduceScatterBlock, op)
	if err != nil {
		return nil, c.opErr(err)
	}
	return c.icollective(RoutineIreduceScatterBlock, -1, len(recv), coll.OpReduceScatterBlock, coll.Args{Send: inPlace(send), Recv: recv, Op: o}, opts)
}

// Iscan starts a Scan.
func (c *Comm) Iscan(send, recv []byte, op AnyOp, opts ...CollOption) (*Request, error) {
	o, err := opOf(RoutineIscan, op)
	if err != nil {
		return nil, c.opErr(err)
	}
	return c.icollective(RoutineIscan, -1, len(recv), coll.OpScan, coll.Args{Send: inPlace(send), Recv: recv, Op: o}, opts)
}

// Iexscan starts an Exscan.
func (c *Comm) Iexscan(send, recv []byte, op AnyOp, opts ...CollOption) (*Request, error) {
	o, err := opOf(RoutineIexscan, op)
	if err != nil {
		return nil, c.opErr(err)
	}
	return c.icollective(RoutineIexscan, -1, len(recv), coll.OpExscan, coll.Args{Send: inPlace(send), Recv: recv, Op: o}, opts)
}
