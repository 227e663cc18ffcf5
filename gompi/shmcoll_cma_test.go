package gompi

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/shm"
)

// The single-copy algorithms ("cma") against a reference computed here, on
// in-process ranks (one process: process_vm_readv reads the process's own
// memory, through the same kernel path as a peer's).

// refuseMode makes the test's readRemote refuse reads: 0 never, 1 always,
// 2 every other read, 3 the first read only.
var (
	refuseMode  atomic.Int32
	refuseCount atomic.Int64
)

func init() {
	realRead, realWrite := readRemote, writeRemote
	readRemote = func(pid int, dst []byte, addr uint64) error {
		if refused() {
			return shm.ErrCMARefused
		}
		return realRead(pid, dst, addr)
	}
	writeRemote = func(pid int, src []byte, addr uint64) error {
		if refused() {
			return shm.ErrCMARefused
		}
		return realWrite(pid, src, addr)
	}
}

// refused says whether the next read or write is refused.
func refused() bool {
	switch refuseMode.Load() {
	case 1:
		return true
	case 2:
		return refuseCount.Add(1)%2 == 0
	case 3:
		return refuseCount.Add(1) == 1
	}
	return false
}

func runCMATest(t *testing.T, n int, fn func(c *Comm) error) {
	t.Helper()
	if Backend() != "go" {
		t.Skip("the single-copy algorithms belong to the pure-Go runtime")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := RunContext(ctx, n, fn); err != nil {
		t.Fatal(err)
	}
}

// cmaFill is the byte j of rank r's data in call k.
func cmaFill(k, r, j int) byte { return byte(j*31 + r*7 + k*3 + j>>8) }

// cmaWant compares got, what a call of call number k with block size m
// and root root delivered on c's rank, with f.
func cmaWant(c *Comm, k, m, root int, what string, got []byte, f func(j int) byte) error {
	for j := range got {
		if got[j] != f(j) {
			return fmt.Errorf("call %d, %s, %d ranks, block %d, root %d: byte %d is %d, want %d on rank %d",
				k, what, c.Size(), m, root, j, got[j], f(j), c.Rank())
		}
	}
	return nil
}

// rootedCheck runs Bcast, Scatter and Gather once with block size m in
// call k (root k%n, in place at the root on odd calls), with opts, and
// compares the results with what they must be.
func rootedCheck(c *Comm, k, m int, opts ...CollOption) error {
	n, me := c.Size(), c.Rank()
	root := k % n
	want := func(what string, got []byte, f func(j int) byte) error {
		return cmaWant(c, k, m, root, what, got, f)
	}
	// Bcast.
	buf := make([]byte, m)
	if me == root {
		for j := range buf {
			buf[j] = cmaFill(k, root, j)
		}
	}
	if err := c.Bcast(buf, root, opts...); err != nil {
		return fmt.Errorf("bcast: %w", err)
	}
	if err := want("bcast", buf, func(j int) byte { return cmaFill(k, root, j) }); err != nil {
		return err
	}
	// Scatter.
	var send, recv []byte
	if me == root {
		send = make([]byte, n*m)
		for j := range send {
			send[j] = cmaFill(k, j/max(m, 1), j%max(m, 1))
		}
	}
	recv = make([]byte, m)
	if me == root && k%2 == 1 {
		recv = InPlace[byte]()
	}
	if err := c.Scatter(send, recv, root, opts...); err != nil {
		return fmt.Errorf("scatter: %w", err)
	}
	if recv != nil {
		if err := want("scatter", recv, func(j int) byte { return cmaFill(k, me, j) }); err != nil {
			return err
		}
	}
	// Gather.
	send = make([]byte, m)
	for j := range send {
		send[j] = cmaFill(k, me, j)
	}
	recv = nil
	if me == root {
		recv = make([]byte, n*m)
		if k%2 == 1 {
			copy(recv[me*m:], send)
			send = InPlace[byte]()
		}
	}
	if err := c.Gather(send, recv, root, opts...); err != nil {
		return fmt.Errorf("gather: %w", err)
	}
	if me == root {
		return want("gather", recv, func(j int) byte { return cmaFill(k, j/max(m, 1), j%max(m, 1)) })
	}
	return nil
}

// cmaCheck runs every single-copy collective once, named explicitly, with
// block size m and call number k (roots and in-place forms vary with k),
// and compares the results with what they must be.
func cmaCheck(c *Comm, k, m int) error {
	n, me := c.Size(), c.Rank()
	cma := WithAlgorithm("cma")
	if err := rootedCheck(c, k, m, cma); err != nil {
		return err
	}
	want := func(what string, got []byte, f func(j int) byte) error {
		return cmaWant(c, k, m, k%n, what, got, f)
	}
	var send, recv []byte
	// Allgather (in place on odd calls).
	recv = make([]byte, n*m)
	send = make([]byte, m)
	for j := range send {
		send[j] = cmaFill(k, me, j)
	}
	if k%2 == 1 {
		copy(recv[me*m:], send)
		send = InPlace[byte]()
	}
	if err := c.Allgather(send, recv, cma); err != nil {
		return fmt.Errorf("allgather: %w", err)
	}
	if err := want("allgather", recv, func(j int) byte { return cmaFill(k, j/m, j%m) }); err != nil {
		return err
	}
	// Alltoall: block b of rank r's send is cmaFill(k, r*n+b, ·).
	send = make([]byte, n*m)
	for j := range send {
		send[j] = cmaFill(k, me*n+j/m, j%m)
	}
	recv = make([]byte, n*m)
	if err := c.Alltoall(send, recv, cma); err != nil {
		return fmt.Errorf("alltoall: %w", err)
	}
	return want("alltoall", recv, func(j int) byte { return cmaFill(k, (j/m)*n+me, j%m) })
}

// TestCMACollectives: every single-copy collective on 1..17 ranks, odd and
// even, roots other than 0, in place and not, blocks from 1 byte to more
// than a scratch half.
func TestCMACollectives(t *testing.T) {
	sizes := []int{1, 1000, 70 << 10}
	ranks := []int{1, 2, 3, 4, 5, 7, 8, 16, 17}
	if testing.Short() {
		ranks = []int{1, 2, 3, 8}
	}
	for _, n := range ranks {
		t.Run(fmt.Sprintf("%d-ranks", n), func(t *testing.T) {
			runCMATest(t, n, func(c *Comm) error {
				for k := 0; k < 2*len(sizes); k++ {
					m := sizes[k/2]
					if n > 8 && m > 1000 {
						m = 8 << 10 // keep 17 ranks' buffers small
					}
					if err := cmaCheck(c, k, m); err != nil {
						return err
					}
				}
				if st := c.cma.Load(); st != cmaOn && !refusedHere(t) {
					return fmt.Errorf("single copy not agreed on (state %d)", st)
				}
				return nil
			})
		})
	}
}

// refusedHere reports (once) whether this machine refuses process_vm_readv
// on the test's own process, in which case the algorithms run their
// fallback and the state is off.
func refusedHere(t *testing.T) bool {
	var b [1]byte
	src := []byte{1}
	rec := make([]byte, cmaRecSize)
	publishBuf(rec, src)
	if err := peerBuf(rec).read(b[:], 0); err != nil {
		t.Logf("process_vm_readv refused here (%v): the fallback ran", err)
		return true
	}
	return false
}

// TestCMADisabled: with GOMPI_SHM_CMA_COLL=0 (or GOMPI_SHM_CMA=0) the
// ranks agree on off, the calls named "cma" at the first call run the
// algorithm selection picks without it, and "cma" is no longer available.
func TestCMADisabled(t *testing.T) {
	for _, env := range []string{"GOMPI_SHM_CMA_COLL", "GOMPI_SHM_CMA"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "0")
			runCMATest(t, 3, func(c *Comm) error {
				buf := make([]byte, 100<<10)
				if c.Rank() == 1 {
					for j := range buf {
						buf[j] = byte(j)
					}
				}
				if err := c.Bcast(buf, 1, WithAlgorithm("cma")); err != nil {
					return err
				}
				for j := range buf {
					if buf[j] != byte(j) {
						return fmt.Errorf("byte %d is %d on rank %d", j, buf[j], c.Rank())
					}
				}
				if st := c.cma.Load(); st != cmaOff {
					return fmt.Errorf("state %d after the first call, want off", st)
				}
				// Selection no longer picks it; naming it is an argument error.
				if err := c.Bcast(buf, 0); err != nil {
					return err
				}
				if err := c.Bcast(buf, 0, WithAlgorithm("cma")); !errors.Is(err, ErrArg) {
					return fmt.Errorf("naming cma once it is off: %v, want ErrArg", err)
				}
				return nil
			})
		})
	}
}

