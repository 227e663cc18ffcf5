package gompi

import (
	"fmt"
	"runtime"

	"github.com/gompi/gompi/coll"
)

// The single-copy shared-memory algorithms ("cma"): every rank publishes the
// buffer its peers read from (shmcma.go), all meet, and each rank copies
// what it needs straight out of the peers' buffers: the data cross memory
// once, and all ranks copy at the same time. The "shm" algorithms copy
// everything into the scratch area and out again, and the point-to-point
// ones move each block through a message; at 128 KiB and more the extra
// copy costs more than the system call per block.
//
// Two shapes:
//
//   - rooted (Bcast, Scatter, Gather): only the root's buffer is touched.
//     The root publishes it, posts the step and waits until every other
//     rank has arrived; each waits for the root's post only, copies its
//     part out of it (Gather: into it, process_vm_writev) and arrives
//     without waiting for the others. One step.
//   - general (Allgather, Alltoall): every rank publishes its send buffer,
//     all meet, each copies its parts, and a closing step keeps every read
//     buffer alive until all are done; a rank whose buffer nobody reads
//     leaves the closing step open and goes on.
//
// A read the kernel refuses at run time (the agreement at the first call
// makes that rare) is not an error: the rank says so in the closing step,
// and the ranks it reads from send it those parts as messages instead.

type cmaAlg struct {
	op      coll.Operation
	summary string
	cost    string
	// rooted: readers read only the root's buffer (one rooted step).
	rooted bool
	// push (rooted only): the other ranks write into the root's buffer
	// instead of reading from it (Gather: they copy at the same time,
	// where the root alone would copy every block in turn); from then
	// gives what this rank writes and where, to what the root receives
	// from r when r's write fails.
	push bool
	// sig is the size the signature carries (ranks that disagree get
	// ErrMismatch).
	sig func(n int, a *coll.Args) int
	// ok reports whether the algorithm applies to these arguments (the same
	// answer on every rank), nil if always.
	ok func(n int, a *coll.Args) bool
	// source is the buffer this rank's peers read from, nil if none.
	source func(n, me int, a *coll.Args) []byte
	// from is what this rank copies out of peer's source: into dst, from
	// offset off of the source. An empty dst: nothing.
	from func(n, me, peer int, a *coll.Args) (dst []byte, off int)
	// to is the part of this rank's source that rank r copies (what from
	// gives on rank r for this rank): what to send r when its read fails.
	to func(n, me, r int, a *coll.Args) []byte
	// local copies this rank's own part, if any.
	local func(n, me int, a *coll.Args)
}

// cmaConstraints is what every single-copy algorithm needs, as
// coll-algorithms prints it.
const cmaConstraints = "all ranks on one host; blocking calls; the kernel lets ranks read each other's memory (process_vm_readv; GOMPI_SHM_CMA_COLL=0 turns it off)"

// cmaComm returns the runtime's communicator of a call that single copy may
// run: a blocking call on a communicator where it has not been turned off.
func cmaComm(c coll.Comm) (*collComm, bool) {
	x, ok := c.(*collComm)
	return x, ok && !x.nonblocking && x.c.cma.Load() != cmaOff
}

// registerSingleCopy adds one single-copy algorithm to package coll's
// registry: available for a call single copy may run (cmaComm) whose needs
// fit (fits: the call's own conditions and the scratch area it takes on n
// ranks), run by run.
func registerSingleCopy(op coll.Operation, name, summary, cost, constraints string,
	fits func(x *collComm, n int, a *coll.Args) bool, run func(x *collComm, a *coll.Args) error) error {
	return coll.Register(coll.Algorithm{
		Op: op, Name: name, Summary: summary,
		Cost:        coll.Cost{Formula: cost},
		Constraints: constraints,
		Available: func(c coll.Comm, a *coll.Args) bool {
			x, ok := cmaComm(c)
			return ok && fits(x, x.Size(), a)
		},
		Run: func(c coll.Comm, a *coll.Args) error { return run(c.(*collComm), a) },
	})
}

