package gompi

import "github.com/gompi/gompi/coll"

// The small blocking collective's fast path. A two-rank Bcast of 8 bytes
// costs some 500 ns, of which the selection (merging the options, looking the
// operation up by name four times, the communicator's and the
// environment's choices, the table's rules, the algorithms' Available
// functions) and the tag counter's atomic add took a sixth on every call.
// A communicator's blocking calls therefore keep, per routine, the
// algorithm chosen for the last call of that routine and the inputs it was
// chosen from; a call whose inputs are the same runs it at once. The
// arguments are checked whenever they differ from the kept call's in
// anything the checks read (coll.CheckRefAt: the same errors as before); a
// call with the kept call's inputs would pass as it did (fastEntry).
//
// What the choice depends on, and so what the entry keeps and compares:
//   - coll's selection (registry, tables, GOMPI_COLL_* overrides):
//     coll.CurrentSelection, which changes whenever any of them does;
//   - the communicator's own choices (SetAlgorithm): the collConfig map,
//     copied on write, so its pointer changes with every SetAlgorithm;
//   - whether single copy is agreed on (comm.cma): the "cma" algorithms'
//     and the chain's Available read it;
//   - the call's arguments as the Available functions read them: the
//     lengths of send and receive buffers, whether either is nil (in place),
//     the root, whether the operator is commutative, and the per-rank
//     counts and displacements of the v forms and Reduce_scatter, by value
//     (collcounts.go). Calls with options (WithAlgorithm,
//     WithSegmentSize) always choose afresh.
//
// Tags. A call that runs point-to-point takes its tag base when it is known
// to (collComm.RunningAlgorithm, before the algorithm runs); a call that runs
// as one of the plain shared-memory steps (shmAlgs), which send no
// messages, takes none. Every rank makes the same choice for the same call
// (selection is a function of what all ranks agree on), so every rank takes
// the same bases in the same order, and point-to-point calls between shm
// steps still match (collfast_test.go).

// Tag bases of a blocking call's adapter (collComm.base) before and after
// the algorithm is known.
const (
	tagsUndecided = -1 // set by collective: the algorithm is not chosen yet
	tagsNone      = -2 // a plain shm step: no messages, no tags
)

// fastRoutines is the number of blocking collective routines (RoutineBarrier
// to RoutineExscan).
const fastRoutines = int(RoutineExscan-RoutineBarrier) + 1

// fastEntry is one routine's kept choice. Its inputs are also all that
// coll's argument checks read (the lengths and nil-ness of the buffers, the
// root, the counts and displacements, the operator's element size and
// whether it has a function; the rank and size are the communicator's, the
// segment size is 0 without options), so a call whose inputs are the kept
// ones skips the checks too (coll/args.go; TestKeptCallStillChecked,
// coll.TestChecksReadOnlyKeptInputs).
type fastEntry struct {
	alg     *coll.Algorithm
	tagless bool
	shm     *shmAlg // alg is this plain shm algorithm: run it directly (runKept)
	chain   int8    // alg is Scan's or Exscan's chain: run it directly (chainKept, collfast_chain.go)
	push    bool    // alg is Scatterv's push: run it directly (runKeptPush, collfast_push.go)
	ref     coll.OpRef
	sel     coll.Selection
	conf    *map[coll.Operation]string
	cma     int32
	nSend   int // len(send), -1 for nil
	nRecv   int // len(recv), -1 for nil
	root    int
	commut  bool
	elem    int  // Op.ElemSize
	apply   bool // Op.Apply is set
	refDone bool
	counts  keptCounts // the per-rank counts and displacements (collcounts.go)
}

// fastCache is a communicator's kept choices, by routine.
type fastCache [fastRoutines]fastEntry

// lenOrNil is len(b), -1 for nil.
func lenOrNil(b []byte) int {
	if b == nil {
		return -1
	}
	return len(b)
}

