//go:build !mpi && !mpich

package gompi_test

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gompi/gompi/gompi"
)

// Run starts ranks as goroutines; the same function runs as processes under
// golaunch (Init, World) or mpirun (-tags mpi).
func ExampleRun() {
	var mu sync.Mutex
	sizes := map[int]int{}
	err := gompi.Run(4, func(world *gompi.Comm) error {
		mu.Lock()
		sizes[world.Rank()] = world.Size()
		mu.Unlock()
		return nil
	})
	fmt.Println(sizes, err)
	// Output: map[0:4 1:4 2:4 3:4] <nil>
}

// Send and Recv move slices of any fixed-size element type.
func ExampleSend() {
	gompi.Run(2, func(c *gompi.Comm) error {
		if c.Rank() == 0 {
			return gompi.Send(c, []float64{1.5, 2.5}, 1, 7)
		}
		buf := make([]float64, 4)
		st, err := gompi.Recv(c, buf, 0, gompi.AnyTag)
		n := gompi.Count[float64](st)
		fmt.Println(buf[:n], "from", st.Source, "tag", st.Tag, err)
		return err
	})
	// Output: [1.5 2.5] from 0 tag 7 <nil>
}

// Allreduce combines every rank's vector; the operator is typed by element,
// so gompi.Sum[int32]() on these []float64 would not compile.
func ExampleAllreduce() {
	gompi.Run(3, func(c *gompi.Comm) error {
		in := []float64{float64(c.Rank()), 1}
		out := make([]float64, 2)
		err := gompi.Allreduce(c, in, out, gompi.Sum[float64]())
		if c.Rank() == 0 {
			fmt.Println(out, err)
		}
		return err
	})
	// Output: [3 3] <nil>
}

// InPlace takes the input from the receive buffer and leaves the result
// there.
func ExampleInPlace() {
	gompi.Run(4, func(c *gompi.Comm) error {
		v := []int32{int32(c.Rank())}
		err := gompi.Allreduce(c, gompi.InPlace[int32](), v, gompi.Max[int32]())
		if c.Rank() == 0 {
			fmt.Println(v, err)
		}
		return err
	})
	// Output: [3] <nil>
}

// NewOp makes an operator of your own; it need not be commutative.
func ExampleNewOp() {
	type span struct{ Lo, Hi int32 }
	join := gompi.NewOp("join", true, func(in, inout []span) {
		for i := range inout {
			inout[i].Lo = min(in[i].Lo, inout[i].Lo)
			inout[i].Hi = max(in[i].Hi, inout[i].Hi)
		}
	})
	gompi.Run(3, func(c *gompi.Comm) error {
		r := int32(c.Rank())
		out := make([]span, 1)
		err := gompi.Allreduce(c, []span{{r * 10, r*10 + 5}}, out, join)
		if c.Rank() == 0 {
			fmt.Println(out[0], err)
		}
		return err
	})
	// Output: {0 25} <nil>
}

// Sendrecv passes values around a ring without deadlock.
func ExampleSendrecv() {
	gompi.Run(3, func(c *gompi.Comm) error {
		me, n := c.Rank(), c.Size()
		got := []int{-1}
		_, err := gompi.Sendrecv(c, []int{me}, (me+1)%n, 0, got, (me+n-1)%n, 0)
		if me == 0 {
			fmt.Println("rank 0 got", got[0], err)
		}
		return err
	})
	// Output: rank 0 got 2 <nil>
}

// Mprobe takes a message out of matching, so the goroutine that sized the
// buffer is the one that receives it, even with other receivers around.
func ExampleComm_Mprobe() {
	gompi.Run(2, func(c *gompi.Comm) error {
		if c.Rank() == 0 {
			return c.Send([]byte("hello"), 1, 3)
		}
		m, st, err := c.Mprobe(gompi.AnySource, gompi.AnyTag)
		if err != nil {
			return err
		}
		buf := make([]byte, st.Count)
		_, err = m.Recv(buf)
		fmt.Printf("%q from %d\n", buf, st.Source)
		return err
	})
	// Output: "hello" from 0
}

// Waitall's error says which request failed and why.
func ExampleWaitall() {
	gompi.Run(2, func(c *gompi.Comm) error {
		if c.Rank() == 0 {
			c.Send(make([]byte, 2), 1, 0)
			return c.Send(make([]byte, 100), 1, 0)
		}
		r0, _ := c.Irecv(make([]byte, 8), 0, 0)
		r1, _ := c.Irecv(make([]byte, 8), 0, 0)
		err := gompi.Waitall([]*gompi.Request{r0, r1}, nil)
		for _, re := range gompi.RequestErrors(err) {
			var e *gompi.Error
			errors.As(re, &e)
			fmt.Println("request", re.Index, errors.Is(re, gompi.ErrTruncate), e.MessageBytes, "bytes for", e.BufferBytes)
		}
		return nil
	})
	// Output: request 1 true 100 bytes for 8
}

// CartCreate lays ranks on a grid; CartShift names the neighbours of a halo
// exchange (ProcNull past a non-periodic edge).
func ExampleComm_CartCreate() {
	gompi.Run(6, func(c *gompi.Comm) error {
		dims := []int{0, 0}
		if err := gompi.DimsCreate(c.Size(), dims); err != nil {
			return err
		}
		grid, err := c.CartCreate(dims, []bool{false, true}, false)
		if err != nil {
			return err
		}
		defer grid.Free()
		up, down, _ := grid.CartShift(0, 1)
		left, right, _ := grid.CartShift(1, 1)
		if grid.Rank() == 0 {
			coords, _ := grid.CartCoords(0)
			fmt.Println(dims, coords, up == gompi.ProcNull, down, left, right)
		}
		return nil
	})
	// Output: [3 2] [0 0] true 2 1 1
}

// Group operations pick ranks; Create makes a communicator of them.
func ExampleComm_Create() {
	gompi.Run(5, func(c *gompi.Comm) error {
		evens, err := c.Group().Incl([]int{0, 2, 4})
		if err != nil {
			return err
		}
		sub, err := c.Create(evens)
		if err != nil || sub == nil {
			return err
		}
		defer sub.Free()
		if c.Rank() == 4 {
			fmt.Println("world rank 4 is rank", sub.Rank(), "of", sub.Size())
		}
		return nil
	})
	// Output: world rank 4 is rank 2 of 3
}

// Only the members of the group call CreateGroup: here ranks 1 and 3 make
// a communicator of their own while the others go on without them.
func ExampleComm_CreateGroup() {
	gompi.Run(4, func(c *gompi.Comm) error {
		if c.Rank()%2 == 0 {
			return nil // not in the group: no call at all
		}
		odds, err := c.Group().Incl([]int{3, 1})
		if err != nil {
			return err
		}
		pair, err := c.CreateGroup(odds, 0)
		if err != nil {
			return err
		}
		defer pair.Free()
		sum := make([]int, 1)
		if err := gompi.Allreduce(pair, []int{c.Rank()}, sum, gompi.Sum[int]()); err != nil {
			return err
		}
		if pair.Rank() == 0 {
			fmt.Println("world rank", c.Rank(), "is rank 0 of", pair.Size(), "; sum", sum[0])
		}
		return nil
	})
	// Output: world rank 3 is rank 0 of 2 ; sum 4
}
