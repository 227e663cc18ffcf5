//go:build !mpi && !mpich

package gompi_test

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// TestShmLeaveOrders: with ranks outnumbering CPUs, the barrier after a
// Gather, Gatherv or Reduce lets the root leave last, the one after a Bcast
// the root first, the one after Scan or Exscan (chain) rank 0 first. Loops of each,
// with roots changing from call to call, interleaved with Bcast (root
// first) and back-to-back barriers, on 3..8 and 17 ranks; every result is
// checked, and the scratch halves are filled near their ends (where the
// leave words lie) so that a word written in the wrong half would show.
// The orders are off by default (GOMPI_SHM_LEAD): the loops run both ways.
func TestShmLeaveOrders(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // oversubscribed
	for _, lead := range []string{"1", "0"} {
		for _, n := range []int{3, 4, 5, 8, 17} {
			t.Run(fmt.Sprintf("lead=%s/%d", lead, n), func(t *testing.T) {
				t.Setenv("GOMPI_SHM_LEAD", lead)
				run(t, n, func(c *gompi.Comm) error { return leaveOrderLoop(c) })
			})
		}
	}
}

func leaveOrderLoop(c *gompi.Comm) error {
	n, me := c.Size(), c.Rank()
	word := func(i, r int) uint32 { return uint32(i*1000 + r + 1) }
	for i := range 60 {
		root := (i / 6) % n
		var err error
		switch i % 6 {
		case 0: // Gather of blocks that fill the scratch half up to its end
			m := 4 << 10
			send := make([]byte, m)
			for k := 0; k < m; k += 4 {
				binary.LittleEndian.PutUint32(send[k:], word(i, me))
			}
			var recv []byte
			if me == root {
				recv = make([]byte, m*n)
			}
			if err = c.Gather(send, recv, root); err == nil && me == root {
				for r := range n {
					if got := binary.LittleEndian.Uint32(recv[r*m+m-4:]); got != word(i, r) {
						err = fmt.Errorf("call %d: Gather block %d ends with %d, want %d", i, r, got, word(i, r))
					}
				}
			}
		case 1: // Gatherv, counts r+1 words
			send := make([]uint32, me+1)
			for k := range send {
				send[k] = word(i, me)
			}
			counts, displs := make([]int, n), make([]int, n)
			off := 0
			for r := range n {
				counts[r], displs[r] = r+1, off
				off += r + 1
			}
			var recv []uint32
			if me == root {
				recv = make([]uint32, off)
			}
			if err = gompi.Gatherv(c, send, recv, counts, displs, root); err == nil && me == root {
				for r := range n {
					for k := range counts[r] {
						if recv[displs[r]+k] != word(i, r) {
							err = fmt.Errorf("call %d: Gatherv block %d: %v", i, r, recv[displs[r]:][:counts[r]])
						}
					}
				}
			}
		case 2:
			out := make([]int64, 3)
			if err = gompi.Reduce(c, []int64{int64(me), 1, int64(i)}, out, gompi.Sum[int64](), root); err == nil && me == root {
				if want := []int64{int64(n * (n - 1) / 2), int64(n), int64(n * i)}; fmt.Sprint(out) != fmt.Sprint(want) {
					err = fmt.Errorf("call %d: Reduce %v, want %v", i, out, want)
				}
			}
		case 3:
			out := make([]int64, 2)
			if err = gompi.Scan(c, []int64{int64(me + 1), int64(i)}, out, gompi.Sum[int64]()); err == nil {
				if want := []int64{int64((me + 1) * (me + 2) / 2), int64((me + 1) * i)}; fmt.Sprint(out) != fmt.Sprint(want) {
					err = fmt.Errorf("call %d: Scan %v, want %v", i, out, want)
				}
			}
		case 4:
			out := []int64{-7, -7}
			if err = gompi.Exscan(c, []int64{int64(me + 1), int64(i)}, out, gompi.Sum[int64]()); err == nil && me > 0 {
				if want := []int64{int64(me * (me + 1) / 2), int64(me * i)}; fmt.Sprint(out) != fmt.Sprint(want) {
					err = fmt.Errorf("call %d: Exscan %v, want %v", i, out, want)
				}
			}
		case 5:
			b := make([]byte, 8)
			if me == root {
				binary.LittleEndian.PutUint64(b, uint64(i))
			}
			if err = c.Bcast(b, root); err == nil && binary.LittleEndian.Uint64(b) != uint64(i) {
				err = fmt.Errorf("call %d: Bcast got %d", i, binary.LittleEndian.Uint64(b))
			}
		}
		if err != nil {
			return err
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		if i%7 == 0 { // a barrier after a barrier is not led
			if err := c.Barrier(); err != nil {
				return err
			}
		}
	}
	return nil
}
