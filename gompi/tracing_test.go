//go:build !mpi && !mpich

package gompi_test

import (
	"strings"
	"testing"

	"github.com/gompi/gompi/gompi"
	"github.com/gompi/gompi/trace"
)

// TestTraceEveryP2PForm: with GOMPI_TRACE set, a run that uses every
// point-to-point form leaves a trace in which each message is matched to its
// receive, with call sites in this file and request ids tying posts to waits.
func TestTraceEveryP2PForm(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GOMPI_TRACE", dir)
	const n = 3
	run(t, n, func(c *gompi.Comm) error {
		me := c.Rank()
		b := make([]byte, 8)
		if me == 0 {
			// Blocking forms to 1, nonblocking to 2, persistent to 1.
			for _, send := range []func([]byte, int, int) error{c.Send, c.Ssend} {
				if err := send(b, 1, 5); err != nil {
					return err
				}
			}
			r1, err := c.Isend(b, 2, 6)
			if err != nil {
				return err
			}
			r2, err := c.Issend(b, 2, 7)
			if err != nil {
				return err
			}
			if err := gompi.Waitall([]*gompi.Request{r1, r2}, nil); err != nil {
				return err
			}
			p, err := c.SendInit(b, 1, 8)
			if err != nil {
				return err
			}
			for i := 0; i < 2; i++ {
				if err := p.Start(); err != nil {
					return err
				}
				if _, err := p.Wait(); err != nil {
					return err
				}
			}
		}
		if me == 1 {
			// ANY_SOURCE and ANY_TAG, then a persistent receive with wildcards.
			if _, err := c.Recv(b, gompi.AnySource, 5); err != nil {
				return err
			}
			if _, err := c.Recv(b, 0, gompi.AnyTag); err != nil {
				return err
			}
			p, err := c.RecvInit(b, gompi.AnySource, gompi.AnyTag)
			if err != nil {
				return err
			}
			for i := 0; i < 2; i++ {
				if err := gompi.Startall([]*gompi.Request{p}); err != nil {
					return err
				}
				for {
					_, done, err := p.Test()
					if err != nil {
						return err
					}
					if done {
						break
					}
				}
			}
		}
		if me == 2 {
			r, err := c.Irecv(b, gompi.AnySource, gompi.AnyTag)
			if err != nil {
				return err
			}
			if _, err := r.Wait(); err != nil {
				return err
			}
			if _, err := c.Recv(b, 0, 7); err != nil {
				return err
			}
		}
		// A ring of Sendrecv on a split communicator.
		d, err := c.Split(0, -me)
		if err != nil {
			return err
		}
		_, err = d.Sendrecv(b, (d.Rank()+1)%n, 9, make([]byte, 8), (d.Rank()+n-1)%n, 9)
		if err != nil {
			return err
		}
		if err := d.Barrier(); err != nil {
			return err
		}
		ib, err := d.Ibarrier()
		if err != nil {
			return err
		}
		if _, err := ib.Wait(); err != nil {
			return err
		}
		return c.Barrier()
	})
	tr, err := trace.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Dropped != 0 {
		t.Errorf("%d records dropped", tr.Dropped)
	}
	// 2 blocking + 2 nonblocking + 2 persistent + 3 Sendrecv.
	if len(tr.Messages) != 9 || tr.Match.UnmatchedSends+tr.Match.UnmatchedRecvs+tr.Match.Incomplete != 0 {
		t.Errorf("matched %d messages (want 9): %+v", len(tr.Messages), tr.Match)
	}
	type pair struct{ send, done, recv, rdone string }
	got := map[pair]int{}
	for _, m := range tr.Messages {
		name := func(x trace.EventRef) string { return tr.Ranks[x.Rank].Name(tr.Event(x)) }
		got[pair{name(m.Send), name(m.SendDone), name(m.Recv), name(m.RecvDone)}]++
		if tr.Event(m.RecvDone).T1 < tr.Event(m.Send).T0 {
			t.Errorf("message %+v received before it was sent", m)
		}
	}
	for p, want := range map[pair]int{
		{"Send", "Send", "Recv", "Recv"}:                 1,
		{"Ssend", "Ssend", "Recv", "Recv"}:               1,
		{"Isend", "Wait", "Irecv", "Wait"}:               1,
		{"Issend", "Wait", "Recv", "Recv"}:               1,
		{"Start", "Wait", "Start", "Test"}:               2,
		{"Sendrecv", "Sendrecv", "Sendrecv", "Sendrecv"}: 3,
	} {
		if got[p] != want {
			t.Errorf("%+v: %d messages, want %d (all: %v)", p, got[p], want, got)
		}
	}
	rt := tr.Ranks[0]
	for i := range rt.Events {
		e := &rt.Events[i]
		if rt.Name(e) == "Send" && !strings.Contains(rt.Site(e), "tracing_test.go:") {
			t.Errorf("Send's call site is %q, want a line of tracing_test.go", rt.Site(e))
		}
	}
	// The split communicator is in the trace with its members in its rank
	// order (keys -me: world ranks 2, 1, 0), and its messages carry its id;
	// every collective names the algorithm it ran.
	var sub uint32
	for _, m := range tr.Messages {
		if m.Comm != 1 {
			sub = m.Comm
		}
	}
	if got := tr.Comms[sub]; len(got) != n || got[0] != 2 || got[1] != 1 || got[2] != 0 {
		t.Errorf("communicator %d has members %v, want [2 1 0]", sub, got)
	}
	for _, rt := range tr.Ranks {
		for i := range rt.Events {
			if e := &rt.Events[i]; (rt.Name(e) == "Barrier" || rt.Name(e) == "Ibarrier") && rt.String(e.Algo) == "" {
				t.Errorf("rank %d: a %s without its algorithm", rt.Rank, rt.Name(e))
			}
		}
	}
	if tr.Manifest.Ranks != n || len(tr.Manifest.Hosts) != n {
		t.Errorf("manifest %+v", tr.Manifest)
	}
}

// TestTraceWindowCalls: one-sided calls are in the trace file under their
// names, with the target as a world rank and the bytes moved.
func TestTraceWindowCalls(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GOMPI_TRACE", dir)
	run(t, 2, func(c *gompi.Comm) error {
		w, err := fencedPut(c)
		if err != nil {
			return err
		}
		return w.Free()
	})
	tr, err := trace.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range tr.Ranks {
		count := map[string]int{}
		for i := range rt.Events {
			e := &rt.Events[i]
			count[rt.Name(e)]++
			if rt.Name(e) == "Put" && (int(e.Peer) != 1-rt.Rank || e.Bytes != 8) {
				t.Errorf("rank %d: Put to %d of %d bytes, want to %d of 8", rt.Rank, e.Peer, e.Bytes, 1-rt.Rank)
			}
		}
		for name, n := range map[string]int{"Win_allocate": 1, "Win_fence": 2, "Put": 1, "Win_free": 1} {
			if count[name] != n {
				t.Errorf("rank %d: %d %s records, want %d (all: %v)", rt.Rank, count[name], name, n, count)
			}
		}
	}
}
