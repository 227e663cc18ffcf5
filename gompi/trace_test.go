//go:build !mpi && !mpich

package gompi_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/gompi/gompi/gompi"
)

type recorder struct {
	mu     sync.Mutex
	events []string
	open   map[uint64]gompi.Event
	next   uint64
}

func (r *recorder) Begin(ev gompi.Event) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	r.open[r.next] = ev
	return r.next
}

func (r *recorder) End(tok uint64, st gompi.Status, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev := r.open[tok]
	delete(r.open, tok)
	rank := -1
	if ev.Comm != nil {
		rank = ev.Comm.Rank()
	}
	r.events = append(r.events, fmt.Sprintf("%d:%s peer=%d tag=%d bytes=%d err=%v", rank, ev.Routine, ev.Peer, ev.Tag, ev.Bytes, err != nil))
}

func TestTracerSeesEveryCall(t *testing.T) {
	rec := &recorder{open: map[uint64]gompi.Event{}}
	gompi.SetTracer(rec)
	defer gompi.SetTracer(nil)
	run(t, 2, func(c *gompi.Comm) error {
		if c.Rank() == 0 {
			if err := c.Send(make([]byte, 10), 1, 3); err != nil {
				return err
			}
			if err := c.Send(nil, 5, 0); !errors.Is(err, gompi.ErrRank) {
				return err
			}
		} else if _, err := c.Recv(make([]byte, 10), 0, 3); err != nil {
			return err
		}
		return c.Barrier()
	})
	want := []string{
		"0:Send peer=1 tag=3 bytes=10 err=false",
		"0:Send peer=5 tag=0 bytes=0 err=true",
		"1:Recv peer=0 tag=3 bytes=10 err=false",
		"0:Barrier peer=-1 tag=-1 bytes=-1 err=false",
		"1:Barrier peer=-1 tag=-1 bytes=-1 err=false",
	}
	got := map[string]bool{}
	for _, e := range rec.events {
		got[e] = true
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("tracer did not see %q; saw %v", w, rec.events)
		}
	}
	if len(rec.open) != 0 {
		t.Errorf("%d calls began and never ended", len(rec.open))
	}
}

func TestBlockingTimeout(t *testing.T) {
	t.Setenv("GOMPI_TIMEOUT", "150ms")
	err := gompi.Run(2, func(c *gompi.Comm) error {
		_, err := c.Recv(make([]byte, 4), 1-c.Rank(), 0) // both receive: nothing comes
		if !errors.Is(err, gompi.ErrTimeout) {
			return fmt.Errorf("want ErrTimeout, got %v", err)
		}
		// The timed-out receive was withdrawn: a later message goes to the
		// next receive, not into the abandoned buffer.
		if c.Rank() == 0 {
			return c.Send([]byte{1, 2, 3, 4}, 1, 0)
		}
		b := make([]byte, 4)
		if _, err := c.Recv(b, 0, 0); err != nil || b[3] != 4 {
			return fmt.Errorf("after the timeout: %v %v", b, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOMPI_TIMEOUT", "soon")
	if err := gompi.Run(1, func(*gompi.Comm) error { return nil }); err == nil {
		t.Error("a malformed GOMPI_TIMEOUT should be refused")
	}
}

// TestTracerSeesRequests: waits carry their request and communicator, and
// the calls over several requests and on persistent requests are seen.
func TestTracerSeesRequests(t *testing.T) {
	type seen struct {
		routine gompi.Routine
		comm    *gompi.Comm
		req     *gompi.Request
	}
	var mu sync.Mutex
	var evs []seen
	gompi.SetTracer(tracerFunc(func(ev gompi.Event) {
		mu.Lock()
		evs = append(evs, seen{ev.Routine, ev.Comm, ev.Req})
		mu.Unlock()
	}))
	defer gompi.SetTracer(nil)
	var sendReq *gompi.Request
	var world *gompi.Comm
	run(t, 2, func(c *gompi.Comm) error {
		peer := 1 - c.Rank()
		r, err := c.Isend([]byte{1}, peer, 0)
		if err != nil {
			return err
		}
		if c.Rank() == 0 {
			sendReq, world = r, c
		}
		p, err := c.RecvInit(make([]byte, 1), peer, 0)
		if err != nil {
			return err
		}
		if err := gompi.Startall([]*gompi.Request{p}); err != nil {
			return err
		}
		return gompi.Waitall([]*gompi.Request{r, p}, nil)
	})
	has := func(rt gompi.Routine, c *gompi.Comm, r *gompi.Request) bool {
		for _, e := range evs {
			if e.routine == rt && (c == nil || e.comm == c) && (r == nil || e.req == r) {
				return true
			}
		}
		return false
	}
	for _, w := range []struct {
		rt   gompi.Routine
		c    *gompi.Comm
		r    *gompi.Request
		what string
	}{
		{gompi.RoutineStartall, nil, nil, "Startall"},
		{gompi.RoutineStart, nil, nil, "the Start inside Startall"},
		{gompi.RoutineWaitall, nil, nil, "Waitall"},
		{gompi.RoutineWait, world, sendReq, "rank 0's Wait on its Isend request, with its communicator"},
	} {
		if !has(w.rt, w.c, w.r) {
			t.Errorf("the tracer did not see %s", w.what)
		}
	}
}

// tracerFunc is a Tracer that reports each Begin.
type tracerFunc func(gompi.Event)

func (f tracerFunc) Begin(ev gompi.Event) uint64   { f(ev); return 0 }
func (tracerFunc) End(uint64, gompi.Status, error) {}
