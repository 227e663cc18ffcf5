package coll

import "strings"

// Operation names a collective operation. Its string is the lower-case MPI
// name without the prefix ("reduce_scatter_block" for MPI_Reduce_scatter_block).
type Operation string

// The collective operations.
const (
	OpBarrier            Operation = "barrier"
	OpBcast              Operation = "bcast"
	OpReduce             Operation = "reduce"
	OpAllreduce          Operation = "allreduce"
	OpGather             Operation = "gather"
	OpGatherv            Operation = "gatherv"
	OpScatter            Operation = "scatter"
	OpScatterv           Operation = "scatterv"
	OpAllgather          Operation = "allgather"
	OpAllgatherv         Operation = "allgatherv"
	OpAlltoall           Operation = "alltoall"
	OpAlltoallv          Operation = "alltoallv"
	OpAlltoallw          Operation = "alltoallw"
	OpReduceScatter      Operation = "reduce_scatter"
	OpReduceScatterBlock Operation = "reduce_scatter_block"
	OpScan               Operation = "scan"
	OpExscan             Operation = "exscan"
)

// opInfo is what this package knows about an operation besides its algorithms.
type opInfo struct {
	rooted    bool
	reduction bool
	// size says what "bytes" means for selection and cost formulas.
	size string
	// check validates the arguments of one rank and returns the size used for
	// selection: a value every rank of a correct call computes alike.
	check func(n, r int, a *Args) (int, error)
}

var ops = []Operation{
	OpBarrier, OpBcast, OpReduce, OpAllreduce, OpGather, OpGatherv, OpScatter,
	OpScatterv, OpAllgather, OpAllgatherv, OpAlltoall, OpAlltoallv, OpAlltoallw,
	OpReduceScatter, OpReduceScatterBlock, OpScan, OpExscan,
}

var opInfos = map[Operation]opInfo{
	OpBarrier:            {size: "none, always 0", check: func(int, int, *Args) (int, error) { return 0, nil }},
	OpBcast:              {rooted: true, size: "the message", check: checkBcast},
	OpReduce:             {rooted: true, reduction: true, size: "the vector", check: checkReduce},
	OpAllreduce:          {reduction: true, size: "the vector", check: checkSame},
	OpGather:             {rooted: true, size: "one rank's block", check: checkGather},
	OpGatherv:            {rooted: true, size: "none, always 0: only the root knows the counts", check: checkGatherv},
	OpScatter:            {rooted: true, size: "one rank's block", check: checkScatter},
	OpScatterv:           {rooted: true, size: "none, always 0: only the root knows the counts", check: checkScatterv},
	OpAllgather:          {size: "one rank's block", check: checkAllgather},
	OpAllgatherv:         {size: "the mean block, total / p", check: checkAllgatherv},
	OpAlltoall:           {size: "one block, from one rank to one rank", check: checkAlltoall},
	OpAlltoallv:          {size: "none, always 0: counts differ between ranks", check: checkAlltoallv},
	OpAlltoallw:          {size: "none, always 0: counts differ between ranks", check: checkAlltoallv},
	OpReduceScatter:      {reduction: true, size: "the whole vector, the sum of the counts", check: checkReduceScatter},
	OpReduceScatterBlock: {reduction: true, size: "the whole vector, p blocks", check: checkReduceScatterBlock},
	OpScan:               {reduction: true, size: "the vector", check: checkSame},
	OpExscan:             {reduction: true, size: "the vector", check: checkSame},
}

// Operations lists the collective operations in a fixed order.
func Operations() []Operation { return append([]Operation(nil), ops...) }

// ParseOperation accepts an operation name in any case, with '-' or '_'
// ("Reduce-Scatter" is OpReduceScatter).
func ParseOperation(s string) (Operation, error) {
	op := Operation(strings.ReplaceAll(strings.ToLower(s), "-", "_"))
	if _, ok := opInfos[op]; ok {
		return op, nil
	}
	names := make([]string, len(ops))
	for i, o := range ops {
		names[i] = string(o)
	}
	return "", argErr("unknown operation %q; valid: %s", s, strings.Join(names, ", "))
}

// SizeMeaning says what the size of a call means for selection and for the
// m of the cost formulas of op.
func (op Operation) SizeMeaning() string { return opInfos[op].size }

// Rooted reports whether op has a root.
func (op Operation) Rooted() bool { return opInfos[op].rooted }

// Reduction reports whether op takes an Op.
func (op Operation) Reduction() bool { return opInfos[op].reduction }

