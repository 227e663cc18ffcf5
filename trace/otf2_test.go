package trace

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// synthetic makes a job of n ranks: rounds of a ring of messages (Isend,
// Recv, Wait inside Waitall), a Barrier and a Bcast from rank 1 on a
// sub-communicator of the odd ranks.
func synthetic(n, rounds int) *Trace {
	names := []string{1: "Isend", 2: "Recv", 3: "Waitall", 4: "Wait", 5: "Barrier", 6: "Bcast"}
	t := &Trace{Ranks: make([]*RankTrace, n)}
	for r := range t.Ranks {
		rt := &RankTrace{Rank: r, Size: n, Routines: names, Strings: []string{""}, Info: map[string]string{"host": "h"}}
		ns := int64(0)
		add := func(rec Record, d int64) {
			rec.Start, rec.End = ns, ns+d
			rec.StSource = PeerNone
			rt.Events = append(rt.Events, Event{Record: rec})
			ns += d + 10
		}
		for k := 0; k < rounds; k++ {
			ns = int64(k) * 10000
			add(Record{Routine: 1, Comm: 1, Peer: int32((r + 1) % n), Tag: 3, Bytes: 8, Req: 7}, 100)
			add(Record{Routine: 2, Comm: 1, Peer: int32((r + n - 1) % n), Tag: 3, Bytes: 8}, 2000)
			last := &rt.Events[len(rt.Events)-1]
			last.StSource, last.StTag, last.StCount = int32((r+n-1)%n), 3, 8
			// Waitall around its Wait.
			s := ns
			add(Record{Routine: 4, Comm: 1, Req: 7, Peer: PeerNone, Tag: -1, Bytes: -1}, 50)
			rt.Events = append(rt.Events, Event{Record: Record{Routine: 3, Comm: 1, Start: s - 5, End: ns + 5, Peer: PeerNone, StSource: PeerNone}})
			ns += 20
			add(Record{Routine: 5, Comm: 1, Peer: PeerNone, Tag: -1, Bytes: -1}, 300)
			if r%2 == 1 {
				add(Record{Routine: 6, Comm: 99, Peer: 1, Tag: -1, Bytes: 64}, 300)
			}
		}
		rt.Clock = []ClockSample{{Phase: "init"}, {Phase: "finalize", Local: 1}}
		t.Ranks[r] = rt
	}
	t.Messages, t.Match = Match(t.Ranks)
	t.Clock = Align(t.Ranks, t.Messages)
	t.Manifest = Manifest{Ranks: n, Command: []string{"synthetic"}}
	return t
}

// TestOTF2ReadsBack: an exported archive reads back with otf2-print (when
// installed, as CI does) with every rank, event, message, collective and
// region name; a large one spans several chunks.
func TestOTF2ReadsBack(t *testing.T) {
	for _, c := range []struct{ n, rounds int }{{4, 3}, {2, 9000}} {
		if c.rounds > 100 && testing.Short() {
			continue // otf2-print takes seconds over a large archive
		}
		tr := synthetic(c.n, c.rounds)
		if len(tr.Messages) != c.n*c.rounds {
			t.Fatalf("synthetic job: %d messages matched, want %d", len(tr.Messages), c.n*c.rounds)
		}
		anchor := filepath.Join(t.TempDir(), "job.otf2")
		if err := WriteOTF2(anchor, tr); err != nil {
			t.Fatal(err)
		}
		if _, err := exec.LookPath("otf2-print"); err != nil {
			t.Skip("otf2-print is not installed (Debian: apt-get install otf2-tools); the archive was written but not read back")
		}
		if c.rounds > 100 {
			// Several chunks: otf2-print reads every event (--silent: without
			// printing them) and the definitions count them.
			if fi, err := os.Stat(filepath.Join(strings.TrimSuffix(anchor, ".otf2"), "0.evt")); err != nil || fi.Size() <= otf2ChunkEvents {
				t.Fatalf("the large archive should span several chunks: %v %v", fi.Size(), err)
			}
			if out, err := exec.Command("otf2-print", "--silent", anchor).CombinedOutput(); err != nil {
				t.Fatalf("otf2-print --silent: %v\n%s", err, out)
			}
			out, err := exec.Command("otf2-print", "-G", anchor).CombinedOutput()
			if err != nil {
				t.Fatalf("otf2-print -G: %v\n%s", err, out)
			}
			per := len(tr.Ranks[0].Events)*2 + 2*c.rounds + 2*c.rounds // calls, messages, barriers' begin and end
			if !strings.Contains(string(out), fmt.Sprintf("# Events: %d,", per)) {
				t.Errorf("rank 0 should have %d events:\n%s", per, out)
			}
			continue
		}
		out, err := exec.Command("otf2-print", "-A", anchor).CombinedOutput()
		if err != nil {
			t.Fatalf("otf2-print: %v\n%s", err, out)
		}
		count := map[string]int{}
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) > 0 {
				count[f[0]]++
			}
		}
		calls, colls := 0, 0
		for _, rt := range tr.Ranks {
			calls += len(rt.Events)
			for i := range rt.Events {
				if n := rt.Name(&rt.Events[i]); n == "Barrier" || n == "Bcast" {
					colls++
				}
			}
		}
		want := map[string]int{"ENTER": calls, "LEAVE": calls, "MPI_SEND": c.n * c.rounds, "MPI_RECV": c.n * c.rounds,
			"MPI_COLLECTIVE_BEGIN": colls, "MPI_COLLECTIVE_END": colls, "LOCATION": c.n, "COMM": 2}
		for k, v := range want {
			if count[k] != v {
				t.Errorf("%d ranks × %d rounds: %d %s, want %d", c.n, c.rounds, count[k], k, v)
			}
		}
		for _, name := range []string{"MPI_Isend", "MPI_Recv", "MPI_Waitall", "MPI_Wait", "MPI_Barrier", "MPI_Bcast"} {
			if !regexp.MustCompile(`REGION .*Name: "` + name + `"`).Match(out) {
				t.Errorf("no region %s", name)
			}
		}
		if !strings.Contains(string(out), "Operation: BCAST, Communicator: \"comm 99\" <1>, Root: 0") {
			t.Errorf("the Bcast on the sub-communicator is not there with its root")
		}
	}
}

