//go:build !mpi && !mpich

package gompi_test

import (
	"fmt"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// The shared-memory forms that run only where the call fits the scratch
// area (Reduce, Allreduce, Scan, Exscan, Gather, Scatter, Allgatherv) with
// blocks of 16 and 32 KiB, against results computed here, on 1..17 ranks:
// forced ("shm") where the scratch half holds them (up to 8 ranks: 32 KiB
// per rank), by the default selection beyond (where "shm" does not fit and
// selection passes the call on to the next rule), roots other than 0, in
// place on the second round, both scratch halves.
func TestShmLargeBlocksAgainstReference(t *testing.T) {
	for _, n := range vRanks() {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error {
				opt := gompi.CollOption{}
				if n <= 8 {
					opt = gompi.WithAlgorithm("shm")
				}
				for round := range 2 {
					for _, m := range []int{32 << 10, 16<<10 + 8} {
						if err := checkLargeBlocks(c, round, m, opt); err != nil {
							return fmt.Errorf("round %d, %d-byte blocks: %w", round, m, err)
						}
					}
				}
				return nil
			})
		})
	}
}

func largeVal(r, i, round int) int64 { return int64(r*1000003 + i*7 + round) }

func checkLargeBlocks(c *gompi.Comm, round, m int, opt gompi.CollOption) error {
	n, me := c.Size(), c.Rank()
	root := (round + n/2) % n
	inPlace := round == 1
	e := m / 8
	mine := func() []int64 {
		v := make([]int64, e)
		for i := range v {
			v[i] = largeVal(me, i, round)
		}
		return v
	}
	sumUpTo := func(hi, i int) int64 { // ranks 0..hi-1
		var s int64
		for r := range hi {
			s += largeVal(r, i, round)
		}
		return s
	}
	expect := func(what string, got []int64, hi int) error {
		for i := range got {
			if w := sumUpTo(hi, i); got[i] != w {
				return fmt.Errorf("%s on rank %d: element %d is %d, want %d", what, me, i, got[i], w)
			}
		}
		return nil
	}
	sum := gompi.Sum[int64]()
	// Reduce.
	send, recv := mine(), make([]int64, e)
	if inPlace && me == root {
		recv, send = send, gompi.InPlace[int64]()
	}
	if err := gompi.Reduce(c, send, recv, sum, root, opt); err != nil {
		return fmt.Errorf("reduce: %w", err)
	}
	if me == root {
		if err := expect("reduce", recv, n); err != nil {
			return err
		}
	}
	// Allreduce, Scan, Exscan.
	for _, k := range []struct {
		what string
		f    func(*gompi.Comm, []int64, []int64, gompi.Op[int64], ...gompi.CollOption) error
		hi   int
	}{{"allreduce", gompi.Allreduce[int64], n}, {"scan", gompi.Scan[int64], me + 1}, {"exscan", gompi.Exscan[int64], me}} {
		send, recv := mine(), make([]int64, e)
		if inPlace {
			recv, send = send, gompi.InPlace[int64]()
		}
		if err := k.f(c, send, recv, sum, opt); err != nil {
			return fmt.Errorf("%s: %w", k.what, err)
		}
		if k.hi > 0 {
			if err := expect(k.what, recv, k.hi); err != nil {
				return err
			}
		}
	}
	// Gather and Scatter: block r is vByte(r, round, ·).
	block := func(r int) []byte {
		b := make([]byte, m)
		for i := range b {
			b[i] = vByte(r, round, i)
		}
		return b
	}
	checkBlocks := func(what string, got []byte, first int) error {
		for j := range got {
			if w := vByte(first+j/m, round, j%m); got[j] != w {
				return fmt.Errorf("%s on rank %d: byte %d is %d, want %d", what, me, j, got[j], w)
			}
		}
		return nil
	}
	bsend := block(me)
	var brecv []byte
	if me == root {
		brecv = make([]byte, n*m)
		if inPlace {
			copy(brecv[me*m:], bsend)
			bsend = gompi.InPlace[byte]()
		}
	}
	if err := c.Gather(bsend, brecv, root, opt); err != nil {
		return fmt.Errorf("gather: %w", err)
	}
	if me == root {
		if err := checkBlocks("gather", brecv, 0); err != nil {
			return err
		}
	}
	bsend, brecv = nil, make([]byte, m)
	if me == root {
		bsend = make([]byte, 0, n*m)
		for r := range n {
			bsend = append(bsend, block(r)...)
		}
		if inPlace {
			brecv = gompi.InPlace[byte]()
		}
	}
	if err := c.Scatter(bsend, brecv, root, opt); err != nil {
		return fmt.Errorf("scatter: %w", err)
	}
	if len(brecv) > 0 {
		if err := checkBlocks("scatter", brecv, me); err != nil {
			return err
		}
	}
	// Allgatherv: rank r's block is m − 8(r%3) bytes, with gaps between.
	counts := make([]int, n)
	for r := range counts {
		counts[r] = m - 8*(r%3)
	}
	displs, size := layoutOf(counts)
	all := make([]byte, size)
	own := block(me)[:counts[me]]
	agSend := own
	if inPlace {
		copy(all[displs[me]:], own)
		agSend = gompi.InPlace[byte]()
	}
	if err := c.Allgatherv(agSend, all, counts, displs, opt); err != nil {
		return fmt.Errorf("allgatherv: %w", err)
	}
	for r := range n {
		got := all[displs[r] : displs[r]+counts[r]]
		for i := range got {
			if w := vByte(r, round, i); got[i] != w {
				return fmt.Errorf("allgatherv on rank %d: block %d byte %d is %d, want %d", me, r, i, got[i], w)
			}
		}
	}
	return nil
}
