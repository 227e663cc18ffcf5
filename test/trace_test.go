package test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gompi/gompi/trace"
)

// TestTracedRing: golaunch --trace on examples/ring at n = 8 leaves a trace
// that reads back complete (every rank, every call, every message matched,
// call sites in ring's source, no receive before its send), and goexpert
// timeline turns it into Perfetto JSON of the right structure: a track per
// rank, a slice per call, an arrow per message from sender to receiver.
func TestTracedRing(t *testing.T) {
	const n, rounds = 8, 10
	dir := filepath.Join(t.TempDir(), "ring")
	r := golaunch(t, "", "-n", "8", "--trace", dir, filepath.Join(bin, "ring"), "--iterations", "10")
	if r.code != 0 {
		t.Fatalf("traced ring failed (%d): %s", r.code, r.stderr)
	}
	tr, err := trace.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Ranks) != n || tr.Dropped != 0 || len(tr.Manifest.Hosts) != n || tr.Manifest.Clock == "" {
		t.Fatalf("%d ranks, %d dropped, manifest %+v", len(tr.Ranks), tr.Dropped, tr.Manifest)
	}
	events := 0
	for rank, rt := range tr.Ranks {
		count := map[string]int{}
		for i := range rt.Events {
			e := &rt.Events[i]
			count[rt.Name(e)]++
			if name := rt.Name(e); (name == "Send" || name == "Recv") && !strings.Contains(rt.Site(e), "examples/ring/main.go:") {
				t.Errorf("rank %d: %s from %q, want a line of examples/ring/main.go", rank, name, rt.Site(e))
			}
		}
		if count["Init"] != 1 || count["Finalize"] != 1 || count["Send"] != rounds || count["Recv"] != rounds {
			t.Errorf("rank %d: calls %v", rank, count)
		}
		events += len(rt.Events)
	}
	if len(tr.Messages) != n*rounds || tr.Match.UnmatchedSends+tr.Match.UnmatchedRecvs != 0 {
		t.Errorf("%d messages matched, want %d: %+v", len(tr.Messages), n*rounds, tr.Match)
	}
	for _, m := range tr.Messages {
		if m.Dst != (m.Src+1)%n {
			t.Errorf("message %d→%d in a ring", m.Src, m.Dst)
		}
		if tr.Event(m.RecvDone).T1 < tr.Event(m.Send).T0 {
			t.Errorf("after the repair a receive ends before its send begins: %+v", m)
		}
	}

	out := filepath.Join(t.TempDir(), "ring.json")
	cmd := exec.Command(filepath.Join(bin, "goexpert"), "timeline", dir, "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("goexpert timeline: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Ph   string         `json:"ph"`
			Name string         `json:"name"`
			Pid  *int           `json:"pid"`
			Tid  *int           `json:"tid"`
			Ts   *float64       `json:"ts"`
			Dur  *float64       `json:"dur"`
			ID   int            `json:"id"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the timeline is not JSON: %v", err)
	}
	tracks := map[int]bool{}
	slices := 0
	flowStart, flowEnd := map[int]int{}, map[int]int{}
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				tracks[*e.Tid] = true
			}
		case "X":
			slices++
			if e.Ts == nil || e.Dur == nil || *e.Dur < 0 || e.Pid == nil || e.Tid == nil || e.Args["comm"] == nil {
				t.Fatalf("malformed slice %+v", e)
			}
		case "s":
			flowStart[e.ID] = *e.Tid
		case "f":
			flowEnd[e.ID] = *e.Tid
		}
	}
	if len(tracks) != n || slices != events {
		t.Errorf("%d tracks and %d slices, want %d and %d", len(tracks), slices, n, events)
	}
	if len(flowStart) != n*rounds || len(flowEnd) != n*rounds {
		t.Errorf("%d arrows start and %d end, want %d", len(flowStart), len(flowEnd), n*rounds)
	}
	for id, src := range flowStart {
		if dst, ok := flowEnd[id]; !ok || dst != (src+1)%n {
			t.Errorf("arrow %d from rank %d ends at rank %d", id, src, dst)
		}
	}
}

// TestTracedRingOTF2: the same trace exported as OTF2 reads back with
// otf2-print (installed by CI; skipped where it is not) with every rank,
// call, message and region name.
func TestTracedRingOTF2(t *testing.T) {
	if _, err := exec.LookPath("otf2-print"); err != nil {
		t.Skip("otf2-print is not installed (Debian: apt-get install otf2-tools)")
	}
	const n, rounds = 8, 10
	dir := filepath.Join(t.TempDir(), "ring")
	if r := golaunch(t, "", "-n", "8", "--trace", dir, filepath.Join(bin, "ring"), "--iterations", "10"); r.code != 0 {
		t.Fatalf("traced ring failed (%d): %s", r.code, r.stderr)
	}
	anchor := filepath.Join(t.TempDir(), "ring.otf2")
	if b, err := exec.Command(filepath.Join(bin, "goexpert"), "timeline", dir, "-o", anchor).CombinedOutput(); err != nil {
		t.Fatalf("goexpert timeline: %v\n%s", err, b)
	}
	out, err := exec.Command("otf2-print", "-A", anchor).CombinedOutput()
	if err != nil {
		t.Fatalf("otf2-print: %v\n%s", err, out)
	}
	count := map[string]int{}
	regions := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		count[f[0]]++
		if f[0] == "REGION" && len(f) > 3 {
			regions[strings.Trim(f[3], `"`)] = true
		}
	}
	calls := n * (2 + 2*rounds) // Init, Finalize, a Send and a Recv per round
	for k, v := range map[string]int{"LOCATION": n, "ENTER": calls, "LEAVE": calls, "MPI_SEND": n * rounds, "MPI_RECV": n * rounds} {
		if count[k] != v {
			t.Errorf("%d %s, want %d", count[k], k, v)
		}
	}
	for _, r := range []string{"MPI_Init", "MPI_Send", "MPI_Recv", "MPI_Finalize"} {
		if !regions[r] {
			t.Errorf("no region %s among %v", r, regions)
		}
	}
}

// TestTraceDirUnwritable: an unwritable --trace directory stops golaunch
// before any rank starts.
func TestTraceDirUnwritable(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := golaunch(t, "", "-n", "2", "--trace", filepath.Join(f, "sub"), filepath.Join(bin, "hello"))
	if r.code != 2 || !strings.Contains(r.stderr, "not writable") || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