// TestOTF2MessagesOnTheirCommunicator: a message on a sub-communicator whose
// rank order is not the world's is an MPI_SEND/MPI_RECV on that
// communicator, with its ranks there, and the communicator is defined with
// its members in rank order.
func TestOTF2MessagesOnTheirCommunicator(t *testing.T) {
	names := []string{1: "Send", 2: "Recv", 3: "Bcast"}
	const sub = 42
	tr := &Trace{Ranks: make([]*RankTrace, 4), Comms: map[uint32][]int32{sub: {3, 1}}, Manifest: Manifest{Ranks: 4}}
	for r := range tr.Ranks {
		tr.Ranks[r] = &RankTrace{Rank: r, Size: 4, Routines: names, Strings: []string{""}, Info: map[string]string{"host": "h"}}
	}
	ev := func(r int, rec Record) {
		rt := tr.Ranks[r]
		rec.Start, rec.End = int64(100*len(rt.Events)), int64(100*len(rt.Events)+50)
		rt.Events = append(rt.Events, Event{Record: rec})
	}
	ev(1, Record{Routine: 1, Comm: sub, Peer: 3, Tag: 5, Bytes: 8, StSource: PeerNone})
	ev(3, Record{Routine: 2, Comm: sub, Peer: 1, Tag: 5, Bytes: 8, StSource: 1, StTag: 5, StCount: 8})
	ev(1, Record{Routine: 3, Comm: sub, Peer: 3, Tag: -1, Bytes: 4, StSource: PeerNone}) // root: world 3, rank 0 of sub
	ev(3, Record{Routine: 3, Comm: sub, Peer: 3, Tag: -1, Bytes: 4, StSource: PeerNone})
	tr.Messages, tr.Match = Match(tr.Ranks)
	tr.Clock = Align(tr.Ranks, tr.Messages)
	if len(tr.Messages) != 1 {
		t.Fatalf("%d messages matched, want 1", len(tr.Messages))
	}
	anchor := filepath.Join(t.TempDir(), "sub.otf2")
	if err := WriteOTF2(anchor, tr); err != nil {
		t.Fatal(err)
	}
	used := newCommUse()
	for r, rt := range tr.Ranks {
		for i := range rt.Events {
			used.add(r, rt.Events[i].Comm)
		}
	}
	cs := otf2Comms(len(tr.Ranks), used, tr.Comms)
	if c := cs.comm(sub); c.rank(3) != 0 || c.rank(1) != 1 || c.id != 1 {
		t.Errorf("communicator %d: id %d, world 3 → %d, world 1 → %d; want id 1, 0 and 1", sub, c.id, c.rank(3), c.rank(1))
	}
	if _, err := exec.LookPath("otf2-print"); err != nil {
		t.Skip("otf2-print is not installed (Debian: apt-get install otf2-tools)")
	}
	out, err := exec.Command("otf2-print", "-A", anchor).CombinedOutput()
	if err != nil {
		t.Fatalf("otf2-print: %v\n%s", err, out)
	}
	for _, want := range []string{
		`Receiver: 0 ("rank 3" <3>), Communicator: "comm 42" <1>, Tag: 5`, // world 3 is rank 0 of the sub-communicator
		`Sender: 1 ("rank 1" <1>), Communicator: "comm 42" <1>, Tag: 5`,   // world 1 is its rank 1
		`Operation: BCAST, Communicator: "comm 42" <1>, Root: 0 ("rank 3" <3>)`,
		`"comm 42" <12>, Type: COMM_GROUP, Paradigm: MPI, Flags: NONE, 2 Members: 3 ("rank 3" <3>), 1 ("rank 1" <1>)`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("otf2-print does not show %q:\n%s", want, out)
		}
	}
}
