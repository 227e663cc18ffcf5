package suite

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gompi/gompi/gompi"
)

// Point-to-point cases.
var p2pCases = []Case{
	{"PingPongSizes", []int{2}, pingPongSizes},
	{"TruncationLeavesNextMessageIntact", []int{2}, truncationLeavesNextMessageIntact},
	{"SsendWaitsForReceive", []int{2}, ssendWaitsForReceive},
	{"ProgressWhileComputing", []int{2}, progressWhileComputing},
	{"WildcardsAndNonOvertaking", []int{4}, wildcardsAndNonOvertaking},
	{"MatchByTagKeepsUnexpected", []int{2}, matchByTagKeepsUnexpected},
	{"BadArguments", []int{2}, badArguments},
	{"NonblockingAndWaitFamily", []int{6}, nonblockingAndWaitFamily},
	{"CancelPendingReceive", []int{2}, cancelPendingReceive},
	{"PersistentRequests", []int{2}, persistentRequests},
	{"Probe", []int{2}, probe},
	{"BufferedSend", []int{2}, bufferedSend},
	{"DupAndSplitIsolateMessages", []int{7}, dupAndSplitIsolateMessages},
	{"ManyGoroutinesPerRank", []int{3}, manyGoroutinesPerRank},
	{"AllPairs17Ranks", []int{17}, allPairs17Ranks},
	{"TypedCount", []int{2}, typedCount},
	{"FloodWhileReceiverBusy", []int{2}, floodWhileReceiverBusy},
}

// pingPongSizes echoes messages of every size across the protocol
// boundaries and checks data and status.
func pingPongSizes(c *gompi.Comm) error {
	for _, n := range sizes {
		want := pattern(n, byte(n))
		buf := make([]byte, n)
		if c.Rank() == 0 {
			if err := c.Send(want, 1, 5); err != nil {
				return err
			}
			st, err := c.Recv(buf, 1, 6)
			if err != nil {
				return err
			}
			if st.Count != n || st.Source != 1 || st.Tag != 6 || !bytes.Equal(buf, want) {
				return fmt.Errorf("size %d: echo differs (status %+v)", n, st)
			}
		} else {
			if _, err := c.Recv(buf, 0, 5); err != nil {
				return err
			}
			if err := c.Send(buf, 0, 6); err != nil {
				return err
			}
		}
	}
	return nil
}

func truncationLeavesNextMessageIntact(c *gompi.Comm) error {
	for _, n := range []int{100, 10000} {
		if c.Rank() == 0 {
			if err := c.Send(pattern(n, 1), 1, 0); err != nil {
				return err
			}
			if err := c.Send(pattern(n, 2), 1, 0); err != nil {
				return err
			}
			continue
		}
		small := make([]byte, n/2)
		st, err := c.Recv(small, 0, 0)
		if !errors.Is(err, gompi.ErrTruncate) {
			return fmt.Errorf("%d bytes: want ErrTruncate, got %v", n, err)
		}
		var ge *gompi.Error
		if !errors.As(err, &ge) || ge.Peer != 0 || ge.Op != "Recv" {
			return fmt.Errorf("%d bytes: error does not say where: %#v", n, err)
		}
		if st.Count != n/2 {
			return fmt.Errorf("%d bytes: truncated receive counts %d bytes, want %d", n, st.Count, n/2)
		}
		// gompi stores what fits. Over MPI the contents are the library's
		// (the standard leaves them unspecified): Open MPI stores what fits
		// too, MPICH nothing of a message from another process.
		if gompi.Backend() != "mpich" && !bytes.Equal(small, pattern(n, 1)[:n/2]) {
			return fmt.Errorf("%d bytes: truncated receive stored the wrong bytes", n)
		}
		full := make([]byte, n)
		if _, err := c.Recv(full, 0, 0); err != nil {
			return err
		}
		if !bytes.Equal(full, pattern(n, 2)) {
			return fmt.Errorf("%d bytes: the message after a truncated one is corrupted", n)
		}
	}
	return nil
}

func ssendWaitsForReceive(c *gompi.Comm) error {
	for _, n := range []int{8, 100000} {
		if c.Rank() == 0 {
			start := time.Now()
			if err := c.Ssend(make([]byte, n), 1, 0); err != nil {
				return err
			}
			if time.Since(start) < 50*time.Millisecond {
				// Not a timing assertion on speed: the receiver sleeps
				// 100 ms before posting, so returning sooner is wrong.
				return fmt.Errorf("%d bytes: Ssend returned before the receive was posted", n)
			}
			continue
		}
		time.Sleep(100 * time.Millisecond)
		if _, err := c.Recv(make([]byte, n), 0, 0); err != nil {
			return err
		}
	}
	return nil
}

