package trace

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.gtr")
	strs := NewStrings()
	w, err := Create(path, 2, 4, map[string]string{"host": "a", "clock": "tsc"}, []string{3: "Isend", 17: "Wait"}, strs,
		WriterOptions{BufferRecords: 3, Buffers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var want []Record
	for i := 0; i < 100; i++ {
		r := Record{Routine: 3, Flags: FlagCompleted, Site: strs.ID("main.f x.go:" + string(rune('a'+i%7))), Start: int64(i),
			End: int64(i + 1), Comm: 7, Peer: 1, Tag: int32(i), Bytes: 1 << 40, Req: uint64(i) << 33, StSource: 3, StTag: -1,
			StCount: 99, Algo: strs.ID("ring")}
		if i%2 == 0 {
			w.Write(&r)
		} else {
			s, p := w.Begin()
			*p = r
			w.Commit(s)
		}
		want = append(want, r)
	}
	w.Clock(ClockSample{Phase: "init", Local: 5, Offset: -1.5, Err: 0.25})
	w.Comm(7, []int32{3, 0, 2})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.Write(&Record{}) // after Close: counted, not written
	rt, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if rt.Rank != 2 || rt.Size != 4 || rt.Info["clock"] != "tsc" || rt.Routines[17] != "Wait" || rt.Records != 100 {
		t.Errorf("header: %+v", rt)
	}
	if len(rt.Events) != len(want) {
		t.Fatalf("%d events, want %d", len(rt.Events), len(want))
	}
	for i, e := range rt.Events {
		if e.Record != want[i] {
			t.Fatalf("record %d: %+v, want %+v", i, e.Record, want[i])
		}
	}
	if got := rt.Site(&rt.Events[8]); got != "main.f x.go:b" {
		t.Errorf("site %q", got)
	}
	if len(rt.Clock) != 1 || rt.Clock[0] != (ClockSample{"init", 5, -1.5, 0.25}) {
		t.Errorf("clock %+v", rt.Clock)
	}
	if m := rt.Comms[7]; len(rt.Comms) != 1 || len(m) != 3 || m[0] != 3 || m[1] != 0 || m[2] != 2 {
		t.Errorf("communicators %v, want 7: [3 0 2]", rt.Comms)
	}
	// A communicator naming a rank beyond the job is a format error.
	b, _ := os.ReadFile(path)
	i := strings.Index(string(b), "\x07\x00\x00\x00\x14\x00\x00\x00\x07\x00\x00\x00\x03\x00\x00\x00")
	if i < 0 {
		t.Fatal("no communicator chunk in the file")
	}
	b[i+16] = 9
	if _, err := Decode(path, b); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "world rank 9") {
		t.Errorf("a communicator with world rank 9 of 4: %v", err)
	}
}

// TestDropsAreCounted: calls beyond the open-call table are not lost
// silently: the reader reports them.
func TestDropsAreCounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.gtr")
	w, err := Create(path, 0, 1, nil, nil, NewStrings(), WriterOptions{OpenCalls: 2})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := w.Begin()
	b, _ := w.Begin()
	if c, _ := w.Begin(); c != 0 {
		t.Fatal("a third open call got a slot")
	}
	w.Commit(a)
	w.Commit(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rt, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if rt.Dropped != 1 || len(rt.Events) != 2 {
		t.Errorf("dropped %d, events %d; want 1 and 2", rt.Dropped, len(rt.Events))
	}
}

func TestCorruptFilesNameFileAndOffset(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(writeSample(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), good...)
	bad[headerSize] = 99 // unknown chunk kind
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"truncated", good[:len(good)-5], "offset"},
		{"no end", good[:len(good)-24], "has no end"},
		{"bad chunk", bad, "offset 32: unknown chunk kind"},
		{"empty", nil, "too short"},
	} {
		_, err := Decode("x.gtr", c.b)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "x.gtr") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// skewed makes a rank's trace from true times (ns): its clock reads
// local = true·(1+drift) + offset, and its clock samples at the two ends are
// exact.
func skewed(rank int, offset, drift float64, evs []Record, routines []string) *RankTrace {
	loc := func(t float64) int64 { return int64(math.Round(t*(1+drift) + offset)) }
	rt := &RankTrace{Rank: rank, Routines: routines, Strings: []string{""}}
	for _, r := range evs {
		r.Start, r.End = loc(float64(r.Start)), loc(float64(r.End))
		rt.Events = append(rt.Events, Event{Record: r})
	}
	for _, tt := range []float64{0, 1e10} {
		l := loc(tt)
		rt.Clock = append(rt.Clock, ClockSample{Local: l, Offset: tt - float64(l), Err: 10})
	}
	return rt
}

// TestAlignRecoversInjectedSkew: offsets of milliseconds and drifts of tens
// of ppm are undone to within 1 µs, and a message that the residual error
// shows arriving early is repaired (and reported).
func TestAlignRecoversInjectedSkew(t *testing.T) {
	names := []string{1: "Send", 2: "Recv"}
	// Rank 0 sends at true 5 s, rank 1 receives 5 s + 2 µs.
	send := Record{Routine: 1, Peer: 1, Tag: 0, Comm: 1, Start: 5e9, End: 5e9 + 500, StSource: PeerNone}
	recv := Record{Routine: 2, Peer: 0, Comm: 1, Start: 4e9, End: 5e9 + 2000, StSource: 0, StTag: 0, StCount: 8}
	after := Record{Routine: 1, Peer: 0, Comm: 1, Tag: 1, Start: 6e9, End: 6e9 + 100}
	for _, c := range []struct{ off, drift float64 }{{3e6, 0}, {-7.5e6, 40e-6}, {1e9, -25e-6}} {
		ranks := []*RankTrace{
			skewed(0, 0, 0, []Record{send}, names),
			skewed(1, c.off, c.drift, []Record{recv, after}, names),
		}
		msgs, st := Match(ranks)
		if len(msgs) != 1 || st.UnmatchedSends != 1 {
			t.Fatalf("matched %d, %+v", len(msgs), st)
		}
		rep := Align(ranks, msgs)
		origin := 4e9 // the earliest event, true time
		got := ranks[1].Events[0].T1*1e9 + origin
		if d := math.Abs(got - float64(recv.End)); d > 1000 {
			t.Errorf("offset %g drift %g: receive ends %g ns from the truth", c.off, c.drift, d)
		}
		if rep.Moved != 0 || rep.NoDrift != 0 {
			t.Errorf("nothing should move: %+v", rep)
		}
	}
	// Now the receive's clock sample is 5 µs off: the message seems to arrive
	// 3 µs before it was sent. The repair moves the receive and what follows.
	ranks := []*RankTrace{skewed(0, 0, 0, []Record{send}, names), skewed(1, 0, 0, []Record{recv, after}, names)}
	for i := range ranks[1].Clock {
		ranks[1].Clock[i].Offset -= 5000
	}
	msgs, _ := Match(ranks)
	rep := Align(ranks, msgs)
	if rep.Violations != 1 || rep.Moved != 2 || math.Abs(rep.MaxShift-3e-6) > 1e-9 {
		t.Errorf("repair: %+v", rep)
	}
	if s, r := ranks[0].Events[0].T0, ranks[1].Events[0].T1; r < s {
		t.Errorf("after the repair the receive still ends (%g) before the send starts (%g)", r, s)
	}
	if d := ranks[1].Events[1].T1 - ranks[1].Events[1].T0; math.Abs(d-100e-9) > 1e-12 {
		t.Errorf("the repair changed a duration: %g", d)
	}
}