// TestCMAAgreementOneRefused: one rank whose probe read is refused makes
// every rank agree on off; the first call still gives the right results
// (it falls back), and so do the later ones.
func TestCMAAgreementOneRefused(t *testing.T) {
	if refusedHere(t) {
		t.Skip("process_vm_readv refused here")
	}
	refuseMode.Store(3)
	refuseCount.Store(0)
	defer refuseMode.Store(0)
	runCMATest(t, 4, func(c *Comm) error {
		buf := make([]byte, 100<<10)
		if c.Rank() == 0 {
			for j := range buf {
				buf[j] = byte(j)
			}
		}
		if err := c.Bcast(buf, 0, WithAlgorithm("cma")); err != nil {
			return err
		}
		for j := range buf {
			if buf[j] != byte(j) {
				return fmt.Errorf("byte %d is %d on rank %d", j, buf[j], c.Rank())
			}
		}
		if st := c.cma.Load(); st != cmaOff {
			return fmt.Errorf("state %d after one rank's refused probe, want off", st)
		}
		if err := c.Alltoall(make([]byte, 4<<20), make([]byte, 4<<20)); err != nil {
			return err // selection without cma
		}
		return nil
	})
}

// TestCMARefusedAtRunTime: reads the kernel refuses after the ranks agreed
// on single copy (all of them, or every other one) are repaired by
// messages: every result is still right.
func TestCMARefusedAtRunTime(t *testing.T) {
	if refusedHere(t) {
		t.Skip("process_vm_readv refused here")
	}
	for _, mode := range []int32{1, 2} {
		for _, n := range []int{2, 3, 5} {
			t.Run(fmt.Sprintf("mode-%d/%d-ranks", mode, n), func(t *testing.T) {
				defer refuseMode.Store(0)
				runCMATest(t, n, func(c *Comm) error {
					if err := cmaCheck(c, 0, 64); err != nil { // agree first
						return err
					}
					if st := c.cma.Load(); st != cmaOn {
						return fmt.Errorf("single copy not agreed on (state %d)", st)
					}
					if err := c.Barrier(); err != nil {
						return err
					}
					if c.Rank() == 0 {
						refuseMode.Store(mode)
					}
					if err := c.Barrier(); err != nil {
						return err
					}
					for k := 1; k < 5; k++ {
						if err := cmaCheck(c, k, 5000+k); err != nil {
							return err
						}
					}
					return c.Barrier()
				})
			})
		}
	}
}

