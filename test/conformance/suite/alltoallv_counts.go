package suite

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/gompi/gompi/gompi"
)

// Alltoallv and Alltoallw with counts that differ per pair, zeros among
// them (a rank that sends nothing, one that receives nothing), small
// blocks and, in some calls, one block larger than the pure-Go runtime's
// slots beside small ones; then (pure-Go runtime only: MPI's own
// collectives do not check that ranks agree) a block whose count the
// sender and the receiver disagree on, in both directions, which the
// receiver must report as ErrMismatch without anyone hanging.
var alltoallvCountCases = []Case{
	{"AlltoallvCountsPerPeer", []int{3, 4, 8}, alltoallvCountsPerPeer},
}

// a2avCount is the bytes rank src sends rank dst in call k of p ranks.
func a2avCount(k, p, src, dst int) int {
	switch {
	case k%4 == 3 && src == 0 && dst == p-1:
		return 40000 // larger than a slot; the others stay small
	case k%2 == 1 && src == 1, k%2 == 0 && dst == 2:
		return 0
	}
	return (src*5 + dst*3 + k) % 9 * 57
}

func a2avByte(k, src, dst, i int) byte { return byte(src*31 + dst*17 + i + k*7) }

func alltoallvCountsPerPeer(c *gompi.Comm) error {
	p, me := c.Size(), c.Rank()
	type form struct {
		name string
		opts []gompi.CollOption
	}
	forms := []form{{"default", nil}}
	// cma_pairwise lives in the pure-Go runtime's segment: only where
	// every peer is reached through shared memory (not over MPI, not with
	// GOMPI_TRANSPORT=tcp or across hosts).
	shared := gompi.Backend() == "go"
	for r := 0; r < p && shared; r++ {
		if t := c.Transport(r); t != "self" && t != "shm" {
			shared = false
		}
	}
	if shared {
		forms = append(forms, form{"cma_pairwise", []gompi.CollOption{gompi.WithAlgorithm("cma_pairwise")}})
	}
	place := func(counts []int) ([]int, int) {
		displs, total := make([]int, len(counts)), 0
		for i := len(counts) - 1; i >= 0; i-- { // reversed, with a gap: displacements matter
			total += 3
			displs[i] = total
			total += counts[i]
		}
		return displs, total
	}
	for _, f := range forms {
		for k := range 8 {
			sc, rc := make([]int, p), make([]int, p)
			for j := range p {
				sc[j], rc[j] = a2avCount(k, p, me, j), a2avCount(k, p, j, me)
			}
			sd, st := place(sc)
			rd, rt := place(rc)
			send := make([]byte, st)
			for j := range p {
				for i := range sc[j] {
					send[sd[j]+i] = a2avByte(k, me, j, i)
				}
			}
			for _, w := range []bool{false, true} {
				recv := make([]byte, rt)
				call, name := c.Alltoallv, "Alltoallv"
				if w {
					call, name = c.Alltoallw, "Alltoallw"
				}
				if err := call(send, sc, sd, recv, rc, rd, f.opts...); err != nil {
					return fmt.Errorf("%s (%s), call %d: %w", name, f.name, k, err)
				}
				for i := range p {
					exp := make([]byte, rc[i])
					for x := range exp {
						exp[x] = a2avByte(k, i, me, x)
					}
					if !bytes.Equal(recv[rd[i]:][:rc[i]], exp) {
						return fmt.Errorf("%s (%s), call %d: rank %d's block from rank %d is wrong", name, f.name, k, me, i)
					}
				}
			}
		}
		if gompi.Backend() != "go" {
			continue
		}
		// Rank 2 sends rank 1 another count than rank 1 expects: both
		// small, or one of them larger than a slot.
		for _, d := range [][2]int{{16, 8}, {40000, 8}, {8, 40000}} {
			sc, rc := make([]int, p), make([]int, p)
			for j := range p {
				sc[j], rc[j] = 8, 8
			}
			if me == 2 {
				sc[1] = d[0]
			}
			if me == 1 {
				rc[2] = d[1]
			}
			sd, st := place(sc)
			rd, rt := place(rc)
			err := c.Alltoallv(make([]byte, st), sc, sd, make([]byte, rt), rc, rd, f.opts...)
			if me == 1 && !errors.Is(err, gompi.ErrMismatch) {
				return fmt.Errorf("Alltoallv (%s), rank 2 sends %d bytes, rank 1 expects %d: rank 1 got %v, want ErrMismatch", f.name, d[0], d[1], err)
			}
			if err != nil && !errors.Is(err, gompi.ErrMismatch) {
				return fmt.Errorf("Alltoallv (%s), a count mismatch: rank %d got %v", f.name, me, err)
			}
			// The next call works.
			ok := make([]int, p)
			for j := range ok {
				ok[j] = 8
			}
			od, ot := place(ok)
			if err := c.Alltoallv(make([]byte, ot), ok, od, make([]byte, ot), ok, od, f.opts...); err != nil {
				return fmt.Errorf("Alltoallv (%s) after a count mismatch: %w", f.name, err)
			}
		}
	}
	return nil
}
