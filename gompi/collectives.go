package gompi

import (
	"errors"
	"strings"
	"sync/atomic"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi/internal/base"
)

// Collectives. Every member of the communicator must call the same
// collective, in the same order, with matching arguments (counts, root, op);
// ranks that see arguments disagree return ErrMismatch. Each operation has
// several algorithms (see package coll, and `benches coll-algorithms`); one is
// chosen by the message size and the number of ranks, unless one is named
// for the call (WithAlgorithm), for the communicator (SetAlgorithm) or in the
// environment (GOMPI_COLL_<OP>=name). The send buffer InPlace[byte]() (or
// InPlace[T]() for the typed functions) means "in place" where MPI allows it
// (the data is taken from the receive buffer); a nil buffer is an empty one.
//
// The nonblocking forms (Ibarrier, Ibcast, ...) return a Request at once and
// run the same algorithm in the background; the buffers belong to gompi until
// the request completes.

// installCollectives adds the runtime's own algorithms to package coll's
// registry and decides where selection uses them; it is the one place that
// does, run once at start-up. Under the MPI backend the library's own
// collectives ("mpi", native_mpi.go) come first in every rule and stay the
// default. In the pure-Go runtime the shared-memory algorithms ("shm",
// shmcoll.go) come first where they are measured to win. "shm" is
// registered in both builds (named explicitly under MPI it reports itself
// unavailable: the communicator has no scratch area in gompi's segment).
func installCollectives() error {
	if err := registerNative(); err != nil {
		return err
	}
	if err := registerShm(); err != nil {
		return err
	}
	if err := registerCMA(); err != nil {
		return err
	}
	if err := registerCMARed(); err != nil {
		return err
	}
	if nativeColl {
		return nil
	}
	// The table reads "shm where the call fits the scratch area, else
	// single copy where measured faster, else shm in pieces, else coll's
	// rules" (the tiers of selection.go); the order of these calls does not
	// matter, but installPairwise's rules go in front of cma's in their tier.
	if err := preferShmWhereFaster(); err != nil {
		return err
	}
	if err := installPairwise(); err != nil { // pairwise single copy, ahead of cma (shmcoll_pairwise.go)
		return err
	}
	if err := preferCMAWhereFaster(); err != nil {
		return err
	}
	if err := preferCMARedWhereFaster(); err != nil {
		return err
	}
	if err := installSplit(); err != nil { // two ranks: both copy half (shmcoll_split2.go); before installCMAv
		return err
	}
	if err := installPush(); err != nil { // Scatterv into the readers' own lines (shmcoll_push.go); before installCMAv
		return err
	}
	if err := installCMAv(); err != nil { // single copy for the forms with per-rank counts (shmcoll_cmav.go)
		return err
	}
	if err := preferLinearLarge(); err != nil { // Bcast and Scatter of 128-512 KiB by linear (selection_linear.go)
		return err
	}
	return installChain() // Scan and Exscan's chain, in front of the rest where it wins (shmcoll_scan.go)
}

func init() {
	// One rebuild of coll's selection per operation, not one per rule
	// (docs/PERFORMANCE.md, "Init and memory at 64 ranks").
	if err := coll.Batch(installCollectives); err != nil {
		panic("gompi: installing the runtime's collective algorithms: " + err.Error())
	}
}

// CollOption tunes one collective call.
type CollOption = coll.Option

// WithAlgorithm runs the call with the named algorithm (every rank must name
// the same one).
func WithAlgorithm(name string) CollOption { return coll.WithAlgorithm(name) }

// WithSegmentSize sets the segment size of pipelined algorithms, in bytes.
func WithSegmentSize(bytes int) CollOption { return coll.WithSegmentSize(bytes) }

// SetAlgorithm makes this communicator use the named algorithm for operation
// op ("bcast", "allreduce", ... as `benches coll-algorithms` lists them); an
// empty name removes the choice. Every member should make the same choice.
func (c *Comm) SetAlgorithm(op, name string) error {
	if err := c.valid("SetAlgorithm"); err != nil {
		return err
	}
	o, err := coll.ParseOperation(op)
	if err != nil {
		return c.errf("SetAlgorithm", base.ErrArg, -1, -1, err.Error(), "")
	}
	if name != "" {
		if _, err := coll.Lookup(o, name); err != nil {
			return c.errf("SetAlgorithm", base.ErrArg, -1, -1, err.Error(), "")
		}
	}
	c.colls.set(o, name)
	return nil
}

