//go:build !mpi && !mpich

package gompi

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/gompi/gompi/coll"
)

// lastCall is what the blocking adapter recorded of the last call: its
// algorithm and its tag base (tagsNone for a shared-memory step).
func lastCall(c *Comm) (string, int) { return c.bx.algo, c.bx.base }

// TestFastPathFollowsSelectionChanges: the kept choice of a routine (collfast.go)
// is dropped when the communicator's choice (SetAlgorithm), the call's
// options, the table or the arguments change, and a point-to-point call
// takes a tag base while a shared-memory step takes none.
func TestFastPathFollowsSelectionChanges(t *testing.T) {
	type step struct {
		name string
		do   func(c *Comm, buf []byte) error
		want string
	}
	bcast := func(opts ...CollOption) func(c *Comm, buf []byte) error {
		return func(c *Comm, buf []byte) error { return c.Bcast(buf, 0, opts...) }
	}
	set := func(name string) func(c *Comm, buf []byte) error {
		return func(c *Comm, buf []byte) error {
			if err := c.SetAlgorithm("bcast", name); err != nil {
				return err
			}
			return c.Bcast(buf, 0)
		}
	}
	orig := coll.Table(coll.OpBcast)
	steps := []step{
		{"default", bcast(), "shm"},
		{"again", bcast(), "shm"},
		{"SetAlgorithm binomial", set("binomial"), "binomial"},
		{"binomial kept", bcast(), "binomial"},
		{"SetAlgorithm none", set(""), "shm"},
		{"WithAlgorithm", bcast(WithAlgorithm("binomial")), "binomial"},
		{"after WithAlgorithm", bcast(), "shm"},
		{"table", func(c *Comm, buf []byte) error {
			// In-process ranks share the process's table: all meet first,
			// so that no rank is still in the last step when rank 0
			// changes it (a Bcast root can leave before its peer has
			// chosen), then meet again so that nobody calls under the old one.
			if err := c.Barrier(WithAlgorithm("dissemination")); err != nil {
				return err
			}
			if c.Rank() == 0 {
				if err := coll.SetTable(coll.OpBcast, []coll.Rule{{Use: []string{"binomial"}}}); err != nil {
					return err
				}
			}
			if err := c.Barrier(WithAlgorithm("dissemination")); err != nil {
				return err
			}
			return c.Bcast(buf, 0)
		}, "binomial"},
		{"table back", func(c *Comm, buf []byte) error {
			if err := c.Barrier(WithAlgorithm("dissemination")); err != nil {
				return err
			}
			if c.Rank() == 0 {
				if err := coll.SetTable(coll.OpBcast, orig); err != nil {
					return err
				}
			}
			if err := c.Barrier(WithAlgorithm("dissemination")); err != nil {
				return err
			}
			return c.Bcast(buf, 0)
		}, "shm"},
	}
	defer coll.SetTable(coll.OpBcast, orig)
	var mu sync.Mutex
	got := map[int][]string{}
	err := Run(2, func(c *Comm) error {
		for i, s := range steps {
			buf := make([]byte, 8)
			if c.Rank() == 0 {
				for j := range buf {
					buf[j] = byte(i*16 + j)
				}
			}
			if err := s.do(c, buf); err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			for j := range buf {
				if buf[j] != byte(i*16+j) {
					return fmt.Errorf("%s: rank %d got %v", s.name, c.Rank(), buf)
				}
			}
			algo, base := lastCall(c)
			if (algo == "shm") != (base == tagsNone) || base == tagsUndecided {
				return fmt.Errorf("%s: algorithm %q with tag base %d", s.name, algo, base)
			}
			mu.Lock()
			got[c.Rank()] = append(got[c.Rank()], algo)
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for r := range 2 {
		for i, s := range steps {
			if got[r][i] != s.want {
				t.Errorf("rank %d, %s: ran %q, want %q", r, s.name, got[r][i], s.want)
			}
		}
	}
}

// TestFastPathArgumentsChange: a routine's kept choice is made again when
// the arguments change what selection goes by (size, in place, root).
func TestFastPathArgumentsChange(t *testing.T) {
	err := Run(2, func(c *Comm) error {
		n, me := c.Size(), c.Rank()
		for _, m := range []int{8, 4096, 8, 2048, 8} {
			send, recv := make([]byte, n*m), make([]byte, n*m)
			for i := range send {
				send[i] = byte(me*7 + i)
			}
			if err := c.Alltoall(send, recv); err != nil {
				return err
			}
			for p := 0; p < n; p++ {
				for j := 0; j < m; j++ {
					if want := byte(p*7 + me*m + j); recv[p*m+j] != want {
						return fmt.Errorf("alltoall %d B: rank %d block %d byte %d: %d, want %d", m, me, p, j, recv[p*m+j], want)
					}
				}
			}
			// 8 B run as a shared-memory step, the larger blocks not
			// (docs/COLLECTIVES.md): the kept choice of one size is not
			// used for the other.
			if algo, _ := lastCall(c); (algo == "shm") != (m == 8) {
				return fmt.Errorf("alltoall %d B ran %q", m, algo)
			}
		}
		// The root moves: each call's data come from its own root.
		for _, root := range []int{0, 1, 0} {
			buf := make([]byte, 8)
			if me == root {
				copy(buf, "fastpath")
			}
			if err := c.Bcast(buf, root); err != nil {
				return err
			}
			if string(buf) != "fastpath" {
				return fmt.Errorf("bcast root %d: rank %d got %q", root, me, buf)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFastPathMixedTagsMatch: blocking calls that run as shared-memory
// steps (no tags), point-to-point ones (a tag base each), nonblocking ones
// (a tag base each, taken at the start) and argument errors, interleaved on
// 1..9 ranks, all match: every rank takes the same tag bases in the same
// order.
func TestFastPathMixedTagsMatch(t *testing.T) {
	for n := 1; n <= 9; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var mu sync.Mutex
			bases := map[int][]int{}
			err := Run(n, func(c *Comm) error {
				me := c.Rank()
				var mine []int
				record := func() {
					if _, b := lastCall(c); b >= 0 {
						mine = append(mine, b)
					}
				}
				for it := 0; it < 20; it++ {
					root := it % n
					buf := make([]byte, 8+it)
					if me == root {
						for i := range buf {
							buf[i] = byte(it + i)
						}
					}
					var opts []CollOption
					if it%3 == 1 {
						opts = append(opts, WithAlgorithm("binomial"))
					}
					if err := c.Bcast(buf, root, opts...); err != nil {
						return err
					}
					record()
					for i := range buf {
						if buf[i] != byte(it+i) {
							return fmt.Errorf("iteration %d bcast: rank %d got %v", it, me, buf)
						}
					}
					in, out := []float64{float64(me + it)}, []float64{0}
					if it%2 == 0 {
						err := Allreduce(c, in, out, Sum[float64](), WithAlgorithm("recursive_doubling"))
						if err != nil {
							return err
						}
					} else if err := Allreduce(c, in, out, Sum[float64]()); err != nil {
						return err
					}
					record()
					if want := float64(n*(n-1)/2 + n*it); out[0] != want {
						return fmt.Errorf("iteration %d allreduce: rank %d got %v, want %v", it, me, out[0], want)
					}
					if it%4 == 3 {
						// A nonblocking call between them, and a bad root
						// on every rank (an error, no step, no tag).
						ib := make([]byte, 16)
						if me == 0 {
							copy(ib, "nonblocking call")
						}
						req, err := c.Ibcast(ib, 0)
						if err != nil {
							return err
						}
						if err := c.Bcast(buf, n); err == nil {
							return fmt.Errorf("bcast with root %d of %d ranks: no error", n, n)
						}
						if _, err := req.Wait(); err != nil {
							return err
						}
						if !bytes.Equal(ib, []byte("nonblocking call")) {
							return fmt.Errorf("ibcast: rank %d got %q", me, ib)
						}
					}
					// Scan and Exscan: the chain (no tags) on even
					// iterations, recursive doubling (a tag base) on odd.
					sin, sout := []float64{float64(me + it)}, []float64{-1}
					if err := Scan(c, sin, sout, Sum[float64](), withAlgorithmIf(it%2 == 1, "recursive_doubling")...); err != nil {
						return err
					}
					record()
					if want := float64(me*(me+1)/2 + (me+1)*it); sout[0] != want {
						return fmt.Errorf("iteration %d scan: rank %d got %v, want %v", it, me, sout[0], want)
					}
					if err := Exscan(c, sin, sout, Sum[float64](), withAlgorithmIf(it%2 == 1, "recursive_doubling")...); err != nil {
						return err
					}
					record()
					if want := float64(me*(me-1)/2 + me*it); me > 0 && sout[0] != want {
						return fmt.Errorf("iteration %d exscan: rank %d got %v, want %v", it, me, sout[0], want)
					}
					g := make([]byte, n*4)
					if err := c.Gather([]byte{byte(me), 1, 2, byte(it)}, g, root, withAlgorithmIf(it%2 == 1, "linear")...); err != nil {
						return err
					}
					record()
					if me == root {
						for r := 0; r < n; r++ {
							if !bytes.Equal(g[r*4:r*4+4], []byte{byte(r), 1, 2, byte(it)}) {
								return fmt.Errorf("iteration %d gather: block %d is %v", it, r, g[r*4:r*4+4])
							}
						}
					}
				}
				if err := c.Barrier(); err != nil {
					return err
				}
				mu.Lock()
				bases[me] = mine
				mu.Unlock()
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			sameTagBases(t, n, bases)
			if n > 1 && len(bases[0]) == 0 {
				t.Errorf("no call ran point-to-point")
			}
		})
	}
}

// sameTagBases fails t unless every rank of n took the same tag bases, in
// the same order, as rank 0 (bases: rank -> the bases its calls took).
func sameTagBases(t *testing.T, n int, bases map[int][]int) {
	t.Helper()
	for r := 1; r < n; r++ {
		if fmt.Sprint(bases[r]) != fmt.Sprint(bases[0]) {
			t.Errorf("rank %d took tag bases %v, rank 0 %v", r, bases[r], bases[0])
		}
	}
}

// withAlgorithmIf is WithAlgorithm(name) when cond holds, no option else.
func withAlgorithmIf(cond bool, name string) []CollOption {
	if cond {
		return []CollOption{WithAlgorithm(name)}
	}
	return nil
}

// TestTaglessRoutinesAreShmAlgs: the routines taglessAlgorithm lets run
// without a tag base are exactly those whose operation has a plain shm
// step (shmAlgs), and each of them runs as one at two ranks and 8 bytes
// without taking a base.
func TestTaglessRoutinesAreShmAlgs(t *testing.T) {
	ops := map[coll.Operation]Routine{
		coll.OpBarrier: RoutineBarrier, coll.OpBcast: RoutineBcast, coll.OpReduce: RoutineReduce,
		coll.OpAllreduce: RoutineAllreduce, coll.OpGather: RoutineGather, coll.OpScatter: RoutineScatter,
		coll.OpAllgather: RoutineAllgather, coll.OpAlltoall: RoutineAlltoall,
		coll.OpReduceScatterBlock: RoutineReduceScatterBlock, coll.OpScan: RoutineScan, coll.OpExscan: RoutineExscan,
	}
	plain := map[Routine]bool{}
	for _, s := range shmAlgs {
		r, ok := ops[s.op]
		if !ok {
			t.Fatalf("shm algorithm of %s: no routine in this test's list", s.op)
		}
		plain[r] = true
	}
	for r := RoutineBarrier; r <= RoutineExscan; r++ {
		if taglessAlgorithm(r, "shm") != plain[r] {
			t.Errorf("%s: tagless %v, has a plain shm step %v", r, taglessAlgorithm(r, "shm"), plain[r])
		}
		if taglessAlgorithm(r, "binomial") {
			t.Errorf("%s: binomial counted as tagless", r)
		}
		// The chain (collfast_chain.go) is Scan's and Exscan's only.
		if want := r == RoutineScan || r == RoutineExscan; taglessAlgorithm(r, "chain") != want {
			t.Errorf("%s: chain tagless %v, want %v", r, taglessAlgorithm(r, "chain"), want)
		}
	}
	err := Run(2, func(c *Comm) error {
		b8, r8 := make([]byte, 8), make([]byte, 16)
		sum := Sum[float64]()
		calls := map[string]func() error{
			"barrier":   func() error { return c.Barrier() },
			"bcast":     func() error { return c.Bcast(b8, 0) },
			"reduce":    func() error { return c.Reduce(b8, r8[:8], sum, 0) },
			"allreduce": func() error { return c.Allreduce(b8, r8[:8], sum) },
			"gather":    func() error { return c.Gather(b8, r8, 0) },
			"scatter":   func() error { return c.Scatter(r8, b8, 0) },
			"allgather": func() error { return c.Allgather(b8, r8) },
			"alltoall":  func() error { return c.Alltoall(r8, make([]byte, 16)) },
			"rsb":       func() error { return c.ReduceScatterBlock(r8, b8, sum) },
			"gatherv":   func() error { return c.Gatherv(b8, r8, []int{8, 8}, []int{0, 8}, 0, WithAlgorithm("shm")) },
		}
		for _, name := range []string{"barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "alltoall", "rsb", "gatherv"} {
			if err := calls[name](); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			algo, base := lastCall(c)
			if algo != "shm" {
				return fmt.Errorf("%s ran %q at 2 ranks, 8 B", name, algo)
			}
			if (base == tagsNone) != (name != "gatherv") {
				return fmt.Errorf("%s (shm) took tag base %d", name, base)
			}
		}
		// Scan and Exscan run shm at 2 ranks and 8 B (on the lines), the
		// chain at 512 B, chosen (the first call) or kept (the second),
		// without a tag base.
		v, w := make([]byte, 512), make([]byte, 512)
		for it := range 2 {
			for _, name := range []string{"scan", "exscan"} {
				for _, m := range []int{8, 512} {
					var err error
					if name == "scan" {
						err = c.Scan(v[:m], w[:m], sum)
					} else {
						err = c.Exscan(v[:m], w[:m], sum)
					}
					if err != nil {
						return fmt.Errorf("%s: %w", name, err)
					}
					want := "chain"
					if m == 8 {
						want = "shm"
					}
					if algo, base := lastCall(c); algo != want || base != tagsNone {
						return fmt.Errorf("%s call %d ran %q with tag base %d at 2 ranks, %d B", name, it, algo, base, m)
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

// TestKeptChainErrors: a kept chain (Exscan at 2 ranks, collfast_chain.go)
// run directly fails as the same call through coll.Call does: rank 1,
// which waits for rank 0's vector, sees rank 0's other size as
// ErrMismatch, with the same words on both paths.
func TestKeptChainErrors(t *testing.T) {
	var errs [2]string
	err := Run(2, func(c *Comm) error {
		me := c.Rank()
		sum := Sum[float64]()
		for i, opts := range [][]CollOption{nil, {WithAlgorithm("chain")}} {
			if err := c.Exscan(make([]byte, 512), make([]byte, 512), sum, opts...); err != nil { // kept
				return err
			}
			if algo, _ := lastCall(c); algo != "chain" {
				return fmt.Errorf("path %d ran %q", i, algo)
			}
			m := 512 // the chain's at 2 ranks (beyond the lines)
			if me == 0 {
				m = 1024 // rank 1 keeps its arguments, and so its kept choice
			}
			err := c.Exscan(make([]byte, m), make([]byte, m), sum, opts...)
			if me == 1 {
				if !errors.Is(err, ErrMismatch) {
					return fmt.Errorf("path %d: %v, want ErrMismatch", i, err)
				}
				errs[i] = err.Error()
			}
			if err := c.Barrier(WithAlgorithm("dissemination")); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if errs[0] != errs[1] {
		t.Errorf("rank 1: kept path %q, selection path %q", errs[0], errs[1])
	}
}

// TestKeptCallStillChecked: a kept choice skips coll's argument checks only
// for a call whose checked inputs are the kept call's (collfast.go); a call
// that changes any of them, after a kept one, is checked and refused as
// before: the operator's element size, the root, the counts, a buffer's
// length. The kept call works again afterwards.
func TestKeptCallStillChecked(t *testing.T) {
	err := Run(2, func(c *Comm) error {
		me := c.Rank()
		b12, r12 := make([]byte, 12), make([]byte, 12)
		good := func() error { return c.Allreduce(b12, r12, Sum[int32]()) }
		bad := map[string]func() error{
			"element size": func() error { return c.Allreduce(b12, r12, Sum[float64]()) }, // 12 B is not whole float64s
			"root":         func() error { return c.Reduce(b12, r12, Sum[int32](), 2) },
			"length":       func() error { return c.Allreduce(b12, r12[:8], Sum[int32]()) },
		}
		for _, name := range []string{"element size", "root", "length"} {
			for range 2 { // choose, then keep
				if err := good(); err != nil {
					return fmt.Errorf("before %s: %w", name, err)
				}
				if err := c.Reduce(b12, r12, Sum[int32](), 0); err != nil {
					return fmt.Errorf("before %s: %w", name, err)
				}
			}
			if err := bad[name](); !errors.Is(err, ErrArg) {
				return fmt.Errorf("%s changed after a kept call: %v, want ErrArg", name, err)
			}
		}
		// Per-rank counts changed in the same arrays: checked again.
		counts, displs := []int{4, 4}, []int{0, 4}
		recv := make([]byte, 8)
		for range 2 {
			if err := c.Allgatherv(b12[:4], recv, counts, displs); err != nil {
				return err
			}
		}
		displs[1] = 6 // rank 1's block no longer fits in 8 bytes
		if err := c.Allgatherv(b12[:4], recv, counts, displs); !errors.Is(err, ErrArg) {
			return fmt.Errorf("rank %d: displacement changed after a kept call: %v, want ErrArg", me, err)
		}
		displs[1] = 4
		if err := c.Allgatherv(b12[:4], recv, counts, displs); err != nil {
			return err
		}
		return good()
	})
	if err != nil {
		t.Fatal(err)
	}
}
