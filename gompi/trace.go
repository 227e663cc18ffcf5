package gompi

import (
	"sync/atomic"

	"github.com/gompi/gompi/gompi/internal/base"
)

// Op names a public operation for a Tracer.
type Op uint8

// The operations a Tracer sees.
const (
	OpInit Op = iota + 1
	OpFinalize
	OpSend
	OpSsend
	OpRsend
	OpBsend
	OpRecv
	OpIsend
	OpIssend
	OpIrsend
	OpIbsend
	OpIrecv
	OpSendrecv
	OpProbe
	OpIprobe
	OpWait
	OpTest
	OpWaitall
	OpWaitany
	OpWaitsome
	OpTestall
	OpTestany
	OpStart
	OpStartall
	OpCancel
	OpCommDup
	OpCommSplit
	OpCommFree
	OpBarrier
	OpBcast
	OpGather
	OpGatherv
	OpScatter
	OpScatterv
	OpAllgather
	OpAllgatherv
	OpAlltoall
	OpAlltoallv
	OpAlltoallw
	OpReduce
	OpAllreduce
	OpReduceScatter
	OpReduceScatterBlock
	OpScan
	OpExscan
	opCount
)

var opNames = [...]string{
	OpInit: "Init", OpFinalize: "Finalize", OpSend: "Send", OpSsend: "Ssend", OpRsend: "Rsend",
	OpBsend: "Bsend", OpRecv: "Recv", OpIsend: "Isend", OpIssend: "Issend", OpIrsend: "Irsend",
	OpIbsend: "Ibsend", OpIrecv: "Irecv", OpSendrecv: "Sendrecv", OpProbe: "Probe", OpIprobe: "Iprobe",
	OpWait: "Wait", OpTest: "Test", OpWaitall: "Waitall", OpWaitany: "Waitany", OpWaitsome: "Waitsome",
	OpTestall: "Testall", OpTestany: "Testany", OpStart: "Start", OpStartall: "Startall", OpCancel: "Cancel",
	OpCommDup: "Comm_dup", OpCommSplit: "Comm_split", OpCommFree: "Comm_free",
	OpBarrier: "Barrier", OpBcast: "Bcast", OpGather: "Gather", OpGatherv: "Gatherv", OpScatter: "Scatter",
	OpScatterv: "Scatterv", OpAllgather: "Allgather", OpAllgatherv: "Allgatherv", OpAlltoall: "Alltoall",
	OpAlltoallv: "Alltoallv", OpAlltoallw: "Alltoallw", OpReduce: "Reduce", OpAllreduce: "Allreduce",
	OpReduceScatter: "Reduce_scatter", OpReduceScatterBlock: "Reduce_scatter_block", OpScan: "Scan",
	OpExscan: "Exscan",
}

func (o Op) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return "Op(?)"
}

// Event describes one call as it begins.
type Event struct {
	Op    Op
	Comm  *Comm
	Peer  int // destination, source or root; -1 when none
	Tag   int // -1 when none
	Bytes int // bytes sent or the receive buffer's size; -1 when none
}

// A Tracer observes every public operation: Begin as it starts (its result is
// handed back to End), End when it returns. Both are called on the calling
// goroutine and must be safe for concurrent use; they should be quick.
type Tracer interface {
	Begin(ev Event) uint64
	End(token uint64, st Status, err error)
}

type tracerBox struct{ t Tracer }

// The interposition point. Every public operation loads it once: with no
// tracer attached that is one load and one well-predicted branch.
var tracer atomic.Pointer[tracerBox]

// SetTracer attaches t to every operation of this process (nil detaches) and
// returns the previous tracer.
func SetTracer(t Tracer) Tracer {
	var box *tracerBox
	if t != nil {
		box = &tracerBox{t}
	}
	if old := tracer.Swap(box); old != nil {
		return old.t
	}
	return nil
}

func (b *tracerBox) run(op Op, c *Comm, peer, tag, n int, f func() error) error {
	tok := b.t.Begin(Event{op, c, peer, tag, n})
	err := f()
	b.t.End(tok, base.EmptyStatus, err)
	return err
}

func (b *tracerBox) runStatus(op Op, c *Comm, peer, tag, n int, f func() (Status, error)) (Status, error) {
	tok := b.t.Begin(Event{op, c, peer, tag, n})
	st, err := f()
	b.t.End(tok, st, err)
	return st, err
}

func emitInit(c *Comm) {
	if b := tracer.Load(); b != nil {
		b.t.End(b.t.Begin(Event{OpInit, c, -1, -1, -1}), base.EmptyStatus, nil)
	}
}

func emitFinalize(c *Comm) {
	if b := tracer.Load(); b != nil {
		b.t.End(b.t.Begin(Event{OpFinalize, c, -1, -1, -1}), base.EmptyStatus, nil)
	}
}