// Args are one rank's arguments of a collective call, in bytes. Which fields
// an operation reads is said at its function (Bcast, Gatherv...); the rest are
// ignored. Counts and displacements are in bytes, and there is one per rank.
type Args struct {
	Send []byte // the data sent; nil: in place, where the operation allows it
	Recv []byte // the result; Bcast: the buffer, sent at the root
	Root int
	Op   Op // the reduction operator of reductions

	SendCounts, SendDispls []int // Scatterv (at the root), Alltoallv/w
	RecvCounts, RecvDispls []int // Gatherv (at the root), Allgatherv, Alltoallv/w; ReduceScatter: RecvCounts

	// SegmentSize is the pipelining unit of pipelined algorithms in bytes
	// (0: the algorithm's default). It must be equal on all ranks.
	SegmentSize int
}

func checkRoot(n int, a *Args) error {
	if a.Root < 0 || a.Root >= n {
		return argErr("root %d is not a rank of this %d-rank communicator", a.Root, n)
	}
	return nil
}

func checkBcast(n, _ int, a *Args) (int, error) {
	return len(a.Recv), checkRoot(n, a)
}

func checkOp(a *Args, bufs ...[]byte) error {
	if a.Op.Apply == nil || a.Op.ElemSize <= 0 {
		return argErr("reduction without an operator (Op.Apply is nil or Op.ElemSize is not positive)")
	}
	for _, b := range bufs {
		if len(b)%a.Op.ElemSize != 0 {
			return argErr("%d bytes is not a whole number of %d-byte elements of %s", len(b), a.Op.ElemSize, a.Op.Name)
		}
	}
	return nil
}

// checkSame: Allreduce, Scan, Exscan: send and receive vectors of one length.
func checkSame(_, _ int, a *Args) (int, error) {
	if a.Send != nil && len(a.Send) != len(a.Recv) {
		return 0, argErr("send has %d bytes, recv %d; they must be equal", len(a.Send), len(a.Recv))
	}
	return len(a.Recv), checkOp(a, a.Recv)
}

func checkReduce(n, r int, a *Args) (int, error) {
	if err := checkRoot(n, a); err != nil {
		return 0, err
	}
	if r != a.Root {
		return len(a.Send), checkOp(a, a.Send)
	}
	return checkSame(n, r, a)
}

// blockOf returns the block size of an operation whose full buffer holds n
// blocks, given that buffer and the rank's own block (nil: in place).
func blockOf(n int, full, own []byte, fullName string) (int, error) {
	if own == nil {
		if len(full)%n != 0 {
			return 0, argErr("in place, %s has %d bytes, not a multiple of %d ranks", fullName, len(full), n)
		}
		return len(full) / n, nil
	}
	if len(full) != n*len(own) {
		return 0, argErr("%s has %d bytes; it must hold %d blocks of %d bytes", fullName, len(full), n, len(own))
	}
	return len(own), nil
}

// checkRooted validates Gather and Scatter: full is the root's buffer of all
// blocks (recv, send), own the other buffer, this rank's block.
func checkRooted(n, r int, a *Args, full, own []byte, fullName string) (int, error) {
	if err := checkRoot(n, a); err != nil {
		return 0, err
	}
	if r != a.Root {
		return len(own), nil
	}
	return blockOf(n, full, own, fullName)
}

func checkGather(n, r int, a *Args) (int, error) { return checkRooted(n, r, a, a.Recv, a.Send, "recv") }
func checkScatter(n, r int, a *Args) (int, error) {
	return checkRooted(n, r, a, a.Send, a.Recv, "send")
}

func checkAllgather(n, _ int, a *Args) (int, error) { return blockOf(n, a.Recv, a.Send, "recv") }

func checkAlltoall(n, _ int, a *Args) (int, error) {
	if len(a.Recv)%n != 0 {
		return 0, argErr("recv has %d bytes, not a multiple of %d ranks", len(a.Recv), n)
	}
	if a.Send != nil && len(a.Send) != len(a.Recv) {
		return 0, argErr("send has %d bytes, recv %d; they must be equal", len(a.Send), len(a.Recv))
	}
	return len(a.Recv) / n, nil
}

// checkLayout validates per-rank counts and displacements into a buffer of
// size bytes.
func checkLayout(n, size int, counts, displs []int, name string) error {
	if len(counts) != n || len(displs) != n {
		return argErr("%d %s counts and %d displacements for %d ranks", len(counts), name, len(displs), n)
	}
	for i := range n {
		c, d := counts[i], displs[i]
		if c < 0 || d < 0 || d > size || c > size-d {
			return argErr("%s block of rank %d (displacement %d, count %d) does not fit in %d bytes", name, i, d, c, size)
		}
	}
	return nil
}