// collConfig holds a communicator's algorithm choices, copied on write so that
// collectives read them without a lock.
type collConfig struct {
	m atomic.Pointer[map[coll.Operation]string]
}

func (cc *collConfig) get(op coll.Operation) string {
	if m := cc.m.Load(); m != nil {
		return (*m)[op]
	}
	return ""
}

func (cc *collConfig) set(op coll.Operation, name string) {
	next := map[coll.Operation]string{}
	if m := cc.m.Load(); m != nil {
		for k, v := range *m {
			next[k] = v
		}
	}
	if name == "" {
		delete(next, op)
	} else {
		next[op] = name
	}
	cc.m.Store(&next)
}

func (cc *collConfig) copyTo(d *collConfig) { d.m.Store(cc.m.Load()) }

// collComm is the communicator as one collective call's algorithm sees it:
// point-to-point on the collective context, with the call's own tags.
type collComm struct {
	c           *Comm
	base        int
	nonblocking bool      // a nonblocking call: the shared-memory algorithms stay out
	args        coll.Args // the call's arguments, kept here so that they need no allocation
	algo        string    // the algorithm the call runs (coll.AlgorithmObserver), for the trace

	line shmLineCall // a two-rank shm call's data beside the arrival words (shmcoll_line.go)
	push pushState   // pushed calls on the readers' own lines (shmcoll_push.go)

	r    Routine    // the blocking call's routine: its entry in fast
	fast *fastCache // the blocking calls' kept choices (collfast.go)
}

// RunningAlgorithm records the algorithm coll chose for the call. A blocking
// call takes its tag base here, once its algorithm is known, unless that
// algorithm sends no messages (collfast.go).
func (x *collComm) RunningAlgorithm(_ coll.Operation, name string) {
	x.algo = name
	if x.base == tagsUndecided {
		if taglessAlgorithm(x.r, name) {
			x.base = tagsNone
		} else {
			x.base = x.c.c.CollTagBase()
		}
	}
}

// with stores the call's arguments in the adapter and returns them.
func (x *collComm) with(a coll.Args) *coll.Args {
	x.args = a
	return &x.args
}

func (c *Comm) newCollComm() *collComm { return &collComm{c: c, base: c.c.CollTagBase()} }

func (x *collComm) Rank() int { return x.c.c.Rank() }
func (x *collComm) Size() int { return x.c.c.Size() }
func (x *collComm) Send(buf []byte, dest, tag int) error {
	return x.c.c.CollSend(buf, dest, x.base+tag)
}
func (x *collComm) Recv(buf []byte, src, tag int) (int, error) {
	st, err := x.c.c.CollRecv(buf, src, x.base+tag)
	return st.Count, err
}
func (x *collComm) Isend(buf []byte, dest, tag int) (coll.Request, error) {
	r, err := x.c.c.CollIsend(buf, dest, x.base+tag)
	if err != nil {
		return nil, err
	}
	return r, nil
}
func (x *collComm) Irecv(buf []byte, src, tag int) (coll.Request, error) {
	return x.c.c.CollIrecv(buf, src, x.base+tag), nil
}
func (x *collComm) ChooseAlgorithm(op coll.Operation, _, _ int) string { return x.c.colls.get(op) }

// collClasses are the runtime classes a failure inside an algorithm keeps.
var collClasses = []error{base.ErrPeerLost, base.ErrTimeout, base.ErrAborted, base.ErrNotSupported, base.ErrComm}

