package main

import (
	"errors"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/gompi/gompi/gompi"
)

func init() {
	modes["crowd"] = crowd
}

// crowd: many rounds of Barrier, Bcast (8 B, the root in turn), Allreduce
// and Allgather, each checked, on a host whose ranks outnumber its CPUs
// many times over (the crowded slots' waits, which sleep at once). With
// --arg k > 0, rank k-1 then kills itself (SIGKILL) while the others wait
// for it in a barrier: each of them must get ErrPeerLost and says so.
func crowd(c *gompi.Comm, arg int) error {
	n, me := c.Size(), c.Rank()
	for i := range 300 {
		root := i % n
		if err := c.Barrier(); err != nil {
			return err
		}
		b := make([]byte, 8)
		if me == root {
			copy(b, fmt.Sprintf("%08d", i))
		}
		if err := c.Bcast(b, root); err != nil {
			return err
		}
		if string(b) != fmt.Sprintf("%08d", i) {
			return fmt.Errorf("round %d: bcast from %d gave %q", i, root, b)
		}
		sum := []int64{int64(me + i)}
		if err := gompi.Allreduce(c, gompi.InPlace[int64](), sum, gompi.Sum[int64]()); err != nil {
			return err
		}
		if want := int64(n*(n-1)/2 + n*i); sum[0] != want {
			return fmt.Errorf("round %d: allreduce gave %d, want %d", i, sum[0], want)
		}
		all := make([]int64, n)
		if err := gompi.Allgather(c, []int64{int64(me + i)}, all); err != nil {
			return err
		}
		for r, v := range all {
			if v != int64(r+i) {
				return fmt.Errorf("round %d: allgather block %d is %d", i, r, v)
			}
		}
	}
	if arg <= 0 {
		fmt.Printf("crowd: rank %d: 300 rounds agreed\n", me)
		return nil
	}
	if me == arg-1 {
		time.Sleep(50 * time.Millisecond) // the others are asleep in the barrier by now
		syscall.Kill(syscall.Getpid(), syscall.SIGKILL)
	}
	signal.Ignore(syscall.SIGTERM) // report before golaunch stops the job
	err := c.Barrier()
	if !errors.Is(err, gompi.ErrPeerLost) {
		return fmt.Errorf("barrier whose member was killed: want ErrPeerLost, got %v", err)
	}
	fmt.Printf("crowd: rank %d: peer lost\n", me)
	return nil
}
