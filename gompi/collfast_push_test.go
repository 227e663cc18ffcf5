//go:build !mpi && !mpich

package gompi

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

// TestKeptPushTagless: a kept Scatterv on push (collfast_push.go) takes no
// tag base; one whose root finds a block too large for a line runs the
// slotted form after the lines and takes a base there, on every rank alike,
// so that point-to-point collectives and messages between such calls still
// match (1..17 ranks, rotating roots, blocks in and over a line, a
// binomial Bcast and a ring of Sendrecv between them).
func TestKeptPushTagless(t *testing.T) {
	ranks := []int{1, 2, 3, 4, 5, 7, 8, 11, 16, 17}
	if testing.Short() {
		ranks = []int{1, 3, 4, 8, 17}
	}
	for _, n := range ranks {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var mu sync.Mutex
			bases := map[int][]int{}
			err := Run(n, func(c *Comm) error {
				me := c.Rank()
				var mine []int
				for it := range 24 {
					root := (it*5 + 1) % n
					size := 8 + it%3*24
					if it%4 == 3 {
						size = pushMax + 1 + it // one line too small: the slotted form
					}
					block := func(r int) []byte {
						b := make([]byte, size)
						for i := range b {
							b[i] = byte(it*3 + r*17 + i)
						}
						return b
					}
					var send []byte
					var counts, displs []int
					if me == root {
						counts, displs = make([]int, n), make([]int, n)
						for r := range n {
							counts[r], displs[r] = size, len(send)
							send = append(send, block(r)...)
						}
					}
					recv := make([]byte, size)
					if err := c.Scatterv(send, counts, displs, recv, root); err != nil {
						return fmt.Errorf("iteration %d scatterv: %w", it, err)
					}
					if !bytes.Equal(recv, block(me)) {
						return fmt.Errorf("iteration %d scatterv from %d: rank %d got %v", it, root, me, recv)
					}
					alg, base := lastCall(c)
					if n >= pushMinRanks && size <= pushMax && (alg != "push" || base != tagsNone) {
						return fmt.Errorf("iteration %d scatterv of %d B: ran %q with tag base %d, want push without one", it, size, alg, base)
					}
					if base >= 0 {
						mine = append(mine, base)
					}
					buf := make([]byte, 16)
					if me == root {
						copy(buf, fmt.Sprintf("bcast %d", it))
					}
					if err := c.Bcast(buf, root, WithAlgorithm("binomial")); err != nil {
						return err
					}
					if _, base := lastCall(c); base >= 0 {
						mine = append(mine, base)
					}
					if want := fmt.Sprintf("bcast %d", it); string(bytes.TrimRight(buf, "\x00")) != want {
						return fmt.Errorf("iteration %d bcast: rank %d got %q", it, me, buf)
					}
					out, in := []byte{byte(me), byte(it)}, make([]byte, 2)
					if _, err := c.Sendrecv(out, (me+1)%n, it, in, (me+n-1)%n, it); err != nil {
						return err
					}
					if in[0] != byte((me+n-1)%n) || in[1] != byte(it) {
						return fmt.Errorf("iteration %d ring: rank %d got %v", it, me, in)
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
		})
	}
}