// call runs one blocking collective call of op with arguments a on the
// communicator's adapter (collective), through the kept choice where it
// holds.
func (x *collComm) call(op coll.Operation, a *coll.Args, opts []coll.Option) error {
	i := int(x.r) - int(RoutineBarrier)
	if len(opts) != 0 || x.nonblocking || x.base != tagsUndecided || i < 0 || i >= fastRoutines {
		return coll.Call(x, op, a, opts...) // tags: RunningAlgorithm
	}
	c := x.c
	if x.fast == nil {
		x.fast = new(fastCache) // once per communicator (x is its adapter, Comm.bx)
	}
	e := &x.fast[i]
	if !e.refDone {
		e.ref, e.refDone = coll.RefOf(op), true
	}
	sel, conf, cma := coll.CurrentSelection(), c.colls.m.Load(), c.cma.Load()
	nSend, nRecv, commut := lenOrNil(a.Send), lenOrNil(a.Recv), a.Op.Commutative
	elem, apply := a.Op.ElemSize, a.Op.Apply != nil
	if e.alg == nil || e.sel != sel || e.conf != conf || e.cma != cma || e.nSend != nSend ||
		e.nRecv != nRecv || e.root != a.Root || e.commut != commut || e.elem != elem || e.apply != apply ||
		!e.counts.same(a) {
		// Checked here only: coll's checks read nothing but what the
		// entry keeps (coll/args.go), so a call whose inputs are the
		// kept call's passes them as that call did.
		bytes, err := coll.CheckRefAt(op, e.ref, c.c.Size(), c.c.Rank(), a)
		if err != nil {
			return err
		}
		alg, err := coll.SelectFor(x, op, a, bytes)
		if err != nil {
			e.alg = nil
			return err
		}
		e.alg, e.tagless, e.shm, e.chain = alg, taglessAlgorithm(x.r, alg.Name), shmAlgOf(op, alg), chainKindOf(op, alg)
		e.push = pushAlgOf(op, alg)
		e.sel, e.conf, e.cma, e.nSend, e.nRecv, e.root, e.commut = sel, conf, cma, nSend, nRecv, a.Root, commut
		e.elem, e.apply = elem, apply
		e.counts.keep(a)
	}
	if e.tagless {
		x.base = tagsNone
	} else {
		x.base = c.c.CollTagBase()
	}
	if e.shm != nil {
		return runKept(x, op, e.shm, a)
	}
	if e.chain != chainNone {
		return runKeptChain(x, op, e.chain, a)
	}
	if e.push {
		return runKeptPush(x, op, a)
	}
	return coll.RunChosen(x, op, e.alg, a)
}

// taglessAlgorithm reports whether algorithm name, run for blocking routine
// r, sends no messages: the plain shared-memory steps (shmAlgs; the forms
// with per-rank counts send the blocks too large for their slots
// point-to-point) and Scan's and Exscan's chain (flags in the scratch area,
// or single copy: no messages either). By routine, not by operation name:
// RunningAlgorithm asks on every call that chooses afresh
// (TestTaglessRoutinesAreShmAlgs keeps the list and shmAlgs alike).
func taglessAlgorithm(r Routine, name string) bool {
	if name == "chain" {
		return r == RoutineScan || r == RoutineExscan
	}
	if name == "push" {
		// Scatterv's slotted fallback takes a base (pushSlotted); Scatter's
		// and Bcast's push has none (shmcoll_pushb.go), nor Gather's and
		// Reduce's (shmcoll_pushg.go); Gatherv's sends its larger blocks.
		return r == RoutineScatterv || r == RoutineScatter || r == RoutineBcast || r == RoutineGather || r == RoutineReduce
	}
	if name != "shm" {
		return false
	}
	switch r {
	case RoutineBarrier, RoutineBcast, RoutineReduce, RoutineAllreduce, RoutineGather, RoutineScatter,
		RoutineAllgather, RoutineAlltoall, RoutineReduceScatterBlock, RoutineScan, RoutineExscan:
		return true
	}
	return false
}
