//go:build !mpi && !mpich

package gompi_test

import (
	"testing"

	"github.com/gompi/gompi/gompi"
	"github.com/gompi/gompi/trace"
)

// TestTraceMatchedProbesAndConstructors: a traced run of the calls added
// with matched probes, groups and topologies reads back with every call
// recorded and each message matched to the receive that got it: an Mrecv
// or an Imrecv's completion to the send of the message its probe took.
func TestTraceMatchedProbesAndConstructors(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GOMPI_TRACE", dir)
	const n = 3
	run(t, n, func(c *gompi.Comm) error {
		me := c.Rank()
		switch me {
		case 0:
			// Two messages of tag 5 (8 then 16 bytes) and one of tag 6.
			for _, size := range []int{8, 16} {
				if err := c.Send(make([]byte, size), 1, 5); err != nil {
					return err
				}
			}
			if err := c.Send(make([]byte, 4), 1, 6); err != nil {
				return err
			}
			if _, err := c.Recv(make([]byte, 4), 2, 7); err != nil {
				return err
			}
		case 1:
			m1, _, err := c.Mprobe(0, 5)
			if err != nil {
				return err
			}
			var m2 *gompi.Message
			for m2 == nil {
				if m2, _, _, err = c.Improbe(0, 5); err != nil {
					return err
				}
			}
			r2, err := m2.Irecv(make([]byte, 16))
			if err != nil {
				return err
			}
			if _, err := m1.Recv(make([]byte, 8)); err != nil {
				return err
			}
			for reqs := []*gompi.Request{r2}; reqs[0] != nil; {
				if _, _, _, err := gompi.Testsome(reqs); err != nil {
					return err
				}
			}
			if _, err := c.Recv(make([]byte, 4), 0, 6); err != nil {
				return err
			}
		case 2:
			p, err := c.SendInit(make([]byte, 4), 0, 7)
			if err != nil {
				return err
			}
			if err := p.Start(); err != nil {
				return err
			}
			if _, err := p.Wait(); err != nil {
				return err
			}
			if err := p.Free(); err != nil {
				return err
			}
		}
		if _, err := c.SendrecvReplace(make([]byte, 8), (me+1)%n, 9, (me+n-1)%n, 9); err != nil {
			return err
		}
		// The constructors: each is one event of its own.
		g, err := c.Group().Incl([]int{0, 1})
		if err != nil {
			return err
		}
		if _, err := c.Create(g); err != nil {
			return err
		}
		if me < 2 {
			if _, err := c.CreateGroup(g, 3); err != nil {
				return err
			}
		}
		if _, err := c.SplitType(gompi.SplitShared, 0); err != nil {
			return err
		}
		if _, err := c.CartCreate([]int{n}, []bool{true}, false); err != nil {
			return err
		}
		return c.Barrier()
	})
	tr, err := trace.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{} // routine name → events, over every rank
	for _, rt := range tr.Ranks {
		for i := range rt.Events {
			count[rt.Name(&rt.Events[i])]++
		}
	}
	for name, want := range map[string]int{"Mprobe": 1, "Mrecv": 1, "Imrecv": 1, "Sendrecv_replace": n,
		"Request_free": 1, "Comm_create": n, "Comm_create_group": 2, "Comm_split_type": n, "Cart_create": n} {
		if count[name] != want {
			t.Errorf("%d %s events, want %d (all: %v)", count[name], name, want, count)
		}
	}
	if count["Improbe"] < 1 || count["Testsome"] < 1 {
		t.Errorf("no Improbe or Testsome event: %v", count)
	}
	if len(tr.Messages) != 7 || tr.Match.UnmatchedSends+tr.Match.UnmatchedRecvs+tr.Match.Incomplete != 0 {
		t.Errorf("matched %d messages (want 7): %+v", len(tr.Messages), tr.Match)
	}
	type pair struct {
		send, done, recv, rdone string
		bytes                   int64
	}
	got := map[pair]int{}
	for _, m := range tr.Messages {
		name := func(x trace.EventRef) string { return tr.Ranks[x.Rank].Name(tr.Event(x)) }
		got[pair{name(m.Send), name(m.SendDone), name(m.Recv), name(m.RecvDone), m.Bytes}]++
	}
	for p, want := range map[pair]int{
		{"Send", "Send", "Mprobe", "Mrecv", 8}:                                              1,
		{"Send", "Send", "Improbe", "Wait", 16}:                                             1, // Testsome reports each completion as a Wait
		{"Send", "Send", "Recv", "Recv", 4}:                                                 1,
		{"Start", "Wait", "Recv", "Recv", 4}:                                                1,
		{"Sendrecv_replace", "Sendrecv_replace", "Sendrecv_replace", "Sendrecv_replace", 8}: 3,
	} {
		if got[p] != want {
			t.Errorf("%+v: %d messages, want %d (all: %v)", p, got[p], want, got)
		}
	}
}
