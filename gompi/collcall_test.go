//go:build !mpi && !mpich

package gompi

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/coll"
)

// TestShmPrepared: what start-up worked out for each shm algorithm
// (shmcoll_call.go) is what the call path worked out per call before.
func TestShmPrepared(t *testing.T) {
	all := append(append([]*shmAlg{}, shmAlgs...), shmAlgsV...)
	for _, s := range redAlgs {
		all = append(all, &s.shmAlg)
	}
	for _, s := range all {
		lead := leadNone
		if rootSends(s.op) {
			lead = leadFrom
		} else if rootReceives(s.op) {
			lead = leadTo
		}
		lines := (plainShm(s) || countsKnown(s)) && s.op != coll.OpBarrier
		want := shmPre{set: true, code: opCode(s.op), lines: lines, pairV: pairVOp(s.op), lead: lead, line: lineKindOf(s.op)}
		if lines && want.line == lineNone {
			t.Errorf("%s: may go on the lines, but has no layout there", s.op)
		}
		if s.op == coll.OpBarrier {
			if _, _, ok := lineRanges(s.op, &coll.Args{}, 0); ok {
				t.Error("barrier has line ranges: its pre.lines should be true")
			}
		}
		if s.pre != want {
			t.Errorf("%s: prepared %+v, want %+v", s.op, s.pre, want)
		}
		unset := *s
		unset.pre = shmPre{}
		if got := unset.prepared(); got.code != want.code || got.pairV != want.pairV || got.lead != want.lead || got.line != want.line {
			t.Errorf("%s: worked out when called %+v, want %+v", s.op, got, want)
		}
	}
	for _, op := range []coll.Operation{coll.OpGatherv, coll.OpScatterv, coll.OpAlltoallv, coll.OpAlltoallw} {
		if !pairVOp(op) {
			t.Errorf("%s: not a pair-v operation", op)
		}
	}
	if codeGatherv != opCode(coll.OpGatherv) || codeScatterv != opCode(coll.OpScatterv) {
		t.Error("the per-count forms' codes differ from opCode")
	}
	if s := shmAlgOf(coll.OpAllreduce, &coll.Algorithm{Name: "shm"}); s == nil || s.op != coll.OpAllreduce {
		t.Errorf("shmAlgOf(allreduce, shm) = %v", s)
	}
	if s := shmAlgOf(coll.OpAllgatherv, &coll.Algorithm{Name: "shm"}); s == nil || s.op != coll.OpAllgatherv {
		t.Errorf("shmAlgOf(allgatherv, shm) = %v", s)
	}
	if s := shmAlgOf(coll.OpAllreduce, &coll.Algorithm{Name: "cma"}); s != nil {
		t.Errorf("shmAlgOf(allreduce, cma) = %v, want nil", s)
	}
}

// TestFastPathCountsChange: a kept choice of a call with per-rank counts
// (collcounts.go) is made again when the counts change in the same arrays
// and nothing else does: rank 0's block and both buffers keep their
// lengths while rank 1's block grows from 8 B to 200 KiB and back, so that
// on rank 0 only the counts tell a call of "shm" (8 B blocks) from one that
// does not fit the scratch area. The displacements of each call are the
// ones used.
func TestFastPathCountsChange(t *testing.T) {
	const big = 200 << 10
	err := Run(2, func(c *Comm) error {
		n, me := c.Size(), c.Rank()
		counts, displs := make([]int, n), make([]int, n)
		recv := make([]byte, 8+big)
		for round, m1 := range []int{8, 8, big, 8, 8} {
			counts[0], counts[1] = 8, m1
			displs[0], displs[1] = 0, 8
			if round == 1 || round == 4 { // the blocks in reverse order
				displs[0], displs[1] = m1, 0
			}
			send := make([]byte, counts[me])
			for i := range send {
				send[i] = byte(me*31 + i)
			}
			if err := c.Allgatherv(send, recv, counts, displs); err != nil {
				return fmt.Errorf("round %d (%d B): %w", round, m1, err)
			}
			for r := range n {
				for i := range counts[r] {
					if got, want := recv[displs[r]+i], byte(r*31+i); got != want {
						return fmt.Errorf("round %d (%d B): rank %d: block %d byte %d = %d, want %d", round, m1, me, r, i, got, want)
					}
				}
			}
			if algo, _ := lastCall(c); (algo == "shm") != (m1 == 8) {
				return fmt.Errorf("round %d (rank 1's block %d B): rank %d ran %q", round, m1, me, algo)
			}
			// Gatherv, counts read at the root only, in the same arrays.
			var gc, gd []int
			if me == 0 {
				gc, gd = counts, displs
			}
			clear(recv)
			if err := c.Gatherv(send, recv, gc, gd, 0); err != nil {
				return fmt.Errorf("gatherv round %d (%d B): %w", round, m1, err)
			}
			if me == 0 {
				for r := range n {
					if got, want := recv[displs[r]+counts[r]-1], byte(r*31+counts[r]-1); got != want {
						return fmt.Errorf("gatherv round %d (%d B): block %d ends in %d, want %d", round, m1, r, got, want)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestKeptShmErrors: a call that runs its kept shm algorithm directly
// (runKept) fails as one that goes through coll's selection and
// RunChosen: the same class and the same words.
func TestKeptShmErrors(t *testing.T) {
	errs := make([][2]string, 2)
	err := Run(2, func(c *Comm) error {
		me := c.Rank()
		sum := Sum[float64]()
		for i, opts := range [][]CollOption{nil, {WithAlgorithm("shm")}} {
			good := make([]byte, 8)
			if err := c.Allreduce(good, make([]byte, 8), sum, opts...); err != nil { // kept
				return err
			}
			m := 8
			if me == 1 {
				m = 16
			}
			err := c.Allreduce(make([]byte, m), make([]byte, m), sum, opts...)
			if !errors.Is(err, ErrMismatch) {
				return fmt.Errorf("path %d: %v, want ErrMismatch", i, err)
			}
			errs[me][i] = err.Error()
			// Both ranks leave the failed step; the next call works.
			if err := c.Barrier(WithAlgorithm("dissemination")); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Rank 0 ran its kept choice in the first round (rank 1 chose afresh:
	// its size changed), coll.Call in the second.
	if errs[0][0] != errs[0][1] {
		t.Errorf("rank 0: kept path %q, selection path %q", errs[0][0], errs[0][1])
	}
}

// TestPlainElem: the common element types skip checkElem; others go
// through it and are accepted or refused as before.
func TestPlainElem(t *testing.T) {
	type celsius float64
	type pair struct{ A, B int32 }
	if !plainElem[float64]() || !plainElem[int32]() || !plainElem[uint8]() || !plainElem[complex128]() {
		t.Error("a common element type is not plain")
	}
	if plainElem[celsius]() || plainElem[pair]() || plainElem[*int]() || plainElem[string]() {
		t.Error("a named, composite or pointer type taken for a common one")
	}
	if _, err := asBytes("Test", []celsius{1}); err != nil {
		t.Errorf("named float: %v", err)
	}
	if _, err := asBytes("Test", []pair{{1, 2}}); err != nil {
		t.Errorf("struct of numbers: %v", err)
	}
	if _, err := asBytes("Test", []*int{nil}); !errors.Is(err, ErrArg) {
		t.Errorf("pointers: %v, want ErrArg", err)
	}
}
