package main

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/gompi/gompi/gompi"
)

// rooted2: two-rank Reduce, Gather and Gatherv back to back, the root
// changing from call to call, at sizes on the arrival lines, past them and
// in the scratch half, mixed with Allreduce, Bcast and barriers (the
// contributor arrives and leaves without reading its root's word:
// internal/shm/collopen.go). Prints "rooted2 agreed" on success.
func init() {
	modes["rooted2"] = func(c *gompi.Comm, _ int) error {
		me := c.Rank()
		sizes := []int{8, 64, 120, 121, 512, 4096}
		for it := range 3000 {
			m := sizes[it%len(sizes)]
			root := (it/2 + it/5) % 2
			k := max(m/8, 1)
			vec := func(r int) []int64 {
				v := make([]int64, k)
				for i := range v {
					v[i] = int64((it*131+r*57+i*13)%97 - 40)
				}
				return v
			}
			out := make([]int64, k)
			if err := gompi.Reduce(c, vec(me), out, gompi.Max[int64](), root); err != nil {
				return err
			}
			if me == root {
				want := vec(0)
				for i, x := range vec(1) {
					want[i] = max(want[i], x)
				}
				if !slices.Equal(out, want) {
					return fmt.Errorf("call %d, root %d: Reduce gave %v, want %v", it, root, out, want)
				}
			}
			if it%4 == 1 {
				b := []int64{0}
				if err := gompi.Allreduce(c, []int64{int64(it + me)}, b, gompi.Sum[int64]()); err != nil {
					return err
				}
				if b[0] != int64(2*it+1) {
					return fmt.Errorf("call %d: Allreduce gave %d", it, b[0])
				}
			}
			block := func(r, n int) []byte {
				b := make([]byte, n)
				for i := range b {
					b[i] = byte(it*7 + r*31 + i*3 + 1)
				}
				return b
			}
			var recv []byte
			if me == root {
				recv = make([]byte, 2*m)
			}
			if err := c.Gather(block(me, m), recv, root); err != nil {
				return err
			}
			if want := append(block(0, m), block(1, m)...); me == root && !bytes.Equal(recv, want) {
				return fmt.Errorf("call %d, root %d, %d B: Gather differs", it, root, m)
			}
			if it%3 == 2 {
				if err := c.Barrier(); err != nil {
					return err
				}
			}
			counts := []int{m, m - m/3}
			displs := []int{counts[1] + 5, 0}
			recv = nil
			if me == root {
				recv = make([]byte, counts[0]+counts[1]+5)
			}
			if err := c.Gatherv(block(me, counts[me]), recv, counts, displs, root); err != nil {
				return err
			}
			if me == root {
				want := make([]byte, len(recv))
				copy(want[displs[0]:], block(0, counts[0]))
				copy(want[displs[1]:], block(1, counts[1]))
				if !bytes.Equal(recv, want) {
					return fmt.Errorf("call %d, root %d, %d B: Gatherv differs", it, root, m)
				}
			}
			if it%7 == 6 {
				b := make([]byte, m)
				if me == root {
					copy(b, block(9, m))
				}
				if err := c.Bcast(b, root); err != nil {
					return err
				}
				if !bytes.Equal(b, block(9, m)) {
					return fmt.Errorf("call %d, root %d, %d B: Bcast differs", it, root, m)
				}
			}
		}
		fmt.Println("rooted2 agreed")
		return nil
	}
}
