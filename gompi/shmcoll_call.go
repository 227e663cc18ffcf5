package gompi

import (
	"errors"

	"github.com/gompi/gompi/coll"
)

// Less code per call (docs/PERFORMANCE.md, "Two ranks: less code per
// call"). A two-rank call of 8 B is a few hundred nanoseconds, paid by both
// ranks in series with the hand-off; what the call path worked out again on
// every call from its constant inputs (the operation's code in the
// signature, an FNV hash of its name; whether it may run on the arrival
// lines, two loops over the algorithm lists; whether it is one of the
// per-count forms of shmcoll_vline.go) is worked out once here, at start-up,
// for every shmAlg the runtime registers.

// shmPre is what runShm needs to know of an algorithm beyond its fields.
type shmPre struct {
	set   bool   // the rest is filled in
	code  uint32 // opCode(op)
	lines bool   // plainShm or countsKnown: the data may go on the lines
	pairV bool   // runPairV takes the op's small two-rank calls
	lead  int8   // leadNext's case: leadFrom, leadTo or leadNone
	line  int8   // lineRanges' layout (lineKindOf)
}

// leadNext's cases (rootSends, rootReceives, neither).
const (
	leadNone int8 = iota
	leadFrom
	leadTo
)

func leadOf(op coll.Operation) int8 {
	switch {
	case rootSends(op):
		return leadFrom
	case rootReceives(op):
		return leadTo
	}
	return leadNone
}

// leadNextPre is leadNext for an operation whose case is known.
func leadNextPre(x *collComm, lead int8, root int) {
	switch lead {
	case leadFrom:
		x.c.c.ShmLeadNext(root)
	case leadTo:
		x.c.c.ShmLeadLast(root)
	default:
		x.c.c.ShmLeadNext(-1)
	}
}

// prepared returns s's shmPre, worked out now if start-up did not.
func (s *shmAlg) prepared() shmPre {
	if s.pre.set {
		return s.pre
	}
	return prepare(s)
}

func prepare(s *shmAlg) shmPre {
	// Barrier has no data: nothing of it goes on the lines (lineRanges).
	lines := (plainShm(s) || countsKnown(s)) && s.op != coll.OpBarrier
	return shmPre{set: true, code: opCode(s.op), lines: lines, pairV: pairVOp(s.op), lead: leadOf(s.op), line: lineKindOf(s.op)}
}

// pairVOp reports whether runPairV runs op's small two-rank calls.
func pairVOp(op coll.Operation) bool {
	switch op {
	case coll.OpGatherv, coll.OpScatterv, coll.OpAlltoallv, coll.OpAlltoallw:
		return true
	}
	return false
}

// The codes of the per-count forms' line steps (shmcoll_vline.go).
var (
	codeGatherv  = opCode(coll.OpGatherv)
	codeScatterv = opCode(coll.OpScatterv)
)

func init() {
	for _, s := range shmAlgs {
		s.pre = prepare(s)
	}
	for _, s := range shmAlgsV {
		s.pre = prepare(s)
	}
	for _, s := range redAlgs {
		s.pre = prepare(&s.shmAlg)
	}
}

// shmAlgOf returns the plain shm algorithm (shmAlgs, shmAlgsV) that alg,
// chosen for op, is, or nil: a kept choice of it runs it directly
// (runKept) instead of through coll.RunChosen, which reaches runShm
// through an interface assertion (the AlgorithmObserver), the observer's
// call and the registered closure.
func shmAlgOf(op coll.Operation, alg *coll.Algorithm) *shmAlg {
	if alg == nil || alg.Name != "shm" {
		return nil
	}
	for _, list := range [][]*shmAlg{shmAlgs, shmAlgsV} {
		for _, s := range list {
			if s.op == op {
				return s
			}
		}
	}
	return nil
}

// runKept runs the kept shm algorithm s for a call of op, as
// coll.RunChosen would: the algorithm recorded for the trace
// (RunningAlgorithm; the call's tags are already settled), the same
// errors.
func runKept(x *collComm, op coll.Operation, s *shmAlg, a *coll.Args) error {
	x.algo = "shm"
	err := runShm(x, s, a)
	if err == nil {
		return nil
	}
	return keptErr(x, op, "shm", err)
}

// keptErr is coll.RunChosen's error for a kept algorithm run directly.
func keptErr(x *collComm, op coll.Operation, alg string, err error) error {
	var e *coll.Error
	if !errors.As(err, &e) {
		e = &coll.Error{Rank: x.Rank(), Peer: -1, Err: err}
	}
	if e.Op == "" {
		e.Op, e.Algorithm = op, alg
	}
	return e
}
