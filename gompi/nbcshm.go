package gompi

import (
	"fmt"
	"os"
	"time"

	"github.com/gompi/gompi/coll"
)

// Nonblocking collectives on shared-memory steps ("arrive and leave"). On a
// communicator with a scratch area, a call whose data fit one scratch half
// runs as one step that nobody waits in: the start call writes this rank's
// part (its vector, its block, the root's message) and the signature into
// the step's half and arrives without waiting; the engine
// (gompi/internal/core/nbc.go) completes the request once every rank has
// arrived, by reading what this rank needs (folding the vectors, copying the
// blocks out). That work is this rank's own and takes no other rank's CPU
// time, and the step itself needs no CPU at all while the program computes:
// the others' arrivals are all it waits for. This is what makes the call
// overlap computation on a machine whose CPUs all compute, where the
// goroutine that runs the blocking algorithm of a larger call (Comm.Go)
// waits for a time slice.
//
// Ordering: the steps of a communicator are taken in call order on every
// rank, blocking or not; a call started while an earlier one on the same
// communicator is pending on this rank waits in the engine's list (the start
// stays local) and takes its step when the earlier one completes; a
// blocking collective first completes them (collective, Comm.Free).
//
// GOMPI_NBC=thread turns this off (every nonblocking collective then runs
// its blocking algorithm on a goroutine, as before), for comparisons.

// nbcShmOff is set by GOMPI_NBC=thread.
var nbcShmOff = os.Getenv("GOMPI_NBC") == "thread"

// nbcForced records the operations whose algorithm the environment names
// (GOMPI_COLL_<OP>): those calls run the named algorithm.
var nbcForced = func() map[coll.Operation]bool {
	m := map[coll.Operation]bool{}
	for _, op := range coll.Operations() {
		if os.Getenv(coll.EnvVar(op)) != "" {
			m[op] = true
		}
	}
	return m
}()

// nbcShm is one nonblocking collective as a shared-memory step.
type nbcShm struct {
	c     *Comm
	op    coll.Operation
	a     coll.Args
	word  uint32 // the signature's word: the root
	need  int    // data bytes in the half, also the signature's size
	state uint8  // 0: not started; 1: arrived at step k
	k     uint64
}

// nbcNeed returns the data bytes op's step needs in the scratch half, or -1
// where op has no such form.
func nbcNeed(op coll.Operation, n int, a *coll.Args) int {
	switch op {
	case coll.OpBarrier:
		return 0
	case coll.OpBcast:
		return len(a.Recv)
	case coll.OpReduce:
		return n * len(contribution(a))
	case coll.OpAllreduce, coll.OpScan, coll.OpExscan:
		return vectors(n, a)
	case coll.OpGather, coll.OpAllgather:
		return n * gatherBlock(n, a)
	case coll.OpScatter:
		return n * scatterBlock(n, a)
	case coll.OpAlltoall:
		return n * len(a.Recv)
	case coll.OpReduceScatterBlock:
		return n * n * rsBlock(n, a)
	}
	return -1
}

// startShmNBC starts op as a shared-memory step if it can run as one: the
// pure-Go runtime, a communicator with a scratch area that holds the call,
// valid arguments and no algorithm named for the call. ok false: run it
// some other way.
func (c *Comm) startShmNBC(x *collComm, op coll.Operation, a *coll.Args, opts []CollOption) (*Request, bool) {
	if nbcShmOff || nativeColl || len(opts) != 0 || nbcForced[op] || c.colls.get(op) != "" {
		return nil, false
	}
	n := x.Size()
	capacity := c.c.ShmCapacity()
	if capacity < 0 {
		return nil, false
	}
	need := nbcNeed(op, n, a)
	if need < 0 || n*sigSize+need > capacity {
		return nil, false
	}
	if _, err := coll.Choose(x, op, a); err != nil {
		return nil, false // the arguments are wrong: the usual path says how
	}
	s := &nbcShm{c: c, op: op, a: *a, word: uint32(int32(a.Root)), need: need}
	return (*Request)(c.c.StartNBC(s)), true
}