// progressWhileComputing posts receives, then computes, touching nothing of
// gompi but Request.Done: the receives must complete meanwhile (the large
// one is copied out of the sender during the computation). Over the pure-Go
// runtime a background goroutine progresses them; over MPI, Done itself
// tests the request (MPI_Test), which is the library's progress.
func progressWhileComputing(c *gompi.Comm) error {
	// In the second round the receiver waits (Probe) until the message is
	// there before posting its receive: the receive then matches a message
	// that already arrived, and the rest of a rendezvous must still progress.
	for _, late := range []bool{false, true} {
		for _, n := range []int{100, 1 << 20} {
			if c.Rank() == 0 {
				if err := c.Send(pattern(n, 9), 1, 0); err != nil {
					return err
				}
				continue
			}
			if late {
				if _, err := c.Probe(0, 0); err != nil {
					return err
				}
			}
			buf := make([]byte, n)
			r, err := c.Irecv(buf, 0, 0)
			if err != nil {
				return err
			}
			// "Compute" until the request is done.
			deadline := time.Now().Add(20 * time.Second)
			x := 0
			for !r.Done() {
				for i := 0; i < 1000; i++ {
					x += i * i
				}
				if time.Now().After(deadline) {
					return fmt.Errorf("%d bytes (receive posted %s): the receive made no progress while the rank computed",
						n, map[bool]string{false: "early", true: "after the message arrived"}[late])
				}
			}
			_ = x
			if !bytes.Equal(buf, pattern(n, 9)) {
				return fmt.Errorf("%d bytes: wrong data", n)
			}
			if _, err := r.Wait(); err != nil {
				return err
			}
		}
	}
	return nil
}

func wildcardsAndNonOvertaking(c *gompi.Comm) error {
	const perSender = 200
	if c.Rank() != 0 {
		for i := 0; i < perSender; i++ {
			msg := []byte{byte(c.Rank()), byte(i), byte(i >> 8)}
			// Alternate sizes across the eager/rendezvous boundary: order
			// must hold across protocols too.
			if i%10 == 9 {
				msg = append(msg, make([]byte, 5000)...)
			}
			if err := c.Send(msg, 0, i%3); err != nil {
				return err
			}
		}
		return nil
	}
	next := map[int]int{}
	buf := make([]byte, 6000)
	for k := 0; k < 3*perSender; k++ {
		st, err := c.Recv(buf, gompi.AnySource, gompi.AnyTag)
		if err != nil {
			return err
		}
		src, seq := int(buf[0]), int(buf[1])|int(buf[2])<<8
		if src != st.Source || seq%3 != st.Tag {
			return fmt.Errorf("status %+v does not describe message from %d seq %d", st, src, seq)
		}
		if seq != next[src] {
			return fmt.Errorf("from rank %d got message %d, want %d (overtaken)", src, seq, next[src])
		}
		next[src]++
	}
	return nil
}

func matchByTagKeepsUnexpected(c *gompi.Comm) error {
	if c.Rank() == 0 {
		for tag := 0; tag < 5; tag++ {
			if err := c.Send([]byte{byte(tag)}, 1, tag); err != nil {
				return err
			}
		}
		return c.Send(nil, 1, 99)
	}
	// Wait until everything is unexpected, then take it in reverse.
	if _, err := c.Recv(nil, 0, 99); err != nil {
		return err
	}
	for tag := 4; tag >= 0; tag-- {
		b := make([]byte, 1)
		if _, err := c.Recv(b, 0, tag); err != nil {
			return err
		}
		if b[0] != byte(tag) {
			return fmt.Errorf("tag %d carried %d", tag, b[0])
		}
	}
	return nil
}

