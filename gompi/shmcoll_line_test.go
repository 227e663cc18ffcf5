//go:build !mpi && !mpich

package gompi_test

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gompi/gompi/gompi"
)

// The two-rank shm calls whose data go beside the arrival words
// (shmcoll_line.go): every operation of runShm on both sides of the line's
// capacity (120 bytes per rank), back to back so that both parities of the
// lines serve and stale data would show, roots 0 and 1, in place; a reader
// that sleeps on the futex; a peer that leaves; ranks that disagree.

// lineByte is byte i of what rank r contributes in call it.
func lineByte(it, r, i int) byte { return byte(it*7 + r*31 + i*3 + 1) }

func lineBlock(it, r, m int) []byte {
	b := make([]byte, m)
	for i := range b {
		b[i] = lineByte(it, r, i)
	}
	return b
}

// lineVec is the int64 vector of m elements rank r contributes in call it.
func lineVec(it, r, m int) []int64 {
	v := make([]int64, m)
	for i := range v {
		v[i] = int64(it*1000 + r*100 + i)
	}
	return v
}

func lineSum(it, m, lo, hi int) []int64 {
	s := make([]int64, m)
	for r := lo; r < hi; r++ {
		for i, x := range lineVec(it, r, m) {
			s[i] += x
		}
	}
	return s
}

// lineCalls runs one round of every operation at block size m bytes (m/8
// elements for the reductions) in call it and checks the results.
func lineCalls(c *gompi.Comm, it, m int) error {
	shm := gompi.WithAlgorithm("shm")
	me, root := c.Rank(), it%2
	inPlace := it%3 == 0
	fail := func(op string, got, want any) error {
		return fmt.Errorf("call %d, %d B, root %d, in place %v, rank %d: %s gave %v, want %v", it, m, root, inPlace, me, op, got, want)
	}
	// Bcast.
	buf := make([]byte, m)
	if me == root {
		copy(buf, lineBlock(it, root, m))
	}
	if err := c.Bcast(buf, root, shm); err != nil {
		return err
	}
	if !bytes.Equal(buf, lineBlock(it, root, m)) {
		return fail("Bcast", buf, lineBlock(it, root, m))
	}
	// Gather.
	var recv []byte
	send := lineBlock(it, me, m)
	if me == root {
		recv = make([]byte, 2*m)
		if inPlace {
			copy(recv[me*m:], send)
			send = gompi.InPlace[byte]()
		}
	}
	if err := c.Gather(send, recv, root, shm); err != nil {
		return err
	}
	if me == root {
		if want := append(lineBlock(it, 0, m), lineBlock(it, 1, m)...); !bytes.Equal(recv, want) {
			return fail("Gather", recv, want)
		}
	}
	// Scatter: block r of the root's send is lineBlock(it, r, m).
	send, recv = nil, make([]byte, m)
	if me == root {
		send = append(lineBlock(it, 0, m), lineBlock(it, 1, m)...)
		if inPlace {
			recv = gompi.InPlace[byte]()
		}
	}
	if err := c.Scatter(send, recv, root, shm); err != nil {
		return err
	}
	if !(me == root && inPlace) && !bytes.Equal(recv, lineBlock(it, me, m)) {
		return fail("Scatter", recv, lineBlock(it, me, m))
	}
	// Allgather.
	recv = make([]byte, 2*m)
	send = lineBlock(it, me, m)
	if inPlace {
		copy(recv[me*m:], send)
		send = gompi.InPlace[byte]()
	}
	if err := c.Allgather(send, recv, shm); err != nil {
		return err
	}
	if want := append(lineBlock(it, 0, m), lineBlock(it, 1, m)...); !bytes.Equal(recv, want) {
		return fail("Allgather", recv, want)
	}
	// Alltoall: rank r's block for rank d is lineBlock(it, 2r+d, m).
	send = append(lineBlock(it, 2*me, m), lineBlock(it, 2*me+1, m)...)
	recv = make([]byte, 2*m)
	if inPlace {
		copy(recv, send)
		send = gompi.InPlace[byte]()
	}
	if err := c.Alltoall(send, recv, shm); err != nil {
		return err
	}
	if want := append(lineBlock(it, me, m), lineBlock(it, 2+me, m)...); !bytes.Equal(recv, want) {
		return fail("Alltoall", recv, want)
	}
	// The reductions, on m/8 int64 (at least one).
	k := max(m/8, 1)
	sum := gompi.Sum[int64]()
	out := make([]int64, k)
	if err := gompi.Allreduce(c, lineVec(it, me, k), out, sum, shm); err != nil {
		return err
	}
	if !slices.Equal(out, lineSum(it, k, 0, 2)) {
		return fail("Allreduce", out, lineSum(it, k, 0, 2))
	}
	in := lineVec(it, me, k)
	if inPlace && me == root {
		out, in = in, gompi.InPlace[int64]()
	} else {
		out = make([]int64, k)
	}
	if err := gompi.Reduce(c, in, out, sum, root, shm); err != nil {
		return err
	}
	if me == root && !slices.Equal(out, lineSum(it, k, 0, 2)) {
		return fail("Reduce", out, lineSum(it, k, 0, 2))
	}
	out = make([]int64, k)
	if err := gompi.Scan(c, lineVec(it, me, k), out, sum, shm); err != nil {
		return err
	}
	if !slices.Equal(out, lineSum(it, k, 0, me+1)) {
		return fail("Scan", out, lineSum(it, k, 0, me+1))
	}
	out = make([]int64, k)
	if err := gompi.Exscan(c, lineVec(it, me, k), out, sum, shm); err != nil {
		return err
	}
	if me == 1 && !slices.Equal(out, lineSum(it, k, 0, 1)) {
		return fail("Exscan", out, lineSum(it, k, 0, 1))
	}
	out = make([]int64, k)
	if err := gompi.ReduceScatterBlock(c, lineVec(it, me, 2*k), out, sum, shm); err != nil {
		return err
	}
	if want := lineSum(it, 2*k, 0, 2)[me*k : (me+1)*k]; !slices.Equal(out, want) {
		return fail("Reduce_scatter_block", out, want)
	}
	return nil
}

