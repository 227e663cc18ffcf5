//go:build !mpi && !mpich

package gompi_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi"
)

// The shared-memory forms of the collectives with per-rank counts
// (shmcoll_v.go), against results computed here, on 1..17 ranks: counts
// that differ per pair (zero included), blocks too large for their slots
// (they go point-to-point), in place, and several calls in a row so that
// both scratch halves serve.

// vCount is the bytes rank src sends rank dst; big makes some blocks larger
// than any slot of the scratch area (a half holds 32 KiB and a bit per rank).
func vCount(src, dst int, big bool) int {
	c := (src*7 + dst*3) % 5 * 8
	if big && (src+dst)%3 == 0 {
		c += 40000
	}
	return c
}

// vByte is byte i of the block rank src sends rank dst.
func vByte(src, dst, i int) byte { return byte(src*31 + dst*17 + i) }

func vBlock(src, dst int, big bool) []byte {
	b := make([]byte, vCount(src, dst, big))
	for i := range b {
		b[i] = vByte(src, dst, i)
	}
	return b
}

// layoutOf places blocks of the given counts one after the other with a gap
// of 8 bytes before each, so that displacements matter.
func layoutOf(counts []int) (displs []int, size int) {
	displs = make([]int, len(counts))
	for i, c := range counts {
		displs[i] = size + 8
		size += 8 + c
	}
	return displs, size
}

// rootLayout is the root's counts of Gatherv or Scatterv, count(r) for rank
// r, and their layout.
func rootLayout(n int, count func(r int) int) (counts, displs []int, size int) {
	counts = make([]int, n)
	for r := range counts {
		counts[r] = count(r)
	}
	displs, size = layoutOf(counts)
	return counts, displs, size
}

func vRanks() []int {
	if testing.Short() {
		return []int{1, 2, 3, 4, 7, 8, 17}
	}
	ns := make([]int, 17)
	for i := range ns {
		ns[i] = i + 1
	}
	return ns
}

func TestShmVAgainstReference(t *testing.T) {
	shm := gompi.WithAlgorithm("shm")
	for _, n := range vRanks() {
		for _, big := range []bool{false, true} {
			if big && n > 4 && n%4 != 1 && n != 8 {
				continue // blocks beyond their slots: 1..4, 5, 8, 9, 13, 17 ranks
			}
			for _, inPlace := range []bool{false, true} {
				name := fmt.Sprintf("n=%d/big=%v/inplace=%v", n, big, inPlace)
				t.Run(name, func(t *testing.T) {
					run(t, n, func(c *gompi.Comm) error {
						for round := range 2 { // both scratch halves
							root := (round + n/2) % n
							for _, f := range []func(*gompi.Comm, int, bool, bool, gompi.CollOption) error{
								checkGatherv, checkScatterv, checkAlltoallv, checkAllgatherv, checkReduceScatter,
							} {
								opt := shm
								if big && (round == 1 || n > 2) {
									// Allgatherv and ReduceScatter take only calls that
									// fit; and the default selection must serve too.
									opt = gompi.CollOption{}
								}
								if err := f(c, root, big, inPlace, opt); err != nil {
									return fmt.Errorf("round %d, root %d: %w", round, root, err)
								}
							}
						}
						return nil
					})
				})
			}
		}
	}
}

func checkGatherv(c *gompi.Comm, root int, big, inPlace bool, opt gompi.CollOption) error {
	n, me := c.Size(), c.Rank()
	send := vBlock(me, root, big)
	var recv []byte
	var counts, displs []int
	if me == root {
		var size int
		counts, displs, size = rootLayout(n, func(r int) int { return vCount(r, root, big) })
		recv = make([]byte, size)
		if inPlace {
			copy(recv[displs[me]:], send)
			send = gompi.InPlace[byte]()
		}
	}
	if err := c.Gatherv(send, recv, counts, displs, root, opt); err != nil {
		return fmt.Errorf("gatherv: %w", err)
	}
	if me != root {
		return nil
	}
	for r := range n {
		if got := recv[displs[r]:][:counts[r]]; !bytes.Equal(got, vBlock(r, root, big)) {
			return fmt.Errorf("gatherv: the block of rank %d is wrong", r)
		}
	}
	return nil
}

func checkScatterv(c *gompi.Comm, root int, big, inPlace bool, opt gompi.CollOption) error {
	n, me := c.Size(), c.Rank()
	recv := make([]byte, vCount(root, me, big))
	var send []byte
	var counts, displs []int
	if me == root {
		var size int
		counts, displs, size = rootLayout(n, func(r int) int { return vCount(root, r, big) })
		send = make([]byte, size)
		for r := range n {
			copy(send[displs[r]:], vBlock(root, r, big))
		}
		if inPlace {
			recv = gompi.InPlace[byte]()
		}
	}
	if err := c.Scatterv(send, counts, displs, recv, root, opt); err != nil {
		return fmt.Errorf("scatterv: %w", err)
	}
	if me == root && inPlace {
		return nil
	}
	if !bytes.Equal(recv, vBlock(root, me, big)) {
		return fmt.Errorf("scatterv: rank %d's block is wrong", me)
	}
	return nil
}