func badArguments(c *gompi.Comm) error {
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"send rank", c.Send(nil, 2, 0), gompi.ErrRank},
		{"send negative rank", c.Send(nil, -5, 0), gompi.ErrRank},
		{"send AnyTag", c.Send(nil, 0, gompi.AnyTag), gompi.ErrTag},
		{"send big tag", c.Send(nil, 0, gompi.MaxTag+1), gompi.ErrTag},
		{"recv rank", func() error { _, err := c.Recv(nil, 7, 0); return err }(), gompi.ErrRank},
		{"recv tag", func() error { _, err := c.Recv(nil, 0, -7); return err }(), gompi.ErrTag},
		{"nil comm", (*gompi.Comm)(nil).Send(nil, 0, 0), gompi.ErrComm},
		{"nil request", func() error { _, err := (*gompi.Request)(nil).Wait(); return err }(), gompi.ErrRequest},
		{"pointer elements", gompi.Send(c, []string{"x"}, 0, 0), gompi.ErrArg},
		{"bsend no buffer", c.Bsend([]byte{1}, 0, 0), gompi.ErrBuffer},
	}
	for _, tc := range cases {
		if !errors.Is(tc.err, tc.want) {
			return fmt.Errorf("%s: got %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	// The world cannot be freed. (Under gompi.Run a case gets the world
	// itself; the driver of a real job hands it a duplicate.)
	if c.Name() == "world" {
		if err := c.Free(); !errors.Is(err, gompi.ErrComm) {
			return fmt.Errorf("free world: got %v, want %v", err, gompi.ErrComm)
		}
	}
	// ProcNull completes at once.
	if err := c.Send([]byte{1}, gompi.ProcNull, 0); err != nil {
		return err
	}
	st, err := c.Recv(make([]byte, 4), gompi.ProcNull, 0)
	if err != nil || st.Source != gompi.ProcNull || st.Count != 0 {
		return fmt.Errorf("recv from ProcNull: %+v %v", st, err)
	}
	return nil
}

func nonblockingAndWaitFamily(c *gompi.Comm) error {
	const n = 6
	me := c.Rank()
	sbufs := make([][]byte, n)
	rbufs := make([][]byte, n)
	var reqs []*gompi.Request
	for p := 0; p < n; p++ {
		rbufs[p] = make([]byte, 6000)
		r, err := c.Irecv(rbufs[p], p, 1)
		if err != nil {
			return err
		}
		reqs = append(reqs, r)
	}
	for p := 0; p < n; p++ {
		sbufs[p] = pattern(10+p*1000, byte(me))
		r, err := c.Isend(sbufs[p], p, 1)
		if err != nil {
			return err
		}
		reqs = append(reqs, r)
	}
	got := 0
	for got < len(reqs) {
		idx, _, err := gompi.Waitsome(reqs)
		if err != nil {
			return err
		}
		got += len(idx)
	}
	for _, r := range reqs {
		if r != nil {
			return errors.New("Waitsome left a completed request in the slice")
		}
	}
	for p := 0; p < n; p++ {
		want := pattern(10+me*1000, byte(p))
		if !bytes.Equal(rbufs[p][:len(want)], want) {
			return fmt.Errorf("from %d: wrong data", p)
		}
	}
	// Waitany over nothing live.
	if i, _, err := gompi.Waitany([]*gompi.Request{nil, nil}); i != gompi.Undefined || err != nil {
		return fmt.Errorf("Waitany over nils: %d %v", i, err)
	}
	return nil
}

func cancelPendingReceive(c *gompi.Comm) error {
	if c.Rank() == 1 {
		_, err := c.Recv(nil, 0, 1) // wait until rank 0 cancelled
		if err != nil {
			return err
		}
		return c.Send([]byte{42}, 0, 7)
	}
	b := make([]byte, 1)
	r, err := c.Irecv(b, 1, 7)
	if err != nil {
		return err
	}
	if err := r.Cancel(); err != nil {
		return err
	}
	st, err := r.Wait()
	if err != nil || !st.Cancelled {
		return fmt.Errorf("cancelled receive: %+v %v", st, err)
	}
	if err := c.Send(nil, 1, 1); err != nil {
		return err
	}
	// The message goes to the next receive, not to the cancelled buffer.
	b2 := make([]byte, 1)
	if _, err := c.Recv(b2, 1, 7); err != nil || b2[0] != 42 || b[0] != 0 {
		return fmt.Errorf("after cancel: b=%v b2=%v err=%v", b, b2, err)
	}
	return nil
}

func persistentRequests(c *gompi.Comm) error {
	peer := 1 - c.Rank()
	sbuf := make([]int64, 600) // 4800 bytes: rendezvous
	rbuf := make([]int64, 600)
	sr, err := gompi.SendInit(c, sbuf, peer, 0)
	if err != nil {
		return err
	}
	rr, err := gompi.RecvInit(c, rbuf, peer, 0)
	if err != nil {
		return err
	}
	reqs := []*gompi.Request{rr, sr}
	for it := 0; it < 50; it++ {
		for i := range sbuf {
			sbuf[i] = int64(it*1000 + i + c.Rank())
		}
		if err := gompi.Startall(reqs); err != nil {
			return err
		}
		if err := gompi.Waitall(reqs, nil); err != nil {
			return err
		}
		if reqs[0] == nil || reqs[1] == nil {
			return errors.New("Waitall dropped a persistent request")
		}
		for i := range rbuf {
			if rbuf[i] != int64(it*1000+i+peer) {
				return fmt.Errorf("iteration %d element %d: %d", it, i, rbuf[i])
			}
		}
	}
	if err := sr.Start(); err != nil {
		return err
	}
	if err := sr.Start(); !errors.Is(err, gompi.ErrRequest) {
		return fmt.Errorf("starting an active request: %v", err)
	}
	_, err = c.Recv(make([]byte, 4800), peer, 0)
	if err != nil {
		return err
	}
	_, err = sr.Wait()
	return err
}

func probe(c *gompi.Comm) error {
	if c.Rank() == 0 {
		return c.Send(pattern(12345, 3), 1, 9)
	}
	st, err := c.Probe(gompi.AnySource, gompi.AnyTag)
	if err != nil {
		return err
	}
	if st.Source != 0 || st.Tag != 9 || st.Count != 12345 {
		return fmt.Errorf("probe: %+v", st)
	}
	if _, ok, _ := c.Iprobe(0, 8); ok {
		return errors.New("Iprobe matched the wrong tag")
	}
	buf := make([]byte, st.Count)
	if _, err := c.Recv(buf, st.Source, st.Tag); err != nil {
		return err
	}
	if !bytes.Equal(buf, pattern(12345, 3)) {
		return errors.New("probed message corrupted")
	}
	return nil
}

// bufferedSend fills the attached buffer with sends that cannot complete
// yet (rank 1 posts no receive until told to, and the messages are larger
// than any transport sends eagerly), so one more must fail with ErrBuffer;
// detaching then waits for them.
func bufferedSend(c *gompi.Comm) error {
	const size = 256 << 10
	if c.Rank() == 1 {
		if _, err := c.Recv(nil, 0, 9); err != nil {
			return err
		}
		for i := 0; i < 3; i++ {
			b := make([]byte, size)
			if _, err := c.Recv(b, 0, i); err != nil {
				return err
			}
			if !bytes.Equal(b, pattern(size, byte(i))) {
				return fmt.Errorf("buffered message %d corrupted", i)
			}
		}
		return nil
	}
	if err := c.BufferAttach(make([]byte, 2*(size+gompi.BsendOverhead))); err != nil {
		return err
	}
	for i := 0; i < 2; i++ {
		msg := pattern(size, byte(i))
		if err := c.Bsend(msg, 1, i); err != nil {
			return err
		}
		clear(msg) // the message was copied: reusing the buffer is safe
	}
	if err := c.Bsend(make([]byte, size), 1, 5); !errors.Is(err, gompi.ErrBuffer) {
		return fmt.Errorf("overfull buffer: want ErrBuffer, got %v", err)
	}
	if err := c.Send(nil, 1, 9); err != nil {
		return err
	}
	if _, err := c.BufferDetach(); err != nil {
		return err
	}
	return c.Send(pattern(size, 2), 1, 2)
}

func dupAndSplitIsolateMessages(c *gompi.Comm) error {
	d, err := c.Dup()
	if err != nil {
		return err
	}
	// Split by parity, ordered by descending rank.
	s, err := c.Split(c.Rank()%2, -c.Rank())
	if err != nil {
		return err
	}
	wantSize := 4 - c.Rank()%2
	if s.Size() != wantSize {
		return fmt.Errorf("split size %d, want %d", s.Size(), wantSize)
	}
	// Same (source, tag) on three communicators: each receive gets its own.
	peer := (c.Rank() + 1) % c.Size()
	from := (c.Rank() - 1 + c.Size()) % c.Size()
	if err := c.Send([]byte("world"), peer, 0); err != nil {
		return err
	}
	if err := d.Send([]byte("dup"), peer, 0); err != nil {
		return err
	}
	sp := (s.Rank() + 1) % s.Size()
	sf := (s.Rank() - 1 + s.Size()) % s.Size()
	if err := s.Send([]byte("split"), sp, 0); err != nil {
		return err
	}
	for _, x := range []struct {
		c    *gompi.Comm
		from int
		want string
	}{{s, sf, "split"}, {d, from, "dup"}, {c, from, "world"}} {
		b := make([]byte, 8)
		st, err := x.c.Recv(b, x.from, 0)
		if err != nil {
			return err
		}
		if string(b[:st.Count]) != x.want {
			return fmt.Errorf("on %s got %q", x.c.Name(), b[:st.Count])
		}
	}
	// World rank of split rank 0 is the largest of my parity.
	top := c.Size() - 1
	if top%2 != c.Rank()%2 {
		top--
	}
	if s.WorldRank(0) != top {
		return fmt.Errorf("split rank 0 is world %d, want %d", s.WorldRank(0), top)
	}
	u, err := c.Split(gompi.Undefined, 0)
	if err != nil || u != nil {
		return fmt.Errorf("Undefined color: %v %v", u, err)
	}
	if err := d.Free(); err != nil {
		return err
	}
	if err := d.Send(nil, 0, 0); !errors.Is(err, gompi.ErrComm) {
		return fmt.Errorf("freed comm: %v", err)
	}
	return nil
}

func manyGoroutinesPerRank(c *gompi.Comm) error {
	const workers, msgs = 8, 100
	var wg sync.WaitGroup
	errs := make(chan error, 2*workers)
	right, left := (c.Rank()+1)%c.Size(), (c.Rank()+c.Size()-1)%c.Size()
	for w := 0; w < workers; w++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < msgs; i++ {
				if err := gompi.Send(c, []int32{int32(w), int32(i)}, right, w); err != nil {
					errs <- err
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			b := make([]int32, 2)
			for i := 0; i < msgs; i++ {
				if _, err := gompi.Recv(c, b, left, w); err != nil {
					errs <- err
					return
				}
				if b[0] != int32(w) || b[1] != int32(i) {
					errs <- fmt.Errorf("worker %d got %v at %d", w, b, i)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func allPairs17Ranks(c *gompi.Comm) error {
	const n = 17
	for round := 1; round < n; round++ {
		to, from := (c.Rank()+round)%n, (c.Rank()-round+n)%n
		size := round * 500
		rb := make([]byte, size)
		if _, err := c.Sendrecv(pattern(size, byte(c.Rank())), to, round, rb, from, round); err != nil {
			return err
		}
		if !bytes.Equal(rb, pattern(size, byte(from))) {
			return fmt.Errorf("round %d from %d: wrong data", round, from)
		}
	}
	return nil
}

func typedCount(c *gompi.Comm) error {
	type point struct{ X, Y float64 }
	if c.Rank() == 0 {
		return gompi.Send(c, []point{{1, 2}, {3, 4}, {5, 6}}, 1, 0)
	}
	buf := make([]point, 10)
	st, err := gompi.Recv(c, buf, 0, 0)
	if err != nil {
		return err
	}
	if gompi.Count[point](st) != 3 || buf[2] != (point{5, 6}) {
		return fmt.Errorf("typed receive: %d %v", gompi.Count[point](st), buf[:3])
	}
	if gompi.Count[[7]byte](st) != gompi.Undefined {
		return errors.New("Count of a ragged message should be Undefined")
	}
	return nil
}

// floodWhileReceiverBusy sends far more than the fast box and the cell pool
// of the pure-Go runtime can hold while the receiver is busy elsewhere: the
// sender must wait, nothing may be lost, and the order must hold.
func floodWhileReceiverBusy(c *gompi.Comm) error {
	const count = 3000
	if c.Rank() == 0 {
		for i := 0; i < count; i++ {
			n := []int{8, 900, 3000}[i%3]
			msg := pattern(n, byte(i))
			msg[0] = byte(i)
			msg[1] = byte(i >> 8)
			if err := c.Send(msg, 1, 0); err != nil {
				return err
			}
		}
		return nil
	}
	time.Sleep(50 * time.Millisecond)
	buf := make([]byte, 3000)
	for i := 0; i < count; i++ {
		st, err := c.Recv(buf, 0, 0)
		if err != nil {
			return err
		}
		n := []int{8, 900, 3000}[i%3]
		want := pattern(n, byte(i))
		want[0], want[1] = byte(i), byte(i>>8)
		if st.Count != n || !bytes.Equal(buf[:n], want) {
			return fmt.Errorf("message %d: %d bytes, wrong content or order", i, st.Count)
		}
	}
	return nil
}