// collErr turns an algorithm's error into the runtime's: a message of the
// wrong size inside a collective means the ranks' arguments differ.
func (c *Comm) collErr(r Routine, err error) error {
	if err == nil {
		return nil
	}
	if e, ok := err.(*base.Error); ok && e.Op == r.String() {
		e.Rank = c.c.Rank() // the call's own check: already the runtime's error
		return e
	}
	class := base.ErrInternal
	switch {
	case errors.Is(err, coll.ErrMismatch), errors.Is(err, base.ErrTruncate):
		class = base.ErrMismatch
	case errors.Is(err, coll.ErrArg), errors.Is(err, coll.ErrUnknownAlgorithm), errors.Is(err, coll.ErrNotApplicable):
		class = base.ErrArg
	default:
		for _, k := range collClasses {
			if errors.Is(err, k) {
				class = k
				break
			}
		}
	}
	e := &base.Error{Op: r.String(), Rank: c.c.Rank(), Peer: -1, Tag: -1, Err: class, Cause: err, Detail: base.Describe(err)}
	var ce *coll.Error
	if errors.As(err, &ce) {
		e.Peer = ce.Peer
		// The algorithm's own words, without its prefix (operation, rank,
		// class), which this error says already.
		e.Detail = base.Describe(ce.Err)
		for _, k := range []error{coll.ErrArg, coll.ErrMismatch, coll.ErrUnknownAlgorithm, coll.ErrNotApplicable, class} {
			e.Detail = strings.TrimPrefix(e.Detail, k.Error()+": ")
		}
		if ce.Algorithm != "" {
			e.Detail += " (algorithm " + ce.Algorithm + ")"
		}
	}
	return e
}

// collective runs one blocking collective call. It reuses the
// communicator's adapter: blocking collectives on one communicator are never
// concurrent (MPI's rule), and the call then allocates nothing of its own.
// f must not escape: it is only called here.
func (c *Comm) collective(r Routine, root, n int, f func(x *collComm) error) error {
	if c == nil || c.freed.Load() { // valid's checks, without naming r on every call
		return c.valid(r.String())
	}
	if err := c.c.DrainNBC(); err != nil { // the nonblocking calls before it first (nbcshm.go)
		return c.collErr(r, err)
	}
	b := tracer.Load()
	var tok uint64
	var oc openCall
	if b != nil {
		tok = b.begin(&oc, &Event{Routine: r, Comm: c, Peer: root, Tag: -1, Bytes: n})
	}
	x := &c.bx
	// The tag base is taken once the algorithm is known: none for a
	// shared-memory step (RunningAlgorithm, collfast.go).
	x.c, x.base, x.nonblocking, x.algo, x.r = c, tagsUndecided, false, "", r
	// Under the race detector a collective orders what ranks did before
	// it against what they do after it, as it does in fact: the steps
	// through the shared segment are invisible to the detector, and a
	// window's service may have written this rank's memory for another
	// rank's epoch (see raceSync).
	raceSync()
	err := f(x)
	if err != nil { // collErr is not inlined: no call for a call that succeeded
		err = c.collErr(r, err)
	}
	raceSync()
	if b != nil {
		if b.rec != nil && x.algo != "" {
			oc.r.Algo = b.rec.strs.ID(x.algo)
		}
		b.end(&oc, tok, base.EmptyStatus, err)
	}
	return err
}

// icollective starts one nonblocking collective call. Its tags are taken now,
// so that calls started in the same order on every rank match, however their
// goroutines are scheduled. Under the MPI backend, when the library's own
// collective is chosen, it is started now (MPI_Ibcast...), in call order.
func (c *Comm) icollective(r Routine, root, n int, op coll.Operation, args coll.Args, opts []CollOption) (*Request, error) {
	if err := c.valid(r.String()); err != nil {
		return nil, err
	}
	var req *Request
	var algo string // the algorithm, for the trace
	b := tracer.Load()
	start := func() error {
		x := c.newCollComm()
		x.nonblocking = true
		a := x.with(args)
		if r2, ok := c.startShmNBC(x, op, a, opts); ok { // a step nobody waits in (nbcshm.go)
			req, algo = r2, "shm"
			return nil
		}
		if b != nil && b.rec != nil {
			algo, _ = coll.Choose(x, op, a, opts...)
		}
		if nativeColl {
			if name, err := coll.Choose(x, op, a, opts...); err == nil && name == nativeAlgorithm {
				var err error
				req, err = x.startNative(op, a)
				return c.collErr(r, err)
			}
		}
		req = (*Request)(c.c.Go(func() error { return c.collErr(r, coll.Call(x, op, a, opts...)) }))
		return nil
	}
	if b != nil {
		var oc openCall
		tok := b.begin(&oc, &Event{Routine: r, Comm: c, Peer: root, Tag: -1, Bytes: n})
		err := start()
		if b.rec != nil && err == nil {
			oc.r.Req = reqID(req)
			if algo != "" {
				oc.r.Algo = b.rec.strs.ID(algo)
			}
		}
		b.end(&oc, tok, base.EmptyStatus, err)
		return req, err
	}
	return req, start()
}