// checkAlltoallv runs Alltoallv and Alltoallw (the same in bytes). In place
// the counts must be symmetric: rank i sends rank j what it receives from j.
func checkAlltoallv(c *gompi.Comm, _ int, big, inPlace bool, opt gompi.CollOption) error {
	count := func(src, dst int) int {
		if inPlace {
			return vCount(min(src, dst), max(src, dst), big)
		}
		return vCount(src, dst, big)
	}
	block := func(src, dst int) []byte {
		b := make([]byte, count(src, dst))
		for i := range b {
			b[i] = vByte(src, dst, i)
		}
		return b
	}
	return alltoallvBoth(c, count, block, inPlace, opt, "")
}

// alltoallvBoth runs Alltoallv and Alltoallw with the blocks block(src,
// dst) of count(src, dst) bytes and checks what arrived; label prefixes
// the errors' call names.
func alltoallvBoth(c *gompi.Comm, count func(src, dst int) int, block func(src, dst int) []byte,
	inPlace bool, opt gompi.CollOption, label string) error {
	n, me := c.Size(), c.Rank()
	scounts, rcounts := make([]int, n), make([]int, n)
	for j := range n {
		scounts[j], rcounts[j] = count(me, j), count(j, me)
	}
	sdispls, ssize := layoutOf(scounts)
	rdispls, rsize := layoutOf(rcounts)
	for _, w := range []bool{false, true} {
		send, recv := make([]byte, ssize), make([]byte, rsize)
		for j := range n {
			copy(send[sdispls[j]:], block(me, j))
		}
		if inPlace {
			copy(recv, send)
			send = gompi.InPlace[byte]()
		}
		call, name := c.Alltoallv, "alltoallv"
		if w {
			call, name = c.Alltoallw, "alltoallw"
		}
		if err := call(send, scounts, sdispls, recv, rcounts, rdispls, opt); err != nil {
			return fmt.Errorf("%s%s: %w", name, label, err)
		}
		for i := range n {
			if !bytes.Equal(recv[rdispls[i]:][:rcounts[i]], block(i, me)) {
				return fmt.Errorf("%s%s: rank %d's block from rank %d is wrong", name, label, me, i)
			}
		}
	}
	return nil
}

func checkAllgatherv(c *gompi.Comm, _ int, big, inPlace bool, opt gompi.CollOption) error {
	n, me := c.Size(), c.Rank()
	counts := make([]int, n)
	for r := range counts {
		counts[r] = vCount(r, 0, big)
	}
	displs, size := layoutOf(counts)
	send, recv := vBlock(me, 0, big), make([]byte, size)
	if inPlace {
		copy(recv[displs[me]:], send)
		send = gompi.InPlace[byte]()
	}
	if err := c.Allgatherv(send, recv, counts, displs, opt); err != nil {
		return fmt.Errorf("allgatherv: %w", err)
	}
	for r := range n {
		if !bytes.Equal(recv[displs[r]:][:counts[r]], vBlock(r, 0, big)) {
			return fmt.Errorf("allgatherv: rank %d's copy of rank %d's block is wrong", me, r)
		}
	}
	return nil
}

// checkReduceScatter reduces with a non-commutative operator (x∘y = 3x + y
// elementwise in float64, exact for these small values), so that rank order
// shows.
func checkReduceScatter(c *gompi.Comm, _ int, big, inPlace bool, opt gompi.CollOption) error {
	n, me := c.Size(), c.Rank()
	counts := make([]int, n)
	for r := range counts {
		counts[r] = vCount(r, 1, false) // multiples of 8: whole float64s
	}
	if big {
		counts[n-1] += 800
	}
	total := 0
	for _, x := range counts {
		total += x
	}
	elem := func(r, i int) float64 { return float64((r + i) % 3) }
	send := make([]byte, total)
	for i := range total / 8 {
		binary.LittleEndian.PutUint64(send[8*i:], math.Float64bits(elem(me, i)))
	}
	recv := make([]byte, counts[me])
	if inPlace {
		recv, send = send, gompi.InPlace[byte]()
	}
	if err := c.ReduceScatter(send, recv, counts, horner, opt); err != nil {
		return fmt.Errorf("reduce_scatter: %w", err)
	}
	off := 0
	for r := range me {
		off += counts[r]
	}
	for k := range counts[me] / 8 {
		i := off/8 + k
		want := elem(n-1, i)
		for r := n - 2; r >= 0; r-- {
			want = 3*elem(r, i) + want
		}
		if got := math.Float64frombits(binary.LittleEndian.Uint64(recv[8*k:])); got != want {
			return fmt.Errorf("reduce_scatter: rank %d element %d: got %v, want %v", me, i, got, want)
		}
	}
	return nil
}

