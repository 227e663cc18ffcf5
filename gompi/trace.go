package gompi

import (
	"sync/atomic"

	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/trace"
)

// Routine names a public operation for a Tracer.
type Routine uint8

// The operations a Tracer sees.
const (
	RoutineInit Routine = iota + 1
	RoutineFinalize
	RoutineSend
	RoutineSsend
	RoutineRsend
	RoutineBsend
	RoutineRecv
	RoutineIsend
	RoutineIssend
	RoutineIrsend
	RoutineIbsend
	RoutineIrecv
	RoutineSendrecv
	RoutineProbe
	RoutineIprobe
	RoutineWait
	RoutineTest
	RoutineWaitall
	RoutineWaitany
	RoutineWaitsome
	RoutineTestall
	RoutineTestany
	RoutineStart
	RoutineStartall
	RoutineCancel
	RoutineCommDup
	RoutineCommSplit
	RoutineCommFree
	RoutineBarrier
	RoutineBcast
	RoutineGather
	RoutineGatherv
	RoutineScatter
	RoutineScatterv
	RoutineAllgather
	RoutineAllgatherv
	RoutineAlltoall
	RoutineAlltoallv
	RoutineAlltoallw
	RoutineReduce
	RoutineAllreduce
	RoutineReduceScatter
	RoutineReduceScatterBlock
	RoutineScan
	RoutineExscan
	RoutineIbarrier
	RoutineIbcast
	RoutineIgather
	RoutineIgatherv
	RoutineIscatter
	RoutineIscatterv
	RoutineIallgather
	RoutineIallgatherv
	RoutineIalltoall
	RoutineIalltoallv
	RoutineIalltoallw
	RoutineIreduce
	RoutineIallreduce
	RoutineIreduceScatter
	RoutineIreduceScatterBlock
	RoutineIscan
	RoutineIexscan
	RoutineSendInit
	RoutineSsendInit
	RoutineRsendInit
	RoutineRecvInit
	// One-sided communication (windows); their events carry Window and Epoch.
	RoutineWinCreate
	RoutineWinAllocate
	RoutineWinAllocateShared
	RoutineWinCreateDynamic
	RoutineWinAttach
	RoutineWinDetach
	RoutineWinFree
	RoutineWinPut
	RoutineWinGet
	RoutineWinAccumulate
	RoutineWinGetAccumulate
	RoutineWinFetchAndOp
	RoutineWinCompareAndSwap
	RoutineWinRput
	RoutineWinRget
	RoutineWinRaccumulate
	RoutineWinRgetAccumulate
	RoutineWinFence
	RoutineWinPost
	RoutineWinStart
	RoutineWinComplete
	RoutineWinWait
	RoutineWinTest
	RoutineWinLock
	RoutineWinUnlock
	RoutineWinLockAll
	RoutineWinUnlockAll
	RoutineWinFlush
	RoutineWinFlushAll
	RoutineWinFlushLocal
	RoutineWinFlushLocalAll
	RoutineWinSync
	// Matched probes, the request calls and communicator constructors added
	// after the windows.
	RoutineMprobe
	RoutineImprobe
	RoutineMrecv
	RoutineImrecv
	RoutineSendrecvReplace
	RoutineTestsome
	RoutineRequestFree
	RoutineCommCreate
	RoutineCommCreateGroup
	RoutineCommSplitType
	RoutineCartCreate
	routineCount
)

var opNames = [...]string{
	RoutineInit: "Init", RoutineFinalize: "Finalize", RoutineSend: "Send", RoutineSsend: "Ssend", RoutineRsend: "Rsend",
	RoutineBsend: "Bsend", RoutineRecv: "Recv", RoutineIsend: "Isend", RoutineIssend: "Issend", RoutineIrsend: "Irsend",
	RoutineIbsend: "Ibsend", RoutineIrecv: "Irecv", RoutineSendrecv: "Sendrecv", RoutineProbe: "Probe", RoutineIprobe: "Iprobe",
	RoutineWait: "Wait", RoutineTest: "Test", RoutineWaitall: "Waitall", RoutineWaitany: "Waitany", RoutineWaitsome: "Waitsome",
	RoutineTestall: "Testall", RoutineTestany: "Testany", RoutineStart: "Start", RoutineStartall: "Startall", RoutineCancel: "Cancel",
	RoutineCommDup: "Comm_dup", RoutineCommSplit: "Comm_split", RoutineCommFree: "Comm_free",
	RoutineBarrier: "Barrier", RoutineBcast: "Bcast", RoutineGather: "Gather", RoutineGatherv: "Gatherv", RoutineScatter: "Scatter",
	RoutineScatterv: "Scatterv", RoutineAllgather: "Allgather", RoutineAllgatherv: "Allgatherv", RoutineAlltoall: "Alltoall",
	RoutineAlltoallv: "Alltoallv", RoutineAlltoallw: "Alltoallw", RoutineReduce: "Reduce", RoutineAllreduce: "Allreduce",
	RoutineReduceScatter: "Reduce_scatter", RoutineReduceScatterBlock: "Reduce_scatter_block", RoutineScan: "Scan",
	RoutineExscan: "Exscan", RoutineIbarrier: "Ibarrier", RoutineIbcast: "Ibcast", RoutineIgather: "Igather",
	RoutineIgatherv: "Igatherv", RoutineIscatter: "Iscatter", RoutineIscatterv: "Iscatterv",
	RoutineIallgather: "Iallgather", RoutineIallgatherv: "Iallgatherv", RoutineIalltoall: "Ialltoall",
	RoutineIalltoallv: "Ialltoallv", RoutineIalltoallw: "Ialltoallw", RoutineIreduce: "Ireduce",
	RoutineIallreduce: "Iallreduce", RoutineIreduceScatter: "Ireduce_scatter",
	RoutineIreduceScatterBlock: "Ireduce_scatter_block", RoutineIscan: "Iscan", RoutineIexscan: "Iexscan",
	RoutineSendInit: "Send_init", RoutineSsendInit: "Ssend_init", RoutineRsendInit: "Rsend_init", RoutineRecvInit: "Recv_init",
}