func TestShmLineTwoRanks(t *testing.T) {
	sizes := []int{1, 8, 48, 56, 57, 64, 120, 121, 256, 376, 377}
	run(t, 2, func(c *gompi.Comm) error {
		for it := range 40 {
			for _, m := range sizes {
				if err := lineCalls(c, it, m); err != nil {
					return err
				}
			}
			if it%5 == 0 {
				if err := c.Barrier(gompi.WithAlgorithm("shm")); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// TestShmLineSleepingReader: the rank that waits for data on the line has
// slept on the futex (its peer came 30 ms late, past the spin and yield
// windows), and the arrival that carries the data still wakes it.
func TestShmLineSleepingReader(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	run(t, 2, func(c *gompi.Comm) error {
		shm := gompi.WithAlgorithm("shm")
		me := c.Rank()
		for it := range 4 {
			late := it % 2 // the rank that comes late: the writer (root) of the rooted calls
			if me == late {
				time.Sleep(30 * time.Millisecond)
			}
			buf := make([]byte, 8)
			if me == late {
				copy(buf, lineBlock(it, me, 8))
			}
			if err := c.Bcast(buf, late, shm); err != nil {
				return err
			}
			if !bytes.Equal(buf, lineBlock(it, late, 8)) {
				return fmt.Errorf("call %d, rank %d: Bcast gave %v", it, me, buf)
			}
			// Reduce rooted at the punctual rank: it sleeps on the late
			// contributor's line.
			if me == late {
				time.Sleep(30 * time.Millisecond)
			}
			out := make([]int64, 2)
			if err := gompi.Reduce(c, lineVec(it, me, 2), out, gompi.Sum[int64](), 1-late, shm); err != nil {
				return err
			}
			if me == 1-late && !slices.Equal(out, lineSum(it, 2, 0, 2)) {
				return fmt.Errorf("call %d, rank %d: Reduce gave %v", it, me, out)
			}
			if me == late {
				time.Sleep(30 * time.Millisecond)
			}
			all := make([]int64, 3)
			if err := gompi.Allreduce(c, lineVec(it, me, 3), all, gompi.Sum[int64](), shm); err != nil {
				return err
			}
			if !slices.Equal(all, lineSum(it, 3, 0, 2)) {
				return fmt.Errorf("call %d, rank %d: Allreduce gave %v", it, me, all)
			}
		}
		return nil
	})
}

// TestShmLinePeerLost: a rank that leaves instead of writing its line makes
// its peer fail with ErrPeerLost, not hang, whether the peer waits for a
// root's post (Bcast), for a contributor (Reduce's root) or for the whole
// step (Allreduce).
func TestShmLinePeerLost(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, op := range []string{"bcast", "reduce", "allreduce"} {
		t.Run(op, func(t *testing.T) {
			run(t, 2, func(c *gompi.Comm) error {
				shm := gompi.WithAlgorithm("shm")
				// A few calls on the lines first, so that both parities hold data.
				for it := range 3 {
					if err := lineCalls(c, it, 8); err != nil {
						return err
					}
				}
				if c.Rank() == 1 {
					return nil // gone
				}
				var err error
				switch op {
				case "bcast":
					err = c.Bcast(make([]byte, 8), 1, shm)
				case "reduce":
					err = gompi.Reduce(c, make([]int64, 1), make([]int64, 1), gompi.Sum[int64](), 0, shm)
				case "allreduce":
					err = gompi.Allreduce(c, make([]int64, 1), make([]int64, 1), gompi.Sum[int64](), shm)
				}
				if !errors.Is(err, gompi.ErrPeerLost) {
					return fmt.Errorf("%s with rank 1 gone: want ErrPeerLost, got %v", op, err)
				}
				return nil
			})
		})
	}
}

// TestShmLineMismatch: two ranks that disagree on a call that goes on the
// lines on one side at least get ErrMismatch where the signatures are
// checked (a Bcast's reader, a Gather's root, both sides of an Allreduce),
// read nothing of each other's lines, and the calls after it still work.
func TestShmLineMismatch(t *testing.T) {
	for _, tc := range []struct{ mine, other int }{{8, 16}, {16, 8}, {8, 200}, {200, 8}, {120, 121}} {
		t.Run(fmt.Sprintf("%d-%d", tc.mine, tc.other), func(t *testing.T) {
			run(t, 2, func(c *gompi.Comm) error {
				shm := gompi.WithAlgorithm("shm")
				me := c.Rank()
				m := tc.other
				if me == 1 {
					m = tc.mine
				}
				err := c.Bcast(make([]byte, m), 0, shm)
				if me == 1 && !errors.Is(err, gompi.ErrMismatch) {
					return fmt.Errorf("Bcast %d (rank 1) and %d: rank 1 should see the mismatch, got %v", tc.mine, tc.other, err)
				}
				if err != nil && !errors.Is(err, gompi.ErrMismatch) {
					return err
				}
				err = c.Gather(make([]byte, m), make([]byte, 2*m), 0, shm)
				if me == 0 && !errors.Is(err, gompi.ErrMismatch) {
					return fmt.Errorf("Gather %d (rank 1) and %d: the root should see the mismatch, got %v", tc.mine, tc.other, err)
				}
				if err != nil && !errors.Is(err, gompi.ErrMismatch) {
					return err
				}
				k := max(m/8, 1)
				if tc.mine/8 != tc.other/8 {
					err = gompi.Allreduce(c, make([]int64, k), make([]int64, k), gompi.Sum[int64](), shm)
					if !errors.Is(err, gompi.ErrMismatch) {
						return fmt.Errorf("Allreduce %d (rank 1) and %d: rank %d should see the mismatch, got %v", tc.mine/8, tc.other/8, me, err)
					}
				}
				if err := c.Barrier(shm); err != nil {
					return err
				}
				return lineCalls(c, 1, 8)
			})
		})
	}
}
