//go:build !mpi && !mpich

package gompi

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/coll"
)

// The split single copy ("cma_split", shmcoll_split2.go) against results
// computed here: named on two ranks (both roots, in place and not, blocks
// whose halves fall on and off 4 KiB bounds, blocks below splitMin for the
// v-forms, which pass them to "cma"), and through the default selection on
// 1..17 ranks (on two ranks the table picks it from splitMin on; on the
// others it is unavailable and the rest of the table runs).

// splitCheck runs Bcast, Scatter, Gather, Scatterv and Gatherv once with
// block size m in call k (root k%n, in place on odd calls), with opts.
func splitCheck(c *Comm, k, m int, opts ...CollOption) error {
	n, me := c.Size(), c.Rank()
	root := k % n
	if err := rootedCheck(c, k, m, opts...); err != nil {
		return err
	}
	want := func(what string, got []byte, f func(j int) byte) error {
		return cmaWant(c, k, m, root, what, got, f)
	}
	var send, recv []byte
	// Scatterv and Gatherv: rank r's block is m+r*8 bytes, 8 bytes apart.
	counts, displs := make([]int, n), make([]int, n)
	size := 0
	for r := range n {
		counts[r], displs[r] = m+r*8, size+8
		size += 8 + m + r*8
	}
	vfill := func(r, j int) byte { return cmaFill(k+1, r, j) }
	recv = make([]byte, counts[me])
	send = nil
	if me == root {
		send = make([]byte, size)
		for r := range n {
			for j := range counts[r] {
				send[displs[r]+j] = vfill(r, j)
			}
		}
		if k%2 == 1 {
			recv = InPlace[byte]()
		}
	}
	if err := c.Scatterv(send, counts, displs, recv, root, opts...); err != nil {
		return fmt.Errorf("scatterv: %w", err)
	}
	if recv != nil {
		if err := want("scatterv", recv, func(j int) byte { return vfill(me, j) }); err != nil {
			return err
		}
	}
	send = make([]byte, counts[me])
	for j := range send {
		send[j] = vfill(me, j)
	}
	recv = nil
	if me == root {
		recv = make([]byte, size)
		if k%2 == 1 {
			copy(recv[displs[me]:], send)
			send = InPlace[byte]()
		}
	}
	if err := c.Gatherv(send, recv, counts, displs, root, opts...); err != nil {
		return fmt.Errorf("gatherv: %w", err)
	}
	if me == root {
		for r := range n {
			if err := want(fmt.Sprintf("gatherv block %d", r), recv[displs[r]:][:counts[r]], func(j int) byte { return vfill(r, j) }); err != nil {
				return err
			}
		}
	}
	return nil
}

var splitSizes = []int{0, 1, 1000, 70 << 10, splitMin - 8, splitMin + 12345, 1 << 20}

// TestSplitNamed: "cma_split" named on two ranks, both roots, in place and
// not, several sizes (both scratch halves serve).
func TestSplitNamed(t *testing.T) {
	runCMATest(t, 2, func(c *Comm) error {
		for i, m := range splitSizes {
			for k := 4 * i; k < 4*i+4; k++ {
				if err := splitCheck(c, k, m, WithAlgorithm("cma_split")); err != nil {
					return err
				}
			}
		}
		if st := c.cma.Load(); st != cmaOn && !refusedHere(t) {
			return fmt.Errorf("single copy not agreed on (state %d)", st)
		}
		return nil
	})
}

// TestSplitSelected: the default selection on 1..17 ranks at the same sizes
// (two ranks: "cma_split" from splitMin on; the others: the rest of the
// table).
func TestSplitSelected(t *testing.T) {
	ranks := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17}
	if testing.Short() {
		ranks = []int{1, 2, 3, 8, 17}
	}
	for _, n := range ranks {
		t.Run(fmt.Sprintf("%d-ranks", n), func(t *testing.T) {
			runCMATest(t, n, func(c *Comm) error {
				for i, m := range splitSizes {
					if n > 8 && m > 70<<10 {
						continue // keep 17 ranks' buffers small
					}
					for k := 2 * i; k < 2*i+2+n%2; k++ { // odd n: a third root
						if err := splitCheck(c, k, m); err != nil {
							return err
						}
					}
				}
				return nil
			})
		})
	}
}