var laterRoutineNames = [...]string{"Mprobe", "Improbe", "Mrecv", "Imrecv", "Sendrecv_replace", "Testsome",
	"Request_free", "Comm_create", "Comm_create_group", "Comm_split_type", "Cart_create"}

// One name for each routine from RoutineMprobe on (a compile error if not).
var _ [len(laterRoutineNames)]struct{} = [routineCount - RoutineMprobe]struct{}{}

func (o Routine) String() string {
	switch {
	case int(o) < len(opNames) && opNames[o] != "":
		return opNames[o]
	case o >= RoutineWinCreate && o <= RoutineWinSync:
		return winRoutineNames[o-RoutineWinCreate]
	case o >= RoutineMprobe && o < routineCount:
		return laterRoutineNames[o-RoutineMprobe]
	}
	return "Routine(?)"
}

// routineNames lists every routine's name by code, as a trace file stores
// them ("" for code 0).
func routineNames() []string {
	names := make([]string, routineCount)
	for o := RoutineInit; o < routineCount; o++ {
		names[o] = o.String()
	}
	return names
}

// Event describes one call as it begins.
type Event struct {
	Routine Routine
	// Comm is the communicator of the call; for the calls over several
	// requests (Waitall, ...) that of the first request (the calling rank's),
	// nil when there is none.
	Comm  *Comm
	Peer  int // destination, source or root; -1 when none
	Tag   int // -1 when none
	Bytes int // bytes sent or the receive buffer's size; -1 when none
	// Req is the request a Wait, Test, Start, Cancel or Request_free is
	// about, so that a tracer can tie it to the call that made the request;
	// for Mrecv, the request that receives the probed message (Imrecv
	// returns it), whose address the built-in recorder also gives the
	// Mprobe or Improbe that found the message. The calls over
	// several requests (Waitall, Waitany, ...) report each request's
	// completion as a Wait of its own, inside their event.
	Req *Request
	// Window is the window's id (Win.ID) for the one-sided calls (Win*),
	// 0 for the others; Peer is then the target (-1 for calls on every
	// target), Bytes the data moved, and Epoch the synchronization that
	// gives the call access.
	Window int
	Epoch  Epoch
}

// A Tracer observes every public operation: Begin as it starts (its result is
// handed back to End), End when it returns. Both are called on the calling
// goroutine and must be safe for concurrent use; they should be quick.
type Tracer interface {
	Begin(ev Event) uint64
	End(token uint64, st Status, err error)
}

// tracerBox holds the attached tracer; rec is set when it is the built-in
// recorder, whose records take the fast path (begin and end below).
type tracerBox struct {
	t   Tracer
	rec *recorder
}

// The interposition point. Every public operation loads it once: with no
// tracer attached that is one load and one well-predicted branch.
var tracer atomic.Pointer[tracerBox]

// SetTracer attaches t to every operation of this process (nil detaches) and
// returns the previous tracer.
func SetTracer(t Tracer) Tracer {
	var box *tracerBox
	if t != nil {
		box = &tracerBox{t: t}
		box.rec, _ = t.(*recorder)
	}
	if old := tracer.Swap(box); old != nil {
		return old.t
	}
	return nil
}

// begin opens the record of a call: in oc for the built-in recorder, else
// through the Tracer, whose token it returns. end closes it.
func (b *tracerBox) begin(oc *openCall, ev *Event) uint64 {
	if b.rec != nil {
		b.rec.open(oc, ev)
		return 0
	}
	return b.t.Begin(*ev)
}

func (b *tracerBox) end(oc *openCall, tok uint64, st Status, err error) {
	if b.rec != nil {
		b.rec.close(oc, st, err)
		return
	}
	b.t.End(tok, st, err)
}