// registerCMA adds the single-copy algorithms to package coll's registry
// under the name "cma"; preferCMAWhereFaster puts them into the table.
func registerCMA() error {
	for _, s := range cmaAlgs {
		err := registerSingleCopy(s.op, "cma", s.summary, s.cost, cmaConstraints+"; large data",
			func(x *collComm, n int, a *coll.Args) bool {
				return (s.ok == nil || s.ok(n, a)) && n*(sigSize+cmaRecSize+1) <= x.c.c.ShmCapacity()
			},
			func(x *collComm, a *coll.Args) error { return runCMA(x, s, a) })
		if err != nil {
			return err
		}
	}
	return nil
}

// cmaPreferred says where the selection table tries "cma" first: calls of
// at least minBytes (the operation's own measure, coll.Operation.SizeMeaning:
// the message of Bcast, one block of the others). Measured side by side
// against the table before: docs/PERFORMANCE.md, "Single-copy collectives".
// minBytes2 is the bound on two ranks where it differs (0: the same).
// Gather and Alltoall from 4 KiB on 3 or more ranks: "cma" took 0.2-0.7x
// the time of the table's binomial and linear at 4 and 32 KiB on 4 and 8
// ranks (docs/PERFORMANCE.md, "Tuning after the full sweep"); on two ranks
// pairwise and binomial were as fast or faster below 64 KiB.
var cmaPreferred = []struct {
	op                  coll.Operation
	minBytes, minBytes2 int
}{
	{coll.OpBcast, 64 << 10, 0},
	// Not Scatter: "linear" already copies each block once (a rendezvous
	// per rank), and "cma" measured slower than it at 1 MiB and at 8
	// ranks in two runs out of two.
	{coll.OpGather, 4 << 10, 64 << 10},
	{coll.OpAllgather, 64 << 10, 0},
	{coll.OpAlltoall, 4 << 10, 64 << 10},
}

// preferCMAWhereFaster puts "cma" first where cmaPreferred says it wins,
// and for Scatter on 3 ranks or more from 4 KiB to 128 KiB, behind "shm"
// where that fits: there "cma" took 0.1-0.5x binomial's and linear's time
// at 4 and 32 KiB on 4 and 8 ranks, and linear won from 256 KiB
// (docs/PERFORMANCE.md, "Scratch halves that hold 32 KiB blocks").
func preferCMAWhereFaster() error {
	for _, p := range cmaPreferred {
		if err := preferAbove(p.op, "cma", p.minBytes, p.minBytes2); err != nil {
			return err
		}
	}
	if err := prefer(coll.OpScatter, tierCopy, coll.Rule{MinRanks: 3, MinBytes: 4 << 10, MaxBytes: 128 << 10, Use: []string{"cma"}}); err != nil {
		return err
	}
	// A Bcast that fits the scratch half in one piece (the half holds 32 KiB
	// per rank up to 8 ranks: 64 KiB from 3 ranks, 128 KiB from 4, 256 KiB
	// at 8) goes through it in one step, ahead of single copy. Measured
	// after the halves grew (sidebyside --tune --ops bcast --algs cma,shm
	// --n 4,8 --sizes 65536,131072,262144,524288 --reps 5 --stat min, load
	// 3.5): 4 ranks 64/128 KiB shm 8.7/5.6 µs against cma 17.3/22.8; 8 ranks
	// 64/128/256 KiB shm 7.5/12.9/24.9 against 21.3/28.5/48.2; beyond one
	// piece cma wins again (8 ranks, 512 KiB: 104 against 154). Measured at
	// 4 and 8 ranks only; 3 and 5-7 follow the same one-piece fit, not
	// measured. The bounds restate collScratch's halves (internal/shm): a
	// change there must change them too.
	for _, r := range []coll.Rule{
		{MinRanks: 3, MaxBytes: 64 << 10},
		{MinRanks: 4, MaxBytes: 128 << 10},
		{MinRanks: 8, MaxRanks: 8, MaxBytes: 256 << 10},
	} {
		r.Use = []string{"shm"}
		if err := prefer(coll.OpBcast, tierFirst, r); err != nil {
			return err
		}
	}
	return nil
}