// TestSplitChosen: the table runs "cma_split" on two ranks from splitMin on
// (Scatterv and Gatherv: at every size, passing small blocks to "cma"), and
// not on more ranks or below splitMin.
func TestSplitChosen(t *testing.T) {
	for _, op := range []coll.Operation{coll.OpBcast, coll.OpScatter, coll.OpGather} {
		for _, size := range []int{splitMin, 256 << 10, 1 << 20} {
			if got := coll.Select(op, 2, size); got != "cma_split" {
				t.Errorf("%s of %d bytes on 2 ranks: the table gives %q, want cma_split", op, size, got)
			}
			if got := coll.Select(op, 4, size); got == "cma_split" {
				t.Errorf("%s of %d bytes on 4 ranks: the table gives cma_split", op, size)
			}
		}
		if got := coll.Select(op, 2, splitMin/2); got == "cma_split" {
			t.Errorf("%s of %d bytes on 2 ranks: the table gives cma_split", op, splitMin/2)
		}
	}
	for _, op := range []coll.Operation{coll.OpScatterv, coll.OpGatherv} {
		if got := coll.Select(op, 2, 0); got != "cma_split" {
			t.Errorf("%s on 2 ranks: the table gives %q, want cma_split", op, got)
		}
		want := "push" // Scatterv: shmcoll_push.go, Gatherv: shmcoll_pushgv.go, in front of cma on 3 or more ranks
		if got := coll.Select(op, 3, 0); got != want {
			t.Errorf("%s on 3 ranks: the table gives %q, want %s", op, got, want)
		}
	}
}

// TestSplitRefused: copies the kernel refuses after the ranks agreed (all,
// every other one, the first only) are repaired by a message.
func TestSplitRefused(t *testing.T) {
	if refusedHere(t) {
		t.Skip("process_vm_readv refused here")
	}
	for _, mode := range []int32{1, 2, 3} {
		for _, refuser := range []int{0, 1} {
			t.Run(fmt.Sprintf("mode-%d/rank-%d", mode, refuser), func(t *testing.T) {
				defer refuseMode.Store(0)
				runCMATest(t, 2, func(c *Comm) error {
					if err := splitCheck(c, 0, splitMin+1000, WithAlgorithm("cma_split")); err != nil { // agree first
						return err
					}
					if err := c.Barrier(); err != nil {
						return err
					}
					if c.Rank() == refuser {
						refuseCount.Store(0)
						refuseMode.Store(mode)
					}
					if err := c.Barrier(); err != nil {
						return err
					}
					for k := 1; k < 5; k++ {
						if err := splitCheck(c, k, splitMin+1000+k); err != nil {
							return err
						}
					}
					refuseMode.Store(0)
					return c.Barrier()
				})
			})
		}
	}
}

// TestSplitMismatch: sizes that disagree give ErrMismatch on both ranks
// (each sees the other's record or signature), also where one rank's size
// is below splitMin and it runs "cma"; nobody hangs, and later calls work.
func TestSplitMismatch(t *testing.T) {
	for _, op := range []string{"bcast", "gather", "scatterv", "gatherv", "bcast-across", "scatterv-across"} {
		t.Run(op, func(t *testing.T) {
			runCMATest(t, 2, func(c *Comm) error {
				split := WithAlgorithm("cma_split")
				if err := splitCheck(c, 0, splitMin+1000, split); err != nil { // agree first
					return err
				}
				m, extra := splitMin+1000, 0
				if c.Rank() == 1 {
					extra = 4096
				}
				var err error
				switch op {
				case "bcast":
					err = c.Bcast(make([]byte, m+extra), 0, split)
				case "gather":
					err = c.Gather(make([]byte, m+extra), make([]byte, 2*m), 0, split)
				case "scatterv": // the root (0) sends rank 1 m bytes, rank 1 expects m+extra
					err = c.Scatterv(make([]byte, 2*m), []int{m, m}, []int{0, m}, make([]byte, m+extra), 0, split)
				case "gatherv":
					err = c.Gatherv(make([]byte, m+extra), make([]byte, 2*m), []int{m, m}, []int{0, m}, 0, split)
				case "bcast-across", "scatterv-across":
					// Rank 1's size is below splitMin: the default selection
					// runs cma there and cma_split at the root.
					small := m
					if c.Rank() == 1 {
						small = 100 << 10
					}
					if op == "bcast-across" {
						err = c.Bcast(make([]byte, small), 0)
					} else {
						err = c.Scatterv(make([]byte, 2*m), []int{m, m}, []int{0, m}, make([]byte, small), 0)
					}
				}
				if !errors.Is(err, ErrMismatch) {
					return fmt.Errorf("%s with rank 1's size different: %v on rank %d, want ErrMismatch", op, err, c.Rank())
				}
				return splitCheck(c, 3, splitMin+1000)
			})
		})
	}
}