// checkRootedV validates Gatherv and Scatterv: at the root, the layout of
// the buffer of all blocks and the root's own block (nil: in place).
func checkRootedV(n, r int, a *Args, full []byte, counts, displs []int, own []byte, fullName string) (int, error) {
	if err := checkRoot(n, a); err != nil {
		return 0, err
	}
	if r != a.Root {
		return 0, nil
	}
	if err := checkLayout(n, len(full), counts, displs, fullName); err != nil {
		return 0, err
	}
	if own != nil && len(own) != counts[r] {
		return 0, argErr("the root's own block has %d bytes but its %s count is %d", len(own), fullName, counts[r])
	}
	return 0, nil
}

func checkGatherv(n, r int, a *Args) (int, error) {
	return checkRootedV(n, r, a, a.Recv, a.RecvCounts, a.RecvDispls, a.Send, "recv")
}

func checkScatterv(n, r int, a *Args) (int, error) {
	return checkRootedV(n, r, a, a.Send, a.SendCounts, a.SendDispls, a.Recv, "send")
}

func checkAllgatherv(n, r int, a *Args) (int, error) {
	if err := checkLayout(n, len(a.Recv), a.RecvCounts, a.RecvDispls, "recv"); err != nil {
		return 0, err
	}
	if a.Send != nil && len(a.Send) != a.RecvCounts[r] {
		return 0, argErr("rank %d sends %d bytes but its recv count is %d", r, len(a.Send), a.RecvCounts[r])
	}
	return sum(a.RecvCounts) / n, nil
}

func checkAlltoallv(n, _ int, a *Args) (int, error) {
	if err := checkLayout(n, len(a.Recv), a.RecvCounts, a.RecvDispls, "recv"); err != nil {
		return 0, err
	}
	if a.Send == nil {
		return 0, nil
	}
	return 0, checkLayout(n, len(a.Send), a.SendCounts, a.SendDispls, "send")
}

func checkReduceScatter(n, r int, a *Args) (int, error) {
	if len(a.RecvCounts) != n {
		return 0, argErr("%d recv counts for %d ranks", len(a.RecvCounts), n)
	}
	if err := checkOp(a); err != nil {
		return 0, err
	}
	for i, c := range a.RecvCounts {
		if c < 0 || c%a.Op.ElemSize != 0 {
			return 0, argErr("recv count %d of rank %d is not a whole number of %d-byte elements", c, i, a.Op.ElemSize)
		}
	}
	total := sum(a.RecvCounts)
	switch {
	case a.Send == nil && len(a.Recv) != total:
		return 0, argErr("in place, recv has %d bytes; it must hold the whole %d-byte vector", len(a.Recv), total)
	case a.Send != nil && len(a.Send) != total:
		return 0, argErr("send has %d bytes; the counts add up to %d", len(a.Send), total)
	case a.Send != nil && len(a.Recv) != a.RecvCounts[r]:
		return 0, argErr("recv has %d bytes; this rank's count is %d", len(a.Recv), a.RecvCounts[r])
	}
	return total, nil
}

func checkReduceScatterBlock(n, _ int, a *Args) (int, error) {
	if a.Send == nil {
		if len(a.Recv)%n != 0 {
			return 0, argErr("in place, recv has %d bytes, not a multiple of %d ranks", len(a.Recv), n)
		}
		return len(a.Recv), checkOp(a, a.Recv[:len(a.Recv)/n])
	}
	if len(a.Send) != n*len(a.Recv) {
		return 0, argErr("send has %d bytes; it must hold %d blocks of %d bytes", len(a.Send), n, len(a.Recv))
	}
	return len(a.Send), checkOp(a, a.Recv)
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// check validates a's arguments for op on rank r of n.
func check(op Operation, n, r int, a *Args) (int, error) {
	return checkAt(opIndex(op), op, n, r, a)
}

// checkAt is check with op's index i (opIndex) known.
func checkAt(i int, op Operation, n, r int, a *Args) (int, error) {
	if i < 0 || i >= len(opInfoList) {
		return 0, argErr("unknown operation %q", op)
	}
	info := opInfoList[i]
	if n <= 0 || r < 0 || r >= n {
		return 0, argErr("rank %d of a %d-rank communicator", r, n)
	}
	if a.SegmentSize < 0 {
		return 0, argErr("negative segment size %d", a.SegmentSize)
	}
	return info.check(n, r, a)
}