// Barrier returns once every rank of c has called it.
func (c *Comm) Barrier(opts ...CollOption) error {
	return c.collective(RoutineBarrier, -1, -1, func(x *collComm) error { return x.call(coll.OpBarrier, x.set(nil, nil, 0), opts) })
}

// Bcast copies buf of rank root into buf of every rank (same length everywhere).
func (c *Comm) Bcast(buf []byte, root int, opts ...CollOption) error {
	return c.collective(RoutineBcast, root, len(buf), func(x *collComm) error {
		noteLinearRoot(c, buf, len(buf), root, false) // linear_huge.go
		return x.call(coll.OpBcast, x.set(nil, buf, root), opts)
	})
}

// Reduce combines the send vectors of all ranks with op, in rank order, into
// recv at root (recv is ignored elsewhere). In place at root: send InPlace[byte]().
func (c *Comm) Reduce(send, recv []byte, op AnyOp, root int, opts ...CollOption) error {
	return c.collective(RoutineReduce, root, len(recv), func(x *collComm) error {
		a, err := x.setOp(RoutineReduce, inPlace(send), recv, op, root)
		if err != nil {
			return err
		}
		return x.call(coll.OpReduce, a, opts)
	})
}

// Allreduce is Reduce with the result on every rank. In place: send InPlace[byte]().
func (c *Comm) Allreduce(send, recv []byte, op AnyOp, opts ...CollOption) error {
	return c.collective(RoutineAllreduce, -1, len(recv), func(x *collComm) error {
		a, err := x.setOp(RoutineAllreduce, inPlace(send), recv, op, 0)
		if err != nil {
			return err
		}
		return x.call(coll.OpAllreduce, a, opts)
	})
}

// Gather collects every rank's send block into recv at root, rank i's block at
// i*len(send). In place at root: send InPlace[byte]().
func (c *Comm) Gather(send, recv []byte, root int, opts ...CollOption) error {
	return c.collective(RoutineGather, root, len(send), func(x *collComm) error {
		return x.call(coll.OpGather, x.set(inPlace(send), recv, root), opts)
	})
}

// Gatherv is Gather with per-rank byte counts and displacements (read at root).
func (c *Comm) Gatherv(send, recv []byte, counts, displs []int, root int, opts ...CollOption) error {
	return c.collective(RoutineGatherv, root, len(send), func(x *collComm) error {
		return x.call(coll.OpGatherv, x.setCounts(inPlace(send), recv, nil, nil, counts, displs, root), opts)
	})
}

// Scatter hands block i of root's send (blocks of len(recv)) to rank i. In
// place at root: recv nil.
func (c *Comm) Scatter(send, recv []byte, root int, opts ...CollOption) error {
	return c.collective(RoutineScatter, root, len(recv), func(x *collComm) error {
		noteLinearRoot(c, send, len(recv), root, true) // linear_huge.go
		return x.call(coll.OpScatter, x.set(send, inPlace(recv), root), opts)
	})
}

// Scatterv is Scatter with per-rank byte counts and displacements (read at root).
func (c *Comm) Scatterv(send []byte, counts, displs []int, recv []byte, root int, opts ...CollOption) error {
	return c.collective(RoutineScatterv, root, len(recv), func(x *collComm) error {
		return x.call(coll.OpScatterv, x.setCounts(send, inPlace(recv), counts, displs, nil, nil, root), opts)
	})
}