// runCMA runs one single-copy collective (after runShm's start: the last
// open step waited for, the signature written).
func runCMA(x *collComm, s *cmaAlg, a *coll.Args) error {
	n, me := x.Size(), x.Rank()
	scratch, err := beginStep(x, s.op, uint32(int32(a.Root)), s.sig(n, a))
	if err != nil {
		return err
	}
	on, data, err := cmaAgree(x, scratch[n*sigSize:])
	if err != nil {
		return err
	}
	if !on {
		// Agreed off, on every rank: "cma" is no longer available, and
		// selection picks what it would have without it.
		return coll.Call(x, s.op, a)
	}
	src := s.source(n, me, a)
	if s.rooted {
		err = cmaRooted(x, s, a, data, src)
	} else {
		err = cmaGeneral(x, s, a, data, src)
	}
	runtime.KeepAlive(src)
	leadNext(x, s.op, a.Root)
	return err
}

// cmaGeneral: publish, meet, copy, close; repair failed reads.
func cmaGeneral(x *collComm, s *cmaAlg, a *coll.Args, data, src []byte) error {
	n, me := x.Size(), x.Rank()
	publishBufN(cmaRec(data, me), src, n)
	if err := meet(x); err != nil {
		return err
	}
	failed := !cmaReadAll(x, s, a, cmaData(x))
	if s.local != nil {
		s.local(n, me, a)
	}
	flags, err := cmaClose(x, failed, len(src) > 0 || failed)
	if err != nil || flags == nil {
		return err
	}
	return cmaRepair(x, s, a, flags, nil)
}

// cmaRooted: the root publishes and posts, the readers copy and arrive;
// the root waits for them all and repairs failed reads.
func cmaRooted(x *collComm, s *cmaAlg, a *coll.Args, data, src []byte) error {
	n, me := x.Size(), x.Rank()
	flags := data[n*cmaRecSize : n*cmaRecSize+n]
	if me == a.Root {
		publishBuf(cmaRec(data, me), src)
		if s.local != nil {
			s.local(n, me, a)
		}
		if err := x.c.c.ShmStepPost(); err != nil {
			return err
		}
		// Every reader has arrived: done with src, and its flag written.
		// Readers whose signature disagrees got ErrMismatch from awaitRoot
		// and wait for nothing; those that agree and failed to read wait
		// for their part.
		sigErr := checkAfter(x, nil)
		if err := cmaRepair(x, s, a, flags, x.c.c.ShmScratchPrev()); err != nil {
			return err
		}
		return sigErr
	}
	flags[me] = 0 // before arriving in awaitRoot's mismatch case too
	if err := awaitRoot(x, a.Root); err != nil {
		return err
	}
	// The step is not taken yet: its records are in data.
	failed := !cmaReadAll(x, s, a, data)
	flags[me] = 0
	if failed {
		flags[me] = 1
	}
	if err := x.c.c.ShmArrive(); err != nil {
		return err
	}
	if !failed {
		return nil
	}
	part, _ := s.from(n, me, a.Root, a)
	if s.push {
		return x.Send(part, a.Root, cmaRepairTag)
	}
	return cmaRecvRepair(x, part, a.Root)
}

// cmaReadAll copies this rank's parts out of its peers' buffers (with push:
// into them), starting
// with the next rank so that the ranks do not all read the same one first;
// false if a read failed. recs is the data area with the peers' records.
func cmaReadAll(x *collComm, s *cmaAlg, a *coll.Args, recs []byte) bool {
	n, me := x.Size(), x.Rank()
	for i := 1; i < n; i++ {
		r := (me + i) % n
		part, off := s.from(n, me, r, a)
		if len(part) == 0 {
			continue
		}
		b := peerBuf(cmaRec(recs, r))
		if s.push && b.write(part, off) != nil || !s.push && b.read(part, off) != nil {
			return false
		}
	}
	return true
}