// horner is x∘y = 3x + y: not commutative, so the order of ranks shows.
var horner = gompi.NewOp("horner", false, func(in, inout []float64) {
	for i := range in {
		inout[i] = 3*in[i] + inout[i]
	}
})

// TestShmVMismatch: a rank whose count disagrees with what its peer expects
// gets ErrMismatch, for blocks within a slot and beyond it, and nobody
// hangs: the collectives after it still work.
func TestShmVMismatch(t *testing.T) {
	shm := gompi.WithAlgorithm("shm")
	for _, extra := range []int{8, 50000} {
		t.Run(fmt.Sprintf("extra=%d", extra), func(t *testing.T) {
			run(t, 3, func(c *gompi.Comm) error {
				if err := vMismatches(c, extra, shm); err != nil {
					return err
				}
				// ReduceScatter: rank 2 passes other counts.
				vc := []int{8, 8, 8}
				if c.Rank() == 2 {
					vc = []int{16, 0, 8}
				}
				err := c.ReduceScatter(make([]byte, 24), make([]byte, vc[c.Rank()]), vc, gompi.Sum[float64](), shm)
				if c.Rank() == 2 && !errors.Is(err, gompi.ErrMismatch) {
					return fmt.Errorf("reduce_scatter at rank 2: want ErrMismatch, got %v", err)
				}
				return c.Barrier(shm)
			})
		})
	}
}

// vMismatches runs Gatherv, Scatterv, Alltoallv and Allgatherv on 3 ranks
// with one rank's count extra bytes off what its peer expects, through the
// algorithm alg names, and checks that the rank that sees the disagreement
// gets ErrMismatch and the others no error (TestShmVMismatch,
// TestCMAvMismatch).
func vMismatches(c *gompi.Comm, extra int, alg gompi.CollOption) error {
	mismatch := func(err error) error {
		if !errors.Is(err, gompi.ErrMismatch) {
			return fmt.Errorf("want ErrMismatch, got %v", err)
		}
		return nil
	}
	me := c.Rank()
	counts, displs := []int{8, 8, 8}, []int{0, 8, 16}
	// Gatherv: rank 1 sends more than the root (0) expects.
	send := make([]byte, 8)
	if me == 1 {
		send = make([]byte, 8+extra)
	}
	err := c.Gatherv(send, make([]byte, 24), counts, displs, 0, alg)
	if me == 0 {
		if e := mismatch(err); e != nil {
			return fmt.Errorf("gatherv at the root: %w", e)
		}
	} else if err != nil {
		return fmt.Errorf("gatherv: %w", err)
	}
	// Scatterv: the root (2) sends rank 0 more than it expects.
	scounts := []int{8 + extra, 8, 8}
	sdispls := []int{0, 8 + extra, 16 + extra}
	err = c.Scatterv(make([]byte, 24+extra), scounts, sdispls, make([]byte, 8), 2, alg)
	if me == 0 {
		if e := mismatch(err); e != nil {
			return fmt.Errorf("scatterv at rank 0: %w", e)
		}
	} else if err != nil {
		return fmt.Errorf("scatterv: %w", err)
	}
	// Alltoallv: rank 2 sends rank 1 more than it expects.
	sc, sd := []int{8, 8, 8}, []int{0, 8, 16}
	if me == 2 {
		sc, sd = []int{8, 8 + extra, 8}, []int{0, 8, 16 + extra}
	}
	err = c.Alltoallv(make([]byte, 24+extra), sc, sd, make([]byte, 24), counts, displs, alg)
	if me == 1 {
		if e := mismatch(err); e != nil {
			return fmt.Errorf("alltoallv at rank 1: %w", e)
		}
	} else if err != nil {
		return fmt.Errorf("alltoallv: %w", err)
	}
	// Allgatherv: rank 2 passes other counts.
	vc := []int{8, 8, 8}
	if me == 2 {
		vc = []int{16, 0, 8}
	}
	if err := c.Allgatherv(make([]byte, vc[me]), make([]byte, 24), vc, []int{0, 8, 16}, alg); !errors.Is(err, gompi.ErrMismatch) && !(me != 2 && err == nil) {
		return fmt.Errorf("allgatherv: want ErrMismatch on rank 2 at least, got %v", err)
	}
	return nil
}

// TestShmVChosen: the table runs the shared-memory forms by default for
// small calls on one host.
func TestShmVChosen(t *testing.T) {
	run(t, 2, func(c *gompi.Comm) error {
		// Gatherv, Scatterv and Alltoallv/w (size 0) run "cma" first, the
		// slotted forms with single copy for large blocks (TestCMAvChosen).
		for op, size := range map[coll.Operation]int{coll.OpAllgatherv: 16, coll.OpReduceScatter: 16} {
			if got := coll.Select(op, c.Size(), size); got != "shm" {
				return fmt.Errorf("%s of size %d on 2 ranks: the table gives %q, want shm", op, size, got)
			}
		}
		return nil
	})
}