func (b *tracerBox) run(op Routine, c *Comm, peer, tag, n int, f func() error) error {
	var oc openCall
	tok := b.begin(&oc, &Event{Routine: op, Comm: c, Peer: peer, Tag: tag, Bytes: n})
	err := f()
	b.end(&oc, tok, base.EmptyStatus, err)
	return err
}

func (b *tracerBox) runStatus(op Routine, c *Comm, peer, tag, n int, f func() (Status, error)) (Status, error) {
	var oc openCall
	tok := b.begin(&oc, &Event{Routine: op, Comm: c, Peer: peer, Tag: tag, Bytes: n})
	st, err := f()
	b.end(&oc, tok, st, err)
	return st, err
}

func emitInit(c *Comm) {
	if b := tracer.Load(); b != nil {
		var oc openCall
		b.end(&oc, b.begin(&oc, &Event{Routine: RoutineInit, Comm: c, Peer: -1, Tag: -1, Bytes: -1}), base.EmptyStatus, nil)
	}
}

func emitFinalize(c *Comm) {
	if b := tracer.Load(); b != nil {
		var oc openCall
		b.end(&oc, b.begin(&oc, &Event{Routine: RoutineFinalize, Comm: c, Peer: -1, Tag: -1, Bytes: -1}), base.EmptyStatus, nil)
	}
}

// onRequest runs f as routine op about request r under the tracer.
func (b *tracerBox) onRequest(op Routine, r *Request, f func() (Status, error)) (Status, error) {
	c, _ := r.be().Comm().User().(*Comm)
	var oc openCall
	tok := b.begin(&oc, &Event{Routine: op, Comm: c, Peer: -1, Tag: -1, Bytes: -1, Req: r})
	st, err := f()
	b.end(&oc, tok, st, err)
	return st, err
}

// onRequestDone runs f, a Test about request r, as routine op; the built-in
// recorder learns whether the request completed.
func (b *tracerBox) onRequestDone(op Routine, r *Request, f func() (Status, bool, error)) (Status, error) {
	c, _ := r.be().Comm().User().(*Comm)
	var oc openCall
	tok := b.begin(&oc, &Event{Routine: op, Comm: c, Peer: -1, Tag: -1, Bytes: -1, Req: r})
	st, done, err := f()
	if b.rec != nil && done {
		oc.r.Flags |= trace.FlagCompleted
	}
	b.end(&oc, tok, st, err)
	return st, err
}

// runReq runs f, a call that makes a request (Isend, Irecv, SendInit,
// Ibcast...), as routine op; the built-in recorder learns the request.
func (b *tracerBox) runReq(op Routine, c *Comm, peer, tag, n int, f func() (*Request, error)) (*Request, error) {
	var oc openCall
	tok := b.begin(&oc, &Event{Routine: op, Comm: c, Peer: peer, Tag: tag, Bytes: n})
	req, err := f()
	if b.rec != nil && err == nil && req != nil {
		oc.r.Req = reqID(req)
	}
	b.end(&oc, tok, base.EmptyStatus, err)
	return req, err
}

// overRequests runs f as routine op over several requests under the tracer.
func (b *tracerBox) overRequests(op Routine, reqs []*Request, f func() (Status, error)) (Status, error) {
	var c *Comm
	for _, r := range reqs {
		if r != nil {
			c, _ = r.be().Comm().User().(*Comm)
			break
		}
	}
	var oc openCall
	tok := b.begin(&oc, &Event{Routine: op, Comm: c, Peer: -1, Tag: -1, Bytes: -1})
	st, err := f()
	b.end(&oc, tok, st, err)
	return st, err
}

// runProbe runs f, a matched probe, as routine op: the built-in recorder
// learns the message found (by the address of the request that will
// receive it), and that one was found.
func (b *tracerBox) runProbe(op Routine, c *Comm, src, tag int, f func() (*Message, Status, bool, error)) (*Message, Status, bool, error) {
	tok := b.t.Begin(Event{Routine: op, Comm: c, Peer: src, Tag: tag, Bytes: -1})
	m, st, ok, err := f()
	traced := st
	if m == nil {
		traced = base.EmptyStatus // no message: no status
	}
	if rec, isRec := b.t.(*recorder); isRec && m != nil {
		rec.made(tok, m.request())
		rec.completed(tok)
	}
	b.t.End(tok, traced, err)
	return m, st, ok, err
}

// runStatusReq runs f, a call about request r (Mrecv: the request that
// receives its message) that returns a status, as routine op.
func (b *tracerBox) runStatusReq(op Routine, c *Comm, r *Request, n int, f func() (Status, error)) (Status, error) {
	tok := b.t.Begin(Event{Routine: op, Comm: c, Peer: -1, Tag: -1, Bytes: n, Req: r})
	st, err := f()
	b.t.End(tok, st, err)
	return st, err
}