// Step writes and arrives (once the communicator's last step is closed),
// then, once every rank has arrived, checks the signatures and reads.
func (s *nbcShm) Step() (bool, error) {
	cc := s.c.c
	n, me := cc.Size(), cc.Rank()
	if s.state == 0 {
		if !cc.ShmReady() {
			return false, nil
		}
		half := cc.ShmScratch()
		writeSig(half[me*sigSize:(me+1)*sigSize], s.op, s.word, s.need)
		s.write(half[n*sigSize:], n, me)
		s.k = cc.ShmArriveNB()
		s.state = 1
	}
	if !cc.ShmReleasedAt(s.k) {
		return false, nil
	}
	half := cc.ShmScratchAt(s.k)
	mine := half[me*sigSize : (me+1)*sigSize]
	for r := 0; r < n; r++ {
		if string(half[r*sigSize:(r+1)*sigSize]) != string(mine) {
			return true, fmt.Errorf("%w: rank %d called with %s, rank %d with %s", coll.ErrMismatch,
				r, describeSig(half[r*sigSize:]), me, describeSig(mine))
		}
	}
	s.read(half[n*sigSize:], n, me)
	return true, nil
}

// Sleep waits at most d for the step this call waits for.
func (s *nbcShm) Sleep(d time.Duration) {
	cc := s.c.c
	if s.state == 0 {
		cc.ShmSleepAt(cc.ShmSeq()-1, d) // the communicator's last step, left open
		return
	}
	cc.ShmSleepAt(s.k, d)
}

// write puts this rank's part into the data area of the half.
func (s *nbcShm) write(data []byte, n, me int) {
	a := &s.a
	switch s.op {
	case coll.OpBcast:
		if me == a.Root {
			copy(data, a.Recv)
		}
	case coll.OpReduce, coll.OpAllreduce, coll.OpScan, coll.OpExscan:
		v := contribution(a)
		copy(data[me*len(v):], v)
	case coll.OpGather, coll.OpAllgather:
		m := gatherBlock(n, a)
		if a.Send != nil {
			copy(data[me*m:], a.Send[:m])
		} else {
			copy(data[me*m:], a.Recv[me*m:(me+1)*m])
		}
	case coll.OpScatter:
		if me == a.Root {
			m := scatterBlock(n, a)
			copy(data, a.Send[:n*m])
		}
	case coll.OpAlltoall:
		src := a.Send
		if src == nil {
			src = a.Recv
		}
		copy(data[me*len(a.Recv):], src[:len(a.Recv)])
	case coll.OpReduceScatterBlock:
		m := rsBlock(n, a)
		v := a.Send
		if v == nil {
			v = a.Recv
		}
		copy(data[me*n*m:], v[:n*m])
	}
}

// read takes what this rank needs out of the data area of the released half.
func (s *nbcShm) read(data []byte, n, me int) {
	a := &s.a
	switch s.op {
	case coll.OpBcast:
		if me != a.Root {
			copy(a.Recv, data[:len(a.Recv)])
		}
	case coll.OpReduce:
		if me == a.Root {
			m := len(contribution(a))
			fold(a.Op, data, m, 0, n, a.Recv[:m])
		}
	case coll.OpAllreduce:
		fold(a.Op, data, len(a.Recv), 0, n, a.Recv)
	case coll.OpScan:
		fold(a.Op, data, len(a.Recv), 0, me+1, a.Recv)
	case coll.OpExscan:
		if me > 0 {
			fold(a.Op, data, len(a.Recv), 0, me, a.Recv)
		}
	case coll.OpGather:
		if me == a.Root {
			m := gatherBlock(n, a)
			copy(a.Recv[:n*m], data[:n*m])
		}
	case coll.OpAllgather:
		m := gatherBlock(n, a)
		copy(a.Recv[:n*m], data[:n*m])
	case coll.OpScatter:
		m := scatterBlock(n, a)
		if me != a.Root {
			copy(a.Recv, data[me*m:(me+1)*m])
		} else if a.Recv != nil {
			copy(a.Recv, a.Send[me*m:(me+1)*m])
		}
	case coll.OpAlltoall:
		row := len(a.Recv)
		m := row / n
		for i := 0; i < n; i++ {
			copy(a.Recv[i*m:(i+1)*m], data[i*row+me*m:])
		}
	case coll.OpReduceScatterBlock:
		m := rsBlock(n, a)
		out := a.Recv[:m]
		copy(out, data[(n-1)*n*m+me*m:][:m])
		for r := n - 2; r >= 0; r-- {
			a.Op.Apply(data[r*n*m+me*m:][:m], out)
		}
	}
}