// Allgather is Gather with the result on every rank. In place: send InPlace[byte]().
func (c *Comm) Allgather(send, recv []byte, opts ...CollOption) error {
	return c.collective(RoutineAllgather, -1, len(send), func(x *collComm) error {
		return x.call(coll.OpAllgather, x.set(inPlace(send), recv, 0), opts)
	})
}

// Allgatherv is Gatherv with the result on every rank.
func (c *Comm) Allgatherv(send, recv []byte, counts, displs []int, opts ...CollOption) error {
	return c.collective(RoutineAllgatherv, -1, len(send), func(x *collComm) error {
		return x.call(coll.OpAllgatherv, x.setCounts(inPlace(send), recv, nil, nil, counts, displs, 0), opts)
	})
}

// Alltoall sends block j of send to rank j, which stores it as block i of its
// recv. In place: send InPlace[byte]().
func (c *Comm) Alltoall(send, recv []byte, opts ...CollOption) error {
	return c.collective(RoutineAlltoall, -1, len(recv), func(x *collComm) error {
		return x.call(coll.OpAlltoall, x.set(inPlace(send), recv, 0), opts)
	})
}

// Alltoallv is Alltoall with per-peer byte counts and displacements.
func (c *Comm) Alltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int, opts ...CollOption) error {
	return c.collective(RoutineAlltoallv, -1, len(recv), func(x *collComm) error {
		return x.call(coll.OpAlltoallv, x.setCounts(inPlace(send), recv, scounts, sdispls, rcounts, rdispls, 0), opts)
	})
}

// Alltoallw is Alltoallv with each peer's data type folded into its byte
// counts and displacements (MPI_Alltoallw over a runtime without datatypes).
func (c *Comm) Alltoallw(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int, opts ...CollOption) error {
	return c.collective(RoutineAlltoallw, -1, len(recv), func(x *collComm) error {
		return x.call(coll.OpAlltoallw, x.setCounts(inPlace(send), recv, scounts, sdispls, rcounts, rdispls, 0), opts)
	})
}

// ReduceScatter reduces the send vectors and gives rank i counts[i] bytes of
// the result, in recv. In place: send InPlace[byte]().
func (c *Comm) ReduceScatter(send, recv []byte, counts []int, op AnyOp, opts ...CollOption) error {
	return c.collective(RoutineReduceScatter, -1, len(recv), func(x *collComm) error {
		a, err := x.setOp(RoutineReduceScatter, inPlace(send), recv, op, 0)
		if err != nil {
			return err
		}
		a.RecvCounts = counts
		return x.call(coll.OpReduceScatter, a, opts)
	})
}

// ReduceScatterBlock is ReduceScatter with equal parts of len(recv) bytes.
func (c *Comm) ReduceScatterBlock(send, recv []byte, op AnyOp, opts ...CollOption) error {
	return c.collective(RoutineReduceScatterBlock, -1, len(recv), func(x *collComm) error {
		a, err := x.setOp(RoutineReduceScatterBlock, inPlace(send), recv, op, 0)
		if err != nil {
			return err
		}
		return x.call(coll.OpReduceScatterBlock, a, opts)
	})
}

// Scan sets recv on rank r to the reduction of ranks 0..r. In place: send InPlace[byte]().
func (c *Comm) Scan(send, recv []byte, op AnyOp, opts ...CollOption) error {
	return c.collective(RoutineScan, -1, len(recv), func(x *collComm) error {
		a, err := x.setOp(RoutineScan, inPlace(send), recv, op, 0)
		if err != nil {
			return err
		}
		return x.call(coll.OpScan, a, opts)
	})
}

// Exscan sets recv on rank r > 0 to the reduction of ranks 0..r-1. In place:
// send InPlace[byte]().
func (c *Comm) Exscan(send, recv []byte, op AnyOp, opts ...CollOption) error {
	return c.collective(RoutineExscan, -1, len(recv), func(x *collComm) error {
		a, err := x.setOp(RoutineExscan, inPlace(send), recv, op, 0)
		if err != nil {
			return err
		}
		return x.call(coll.OpExscan, a, opts)
	})
}
