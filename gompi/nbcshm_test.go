package gompi

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
	"unsafe"
)

// The nonblocking collectives on shared-memory steps (nbcshm.go) against a
// reference computed here, on in-process ranks: many calls outstanding on
// one communicator, blocking collectives between their starts, completed by
// Waitall, Test loops or Waits in reverse order; blocks small enough for the
// scratch area and too large for it (the goroutine path), side by side.

func nbcRun(t *testing.T, n int, fn func(c *Comm) error) {
	t.Helper()
	if Backend() != "go" {
		t.Skip("the shared-memory steps belong to the pure-Go runtime")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := RunContext(ctx, n, fn); err != nil {
		t.Fatal(err)
	}
}

func i32bytes(x []int32) []byte {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), 4*len(x))
}

// nbcVal is element j of rank r's data in call k.
func nbcVal(k, r, j int) int32 { return int32(j*31 + r*7 + k*1000 + j>>3) }

// nbcRound starts every supported nonblocking collective once (call number
// k, m int32 per block), with a blocking Allreduce among the starts, then
// completes them the way k says and checks every result.
func nbcRound(c *Comm, k, m int) error {
	n, me := c.Size(), c.Rank()
	root := k % n
	sum := Sum[int32]()
	vec := func(r int) []int32 {
		v := make([]int32, m)
		for j := range v {
			v[j] = nbcVal(k, r, j)
		}
		return v
	}
	sumTo := func(hi, j int) int32 {
		var s int32
		for r := 0; r < hi; r++ {
			s += nbcVal(k, r, j)
		}
		return s
	}
	var reqs []*Request
	var checks []func() error
	add := func(what string, r *Request, err error, check func() error) error {
		if err != nil {
			return fmt.Errorf("call %d, %s start: %w", k, what, err)
		}
		reqs = append(reqs, r)
		checks = append(checks, func() error {
			if err := check(); err != nil {
				return fmt.Errorf("call %d, %s, %d ranks, m %d, rank %d: %w", k, what, n, m, me, err)
			}
			return nil
		})
		return nil
	}
	want := func(got []int32, f func(j int) int32) error {
		for j := range got {
			if got[j] != f(j) {
				return fmt.Errorf("element %d is %d, want %d", j, got[j], f(j))
			}
		}
		return nil
	}

	r, err := c.Ibarrier()
	if err := add("Ibarrier", r, err, func() error { return nil }); err != nil {
		return err
	}
	bc := vec(me)
	r, err = c.Ibcast(i32bytes(bc), root)
	if err := add("Ibcast", r, err, func() error { return want(bc, func(j int) int32 { return nbcVal(k, root, j) }) }); err != nil {
		return err
	}
	ar := make([]int32, m)
	inPlace := k%2 == 1
	var arSend []byte
	if inPlace {
		arSend = InPlace[byte]()
		copy(ar, vec(me))
	} else {
		arSend = i32bytes(vec(me))
	}
	r, err = c.Iallreduce(arSend, i32bytes(ar), sum)
	if err := add("Iallreduce", r, err, func() error { return want(ar, func(j int) int32 { return sumTo(n, j) }) }); err != nil {
		return err
	}
	rd := make([]int32, m)
	r, err = c.Ireduce(i32bytes(vec(me)), i32bytes(rd), sum, root)
	if err := add("Ireduce", r, err, func() error {
		if me != root {
			return nil
		}
		return want(rd, func(j int) int32 { return sumTo(n, j) })
	}); err != nil {
		return err
	}

	// A blocking collective among the starts: it must not overtake them.
	chk := []int32{int32(me), int32(k)}
	if err := c.Allreduce(i32bytes(chk), i32bytes(chk), sum); err != nil { // in place
		return fmt.Errorf("call %d, blocking Allreduce: %w", k, err)
	}
	if chk[0] != int32(n*(n-1)/2) || chk[1] != int32(n*k) {
		return fmt.Errorf("call %d, blocking Allreduce: got %v", k, chk)
	}

	ag := make([]int32, n*m)
	r, err = c.Iallgather(i32bytes(vec(me)), i32bytes(ag))
	if err := add("Iallgather", r, err, func() error { return want(ag, func(j int) int32 { return nbcVal(k, j/m, j%m) }) }); err != nil {
		return err
	}
	// Alltoall: block d of rank s's row is vec(s)[d*m:(d+1)*m] of a row
	// of n*m elements.
	row := func(s int) []int32 {
		v := make([]int32, n*m)
		for j := range v {
			v[j] = nbcVal(k, s, j)
		}
		return v
	}
	at := make([]int32, n*m)
	r, err = c.Ialltoall(i32bytes(row(me)), i32bytes(at))
	if err := add("Ialltoall", r, err, func() error {
		return want(at, func(j int) int32 { return nbcVal(k, j/m, me*m+j%m) })
	}); err != nil {
		return err
	}
	ga := make([]int32, n*m)
	r, err = c.Igather(i32bytes(vec(me)), i32bytes(ga), root)
	if err := add("Igather", r, err, func() error {
		if me != root {
			return nil
		}
		return want(ga, func(j int) int32 { return nbcVal(k, j/m, j%m) })
	}); err != nil {
		return err
	}
	sc := make([]int32, m)
	var scSend []byte
	if me == root {
		scSend = i32bytes(row(root))
	}
	r, err = c.Iscatter(scSend, i32bytes(sc), root)
	if err := add("Iscatter", r, err, func() error { return want(sc, func(j int) int32 { return nbcVal(k, root, me*m+j) }) }); err != nil {
		return err
	}
	sn := make([]int32, m)
	r, err = c.Iscan(i32bytes(vec(me)), i32bytes(sn), sum)
	if err := add("Iscan", r, err, func() error { return want(sn, func(j int) int32 { return sumTo(me+1, j) }) }); err != nil {
		return err
	}
	ex := make([]int32, m)
	r, err = c.Iexscan(i32bytes(vec(me)), i32bytes(ex), sum)
	if err := add("Iexscan", r, err, func() error {
		if me == 0 {
			return nil
		}
		return want(ex, func(j int) int32 { return sumTo(me, j) })
	}); err != nil {
		return err
	}
	rs := make([]int32, m)
	r, err = c.IreduceScatterBlock(i32bytes(row(me)), i32bytes(rs), sum)
	if err := add("IreduceScatterBlock", r, err, func() error {
		return want(rs, func(j int) int32 {
			var s int32
			for q := 0; q < n; q++ {
				s += nbcVal(k, q, me*m+j)
			}
			return s
		})
	}); err != nil {
		return err
	}

	switch k % 3 {
	case 0:
		if err := Waitall(reqs, nil); err != nil {
			return fmt.Errorf("call %d: Waitall: %w", k, err)
		}
	case 1:
		for left := len(reqs); left > 0; {
			left = 0
			for i, r := range reqs {
				if r == nil {
					continue
				}
				_, done, err := r.Test()
				if err != nil {
					return fmt.Errorf("call %d: Test of call %d: %w", k, i, err)
				}
				if done {
					reqs[i] = nil
				} else {
					left++
				}
			}
		}
	case 2:
		for i := len(reqs) - 1; i >= 0; i-- {
			if _, err := reqs[i].Wait(); err != nil {
				return fmt.Errorf("call %d: Wait of call %d: %w", k, i, err)
			}
		}
	}
	for _, f := range checks {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

func TestNBCShmAgainstReference(t *testing.T) {
	ns := []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 17}
	if testing.Short() {
		ns = []int{1, 2, 3, 4, 8}
	}
	for _, n := range ns {
		// 2 and 100 int32 per block fit the scratch area everywhere; 3000
		// (12 KB, n² blocks for Alltoall and Reduce_scatter_block) fits
		// only some calls on few ranks: the others take the goroutine.
		for _, m := range []int{2, 100, 3000} {
			t.Run(fmt.Sprintf("n%d/m%d", n, m), func(t *testing.T) {
				nbcRun(t, n, func(c *Comm) error {
					for k := 0; k < 4; k++ {
						if err := nbcRound(c, k, m); err != nil {
							return err
						}
					}
					return c.Barrier()
				})
			})
		}
	}
}

// TestNBCShmUsed checks that the small calls of the reference test take the
// shared-memory step (the request is the engine's), and that GOMPI_NBC's
// switch sends them to the goroutine.
func TestNBCShmUsed(t *testing.T) {
	nbcRun(t, 3, func(c *Comm) error {
		r, err := c.Ibarrier()
		if err != nil {
			return err
		}
		if !isShmNBC(r) {
			return errors.New("Ibarrier on 3 ranks did not take the shared-memory step")
		}
		if _, err := r.Wait(); err != nil {
			return err
		}
		big := make([]byte, 1<<20)
		r, err = c.Ibcast(big, 0)
		if err != nil {
			return err
		}
		if isShmNBC(r) {
			return errors.New("a 1 MiB Ibcast took the shared-memory step")
		}
		_, err = r.Wait()
		return err
	})
}

// TestNBCShmStartIsLocal: a start never waits for another rank, even with
// calls outstanding on the communicator. Rank 0 starts two calls, then sends
// to rank 1, which receives before it starts the same two: waiting in a
// start would deadlock.
func TestNBCShmStartIsLocal(t *testing.T) {
	nbcRun(t, 2, func(c *Comm) error {
		v := []int32{int32(c.Rank() + 1)}
		out := make([]int32, 1)
		var rs []*Request
		start := func() error {
			r, err := c.Ibarrier()
			if err != nil {
				return err
			}
			rs = append(rs, r)
			r, err = c.Iallreduce(i32bytes(v), i32bytes(out), Sum[int32]())
			if err != nil {
				return err
			}
			rs = append(rs, r)
			r, err = c.Ibarrier()
			rs = append(rs, r)
			return err
		}
		msg := make([]byte, 8)
		if c.Rank() == 0 {
			if err := start(); err != nil {
				return err
			}
			if err := c.Send(msg, 1, 5); err != nil {
				return err
			}
		} else {
			if _, err := c.Recv(msg, 0, 5); err != nil {
				return err
			}
			if err := start(); err != nil {
				return err
			}
		}
		if err := Waitall(rs, nil); err != nil {
			return err
		}
		if out[0] != 3 {
			return fmt.Errorf("Iallreduce gave %d, want 3", out[0])
		}
		return nil
	})
}

// TestNBCShmPeerLost: a rank leaves instead of starting the call; the
// others' Wait, Waitall and Test loops end with ErrPeerLost instead of
// hanging.
func TestNBCShmPeerLost(t *testing.T) {
	for _, how := range []string{"Wait", "Waitall", "Test"} {
		t.Run(how, func(t *testing.T) {
			nbcRun(t, 3, func(c *Comm) error {
				if err := c.Barrier(); err != nil {
					return err
				}
				if c.Rank() == 2 {
					return nil // leaves
				}
				out := make([]int32, 2)
				r, err := c.Iallreduce(i32bytes([]int32{1, 2}), i32bytes(out), Sum[int32]())
				if err != nil {
					return err
				}
				switch how {
				case "Wait":
					_, err = r.Wait()
				case "Waitall":
					err = Waitall([]*Request{r}, nil)
				case "Test":
					for {
						var done bool
						_, done, err = r.Test()
						if done || err != nil {
							break
						}
						time.Sleep(time.Millisecond)
					}
				}
				if !errors.Is(err, ErrPeerLost) {
					return fmt.Errorf("%s with rank 2 gone: want ErrPeerLost, got %v", how, err)
				}
				return nil
			})
		})
	}
}

// TestNBCShmThenWindow: a window made on a communicator with nonblocking
// calls outstanding takes its own shared-memory steps on that communicator
// (not through a blocking collective): the calls before it complete first,
// with their results intact.
func TestNBCShmThenWindow(t *testing.T) {
	nbcRun(t, 3, func(c *Comm) error {
		v := []int32{int32(c.Rank() + 1), 10}
		out := make([]int32, 2)
		r, err := c.Iallreduce(i32bytes(v), i32bytes(out), Sum[int32]())
		if err != nil {
			return err
		}
		b, err := c.Ibarrier()
		if err != nil {
			return err
		}
		w, err := WinAllocate[int64](c, 4)
		if err != nil {
			return err
		}
		if err := w.Fence(); err != nil {
			return err
		}
		if err := w.Fence(); err != nil {
			return err
		}
		if err := Waitall([]*Request{r, b}, nil); err != nil {
			return err
		}
		if err := w.Free(); err != nil {
			return err
		}
		if out[0] != 6 || out[1] != 30 {
			return fmt.Errorf("Iallreduce gave %v, want [6 30]", out)
		}
		return nil
	})
}
