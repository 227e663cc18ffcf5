//go:build !mpi && !mpich

package gompi

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// TestShmBarrierAheadTwoRanks: a two-rank barrier after a rooted call's
// post arrives without waiting for the open step (shmcoll_barrier2.go,
// core.Comm.ShmBarrierAhead). Bcast, Scatter, Scan and Exscan with either
// root, each followed by a barrier, mixed with full steps that write the
// barrier's half (Allreduce), so that the barrier takes both the short way
// (its signature in place) and the usual one, on both step parities; on
// the world and on duplicates made and freed in turn (a slot claimed
// again). Every barrier still holds both ranks: a rank past barrier i
// sees the other's count of barriers entered reach i+1.
func TestShmBarrierAheadTwoRanks(t *testing.T) {
	var entered [2]atomic.Int64
	var ahead [2]atomic.Int64
	err := Run(2, func(world *Comm) error {
		me := world.Rank()
		barriers := int64(0)
		barrier := func(c *Comm, what string) error {
			if c.c.ShmPairOpen() {
				ahead[me].Add(1)
			}
			barriers++
			entered[me].Add(1)
			if err := c.Barrier(); err != nil {
				return err
			}
			if got := entered[1-me].Load(); got < barriers {
				return fmt.Errorf("rank %d left barrier %d (after %s) with its peer at %d", me, barriers, what, got)
			}
			return nil
		}
		loop := func(c *Comm, parity, rounds int) error {
			for range parity { // shifts the steps by one: the other parity
				if err := c.Barrier(); err != nil {
					return err
				}
				barriers++
				entered[me].Add(1)
			}
			for i := range rounds {
				root := (i / 5) % 2
				v := int64(100*i + root)
				buf := []int64{-1}
				if me == root {
					buf[0] = v
				}
				if err := Bcast(c, buf, root); err != nil {
					return err
				}
				if buf[0] != v {
					return fmt.Errorf("round %d: Bcast from %d gave %d on rank %d, want %d", i, root, buf[0], me, v)
				}
				if err := barrier(c, "Bcast"); err != nil {
					return err
				}
				var send []int64
				if me == root {
					send = []int64{v, v + 1}
				}
				got := []int64{-1}
				if err := Scatter(c, send, got, root); err != nil {
					return err
				}
				if got[0] != v+int64(me) {
					return fmt.Errorf("round %d: Scatter from %d gave %d on rank %d, want %d", i, root, got[0], me, v+int64(me))
				}
				if err := barrier(c, "Scatter"); err != nil {
					return err
				}
				in, out := []int64{int64(10*i + me + 1)}, []int64{-1}
				if err := Scan(c, in, out, Sum[int64]()); err != nil {
					return err
				}
				if want := int64(10*i+1) + int64(me)*int64(10*i+2); out[0] != want {
					return fmt.Errorf("round %d: Scan gave %d on rank %d, want %d", i, out[0], me, want)
				}
				if err := barrier(c, "Scan"); err != nil {
					return err
				}
				if err := Exscan(c, in, out, Sum[int64]()); err != nil {
					return err
				}
				if me == 1 && out[0] != int64(10*i+1) {
					return fmt.Errorf("round %d: Exscan gave %d on rank 1, want %d", i, out[0], 10*i+1)
				}
				if err := barrier(c, "Exscan"); err != nil {
					return err
				}
				if i%3 == 0 {
					// A full step that writes a half: the barrier after the
					// next post finds another signature there every other
					// round and takes the usual way.
					sum := []int64{int64(me + i)}
					if err := Allreduce(c, InPlace[int64](), sum, Sum[int64]()); err != nil {
						return err
					}
					if sum[0] != int64(1+2*i) {
						return fmt.Errorf("round %d: Allreduce gave %d", i, sum[0])
					}
					if err := Bcast(c, buf, root); err != nil {
						return err
					}
					if err := barrier(c, "Bcast after Allreduce"); err != nil {
						return err
					}
				}
			}
			return nil
		}
		for parity := range 2 {
			if err := loop(world, parity, 300); err != nil {
				return err
			}
			for d := range 3 {
				dup, err := world.Dup()
				if err != nil {
					return err
				}
				if err := loop(dup, (parity+d)%2, 100); err != nil {
					return fmt.Errorf("duplicate %d: %w", d, err)
				}
				if err := dup.Free(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for r := range ahead {
		if ahead[r].Load() == 0 {
			t.Errorf("rank %d never took a barrier after its own open post", r)
		}
	}
}
