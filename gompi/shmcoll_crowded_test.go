//go:build !mpi && !mpich

package gompi_test

import (
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// The crowded slots' waits (gompi/internal/core/crowded.go) sleep on the
// slot's futex word at once. GOMPI_SHM_SLEEP_FROM=1 turns them on for every
// slot, goroutine ranks included (without raw sleeps, which are for
// processes only), so that these tests take that path at every size.

// crowdedRounds runs rounds of the collectives whose steps wait in a slot,
// each checked against what it must give: Barrier, Bcast (fits a half, and
// rooted at every rank in turn), Allreduce (in place and not), Allgather,
// and the rooted steps that leave a step open (Reduce, Gather, Scatter),
// after which the next call waits for that step first.
func crowdedRounds(rounds int) func(c *gompi.Comm) error {
	return func(c *gompi.Comm) error {
		n, me := c.Size(), c.Rank()
		for i := range rounds {
			root := i % n
			if err := c.Barrier(); err != nil {
				return fmt.Errorf("round %d: barrier: %w", i, err)
			}
			for _, size := range []int{8, 100} {
				b := make([]byte, size)
				if me == root {
					for j := range b {
						b[j] = byte(i + j + root)
					}
				}
				if err := c.Bcast(b, root); err != nil {
					return fmt.Errorf("round %d: bcast: %w", i, err)
				}
				for j := range b {
					if b[j] != byte(i+j+root) {
						return fmt.Errorf("round %d: bcast of %d B from %d: byte %d is %d", i, size, root, j, b[j])
					}
				}
			}
			sum := []int64{int64(me + i)}
			if i%2 == 0 {
				if err := gompi.Allreduce(c, gompi.InPlace[int64](), sum, gompi.Sum[int64]()); err != nil {
					return fmt.Errorf("round %d: allreduce: %w", i, err)
				}
			} else {
				out := make([]int64, 1)
				if err := gompi.Allreduce(c, sum, out, gompi.Sum[int64]()); err != nil {
					return fmt.Errorf("round %d: allreduce: %w", i, err)
				}
				sum = out
			}
			if want := int64(n*(n-1)/2 + n*i); sum[0] != want {
				return fmt.Errorf("round %d: allreduce gave %d, want %d", i, sum[0], want)
			}
			all := make([]int64, n)
			if err := gompi.Allgather(c, []int64{int64(me*1000 + i)}, all); err != nil {
				return fmt.Errorf("round %d: allgather: %w", i, err)
			}
			for r, v := range all {
				if v != int64(r*1000+i) {
					return fmt.Errorf("round %d: allgather block %d is %d", i, r, v)
				}
			}
			red := make([]int64, 1)
			if err := gompi.Reduce(c, []int64{int64(me)}, red, gompi.Sum[int64](), root); err != nil {
				return fmt.Errorf("round %d: reduce: %w", i, err)
			}
			if me == root && red[0] != int64(n*(n-1)/2) {
				return fmt.Errorf("round %d: reduce gave %d", i, red[0])
			}
			got := make([]byte, 8*n)
			if err := c.Gather([]byte(fmt.Sprintf("%08d", me+i)), got, root); err != nil {
				return fmt.Errorf("round %d: gather: %w", i, err)
			}
			if me == root {
				for r := range n {
					if want := fmt.Sprintf("%08d", r+i); string(got[8*r:8*r+8]) != want {
						return fmt.Errorf("round %d: gather block %d is %q", i, r, got[8*r:8*r+8])
					}
				}
			}
			part := make([]byte, 8)
			var src []byte
			if me == root {
				src = make([]byte, 8*n)
				for r := range n {
					copy(src[8*r:], fmt.Sprintf("%08d", r*3+i))
				}
			}
			if err := c.Scatter(src, part, root); err != nil {
				return fmt.Errorf("round %d: scatter: %w", i, err)
			}
			if want := fmt.Sprintf("%08d", me*3+i); string(part) != want {
				return fmt.Errorf("round %d: scatter gave %q, want %q", i, part, want)
			}
		}
		return c.Barrier()
	}
}

// TestShmCrowdedWaits: the collectives whose steps sleep at once agree with
// what they must give on 1..17 ranks and on 64, oversubscribed (2 Ps).
func TestShmCrowdedWaits(t *testing.T) {
	t.Setenv("GOMPI_SHM_SLEEP_FROM", "1")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for n := 1; n <= 17; n++ {
		run(t, n, crowdedRounds(12))
	}
	run(t, 64, crowdedRounds(4))
}

// TestShmCrowdedPeerLost: a rank that leaves while the others sleep in a
// crowded barrier makes their barrier fail with ErrPeerLost, not hang.
func TestShmCrowdedPeerLost(t *testing.T) {
	t.Setenv("GOMPI_SHM_SLEEP_FROM", "1")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, n := range []int{3, 17, 64} {
		run(t, n, func(c *gompi.Comm) error {
			if err := c.Barrier(); err != nil {
				return err
			}
			if c.Rank() == n/2 {
				return nil // leaves without the barrier the others wait in
			}
			if err := c.Barrier(); !errors.Is(err, gompi.ErrPeerLost) {
				return fmt.Errorf("barrier whose member left: want ErrPeerLost, got %v", err)
			}
			return nil
		})
	}
}