// TestCMAMismatch: ranks that disagree on the size get ErrMismatch (the
// rank that disagrees always; in the rooted Bcast the root too, since it
// waits for every reader), nobody hangs, and the calls after it work.
func TestCMAMismatch(t *testing.T) {
	for _, op := range []string{"bcast", "allgather", "alltoall", "gather"} {
		t.Run(op, func(t *testing.T) {
			runCMATest(t, 4, func(c *Comm) error {
				cma := WithAlgorithm("cma")
				if err := c.Bcast(make([]byte, 10), 0, cma); err != nil { // agree first
					return err
				}
				m := 70 << 10
				if c.Rank() == 2 {
					m += 8
				}
				var err error
				switch op {
				case "bcast":
					err = c.Bcast(make([]byte, m), 0, cma)
				case "allgather":
					err = c.Allgather(make([]byte, m), make([]byte, 4*m), cma)
				case "alltoall":
					err = c.Alltoall(make([]byte, 4*m), make([]byte, 4*m), cma)
				case "gather":
					err = c.Gather(make([]byte, m), make([]byte, 4*m), 0, cma)
				}
				if (c.Rank() == 2 || c.Rank() == 0) && !errors.Is(err, ErrMismatch) {
					return fmt.Errorf("%s with one rank's size different: %v on rank %d, want ErrMismatch", op, err, c.Rank())
				}
				if err != nil && !errors.Is(err, ErrMismatch) {
					return err
				}
				return cmaCheck(c, 3, 100)
			})
		})
	}
}