// cmaRepair sends the ranks whose reads failed their parts of this rank's
// source, and, if this rank failed, receives its own parts, as messages.
// flags[r] != 0: rank r failed. With sigs (the rooted case, where readers
// that disagree with the root wait for nothing), only ranks whose
// signature equals this rank's are sent to.
func cmaRepair(x *collComm, s *cmaAlg, a *coll.Args, flags, sigs []byte) error {
	n, me := x.Size(), x.Rank()
	var reqs []coll.Request
	var want []int
	mine := func(r int) bool {
		return sigs == nil || string(sigs[r*sigSize:(r+1)*sigSize]) == string(sigs[me*sigSize:(me+1)*sigSize])
	}
	for r := 0; r < n; r++ {
		if r == me || flags[r] == 0 || !mine(r) {
			continue
		}
		if part := s.to(n, me, r, a); len(part) > 0 {
			var q coll.Request
			var err error
			if s.push { // the root receives what r failed to write
				q, err = x.Irecv(part, r, cmaRepairTag)
				want = append(want, len(part))
			} else {
				q, err = x.Isend(part, r, cmaRepairTag)
				want = append(want, -1)
			}
			if err != nil {
				return err
			}
			reqs = append(reqs, q)
		}
	}
	if flags[me] != 0 {
		for r := 0; r < n; r++ {
			if dst, _ := s.from(n, me, r, a); r != me && len(dst) > 0 {
				q, err := x.Irecv(dst, r, cmaRepairTag)
				if err != nil {
					return err
				}
				reqs, want = append(reqs, q), append(want, len(dst))
			}
		}
	}
	var first error
	for i, q := range reqs {
		got, err := q.Wait()
		if err == nil && want[i] >= 0 && got != want[i] {
			err = fmt.Errorf("%w: %d bytes arrived for a part of %d", coll.ErrMismatch, got, want[i])
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// cmaRecvRepair receives dst from rank r as a message: a reader of a rooted
// call whose read failed.
func cmaRecvRepair(x *collComm, dst []byte, r int) error {
	got, err := x.Recv(dst, r, cmaRepairTag)
	if err == nil && got != len(dst) {
		err = fmt.Errorf("%w: %d bytes arrived for a part of %d", coll.ErrMismatch, got, len(dst))
	}
	return err
}

var cmaAlgs = []*cmaAlg{
	{op: coll.OpBcast, rooted: true,
		summary: "the root publishes its buffer and waits; every rank copies it straight out of the root's memory (process_vm_readv) and goes on",
		cost:    "1 shared barrier + 1 copy of m per rank, all ranks at once",
		sig:     func(_ int, a *coll.Args) int { return len(a.Recv) },
		source:  atRoot(func(a *coll.Args) []byte { return a.Recv }),
		from:    withRoot(func(_ int, a *coll.Args) ([]byte, int) { return a.Recv, 0 }),
		to:      func(_, _, _ int, a *coll.Args) []byte { return a.Recv }},
	{op: coll.OpScatter, rooted: true,
		summary: "the root publishes its send buffer and waits; every rank copies its block straight out of the root's memory and goes on",
		cost:    "1 shared barrier + 1 copy of m per rank, all ranks at once",
		sig:     func(n int, a *coll.Args) int { return scatterBlock(n, a) },
		source:  atRoot(func(a *coll.Args) []byte { return a.Send }),
		from:    withRoot(func(me int, a *coll.Args) ([]byte, int) { return a.Recv, me * len(a.Recv) }),
		to: func(n, _, r int, a *coll.Args) []byte {
			m := scatterBlock(n, a)
			return a.Send[r*m : (r+1)*m]
		},
		local: func(n, me int, a *coll.Args) {
			if a.Recv != nil { // nil: in place at the root
				m := len(a.Recv)
				copy(a.Recv, a.Send[me*m:(me+1)*m])
			}
		}},
	{op: coll.OpGather, rooted: true, push: true,
		summary: "the root publishes its receive buffer and waits; every rank writes its block straight into the root's memory (process_vm_writev) and goes on",
		cost:    "1 shared barrier + 1 copy of m per rank, all ranks at once",
		sig:     func(n int, a *coll.Args) int { return gatherBlock(n, a) },
		source:  atRoot(func(a *coll.Args) []byte { return a.Recv }),
		from:    withRoot(func(me int, a *coll.Args) ([]byte, int) { return a.Send, me * len(a.Send) }),
		to: func(n, _, r int, a *coll.Args) []byte {
			m := gatherBlock(n, a)
			return a.Recv[r*m : (r+1)*m]
		},
		local: func(_, me int, a *coll.Args) {
			if a.Send != nil { // nil: in place
				copy(a.Recv[me*len(a.Send):], a.Send)
			}
		}},
	{op: coll.OpAllgather,
		summary: "every rank publishes its block; each copies every other block straight out of its owner's memory",
		cost:    "2 shared barriers + (p−1)·m copied once per rank, all ranks at once",
		sig:     func(_ int, a *coll.Args) int { return len(a.Recv) },
		source:  ownBlock, from: allgatherFrom, to: allgatherTo, local: allgatherLocal},
	{op: coll.OpAlltoall,
		summary: "every rank publishes its send buffer; each copies its block of every other straight out of its owner's memory",
		cost:    "2 shared barriers + (p−1)·m copied once per rank, all ranks at once",
		sig:     func(_ int, a *coll.Args) int { return len(a.Recv) },
		// In place, a rank's blocks are overwritten while its peers may
		// still read them.
		ok:     func(_ int, a *coll.Args) bool { return a.Send != nil },
		source: sendBuf, from: alltoallFrom, to: alltoallTo, local: alltoallLocal},
}

// atRoot is the source of a rooted algorithm: buf at the root, nothing
// elsewhere.
func atRoot(buf func(a *coll.Args) []byte) func(n, me int, a *coll.Args) []byte {
	return func(_, me int, a *coll.Args) []byte {
		if me != a.Root {
			return nil
		}
		return buf(a)
	}
}

// withRoot is the from of a rooted algorithm: part on a rank other than
// the root, for the root only.
func withRoot(part func(me int, a *coll.Args) ([]byte, int)) func(n, me, peer int, a *coll.Args) ([]byte, int) {
	return func(_, me, peer int, a *coll.Args) ([]byte, int) {
		if peer != a.Root || me == a.Root {
			return nil, 0
		}
		return part(me, a)
	}
}

// ownBlock is this rank's block of Allgather: send, or in place its block
// of recv.
func ownBlock(n, me int, a *coll.Args) []byte {
	if a.Send != nil {
		return a.Send
	}
	m := len(a.Recv) / n
	return a.Recv[me*m : (me+1)*m]
}

// The blocks of the single-copy Allgather and Alltoall ("cma" and
// "cma_pairwise"): what rank me reads from peer (from: where in recv, and
// the offset in the peer's source), what rank r would read from this rank
// (to: what to send r when its read fails), and this rank's own block
// (local).

func sendBuf(_, _ int, a *coll.Args) []byte { return a.Send }

func allgatherFrom(n, _, peer int, a *coll.Args) ([]byte, int) {
	m := len(a.Recv) / n
	return a.Recv[peer*m : (peer+1)*m], 0
}

func allgatherTo(n, me, _ int, a *coll.Args) []byte { return ownBlock(n, me, a) }

func allgatherLocal(_, me int, a *coll.Args) {
	if a.Send != nil {
		copy(a.Recv[me*len(a.Send):], a.Send)
	}
}

func alltoallFrom(n, me, peer int, a *coll.Args) ([]byte, int) {
	m := len(a.Recv) / n
	return a.Recv[peer*m : (peer+1)*m], me * m
}

func alltoallTo(n, _, r int, a *coll.Args) []byte {
	m := len(a.Send) / n
	return a.Send[r*m : (r+1)*m]
}

func alltoallLocal(n, me int, a *coll.Args) {
	m := len(a.Recv) / n
	copy(a.Recv[me*m:(me+1)*m], a.Send[me*m:])
}
