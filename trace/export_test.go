package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// writeDir writes ranks (their events, clock samples and communicators) as
// a trace directory, through the Writer, with small buffers so that record
// and string chunks interleave.
func writeDir(tb testing.TB, ranks []*RankTrace) string {
	tb.Helper()
	dir := tb.TempDir()
	strs := NewStrings()
	site := strs.ID("main.main /src/main.go:7")
	for r, rt := range ranks {
		w, err := Create(RankFile(dir, r), r, len(ranks), map[string]string{"host": fmt.Sprintf("h%d", r/3)}, rt.Routines, strs,
			WriterOptions{BufferRecords: 5})
		if err != nil {
			tb.Fatal(err)
		}
		for _, c := range rt.Clock {
			w.Clock(c)
		}
		for id, m := range rt.Comms {
			w.Comm(id, m)
		}
		for i := range rt.Events {
			rec := rt.Events[i].Record
			if i%3 == 0 {
				rec.Site = site
			}
			if i%5 == 1 {
				rec.Site = strs.ID(fmt.Sprintf("main.f%d /src/f.go:%d", i%4, i))
			}
			w.Write(&rec)
		}
		if err := w.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	if err := WriteManifest(dir, Manifest{Ranks: len(ranks), Clock: "monotonic", Command: []string{"test"}}); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// streamCases are trace directories with every form of point-to-point
// call, wildcards, persistent requests, overlapping calls, collectives on
// a sub-communicator, clock skew the repair must undo, and unmatched and
// incomplete operations.
func streamCases(t *testing.T) map[string]string {
	dirs := map[string]string{}
	for _, c := range []struct{ n, rounds int }{{4, 3}, {5, 40}} {
		dirs[fmt.Sprintf("ring %d×%d", c.n, c.rounds)] = writeDir(t, synthetic(c.n, c.rounds).Ranks)
	}
	for i, calls := range matchCases() {
		ranks := jobOf(calls)
		for _, rt := range ranks {
			rt.Clock = []ClockSample{{Phase: "init", Local: 0, Offset: float64(rt.Rank) * 7}}
		}
		dirs[fmt.Sprintf("match case %d", i)] = writeDir(t, ranks)
	}
	// A cascade: every rank's clock is ahead of the next one's, so that
	// each message of the ring arrives "early" and the repair moves rank
	// after rank.
	const n = 6
	names := []string{1: "Send", 2: "Recv", 3: "Irecv", 4: "Wait"}
	ranks := make([]*RankTrace, n)
	for r := range ranks {
		rt := &RankTrace{Rank: r, Size: n, Routines: names, Strings: []string{""}}
		next, prev := int32((r+1)%n), int32((r+n-1)%n)
		for i := int64(0); i < 30; i++ {
			t0 := i * 2000
			rt.Events = append(rt.Events,
				Event{Record: Record{Routine: 3, Start: t0, End: t0 + 50, Comm: 1, Peer: PeerAny, Tag: TagAny, Bytes: 64, Req: 9, StSource: PeerNone}},
				Event{Record: Record{Routine: 1, Start: t0 + 100, End: t0 + 300, Comm: 1, Peer: next, Tag: 4, Bytes: 8, StSource: PeerNone}},
				Event{Record: Record{Routine: 4, Start: t0 + 400, End: t0 + 1500, Comm: 1, Peer: PeerNone, Tag: TagAny, Bytes: -1, Req: 9,
					StSource: prev, StTag: 4, StCount: 8}})
		}
		rt.Clock = []ClockSample{{Phase: "init", Local: 0, Offset: float64(r * -1600), Err: 20},
			{Phase: "finalize", Local: 60000, Offset: float64(r*-1600 + 3*r), Err: 20}}
		ranks[r] = rt
	}
	dirs["cascading repair, ANY_SOURCE"] = writeDir(t, ranks)
	dirs[longLived] = writeDir(t, longLivedJob(3000))
	return dirs
}

const longLived = "requests in flight for the whole run"

// longLivedJob: rank 1 posts an Irecv from any source with any tag, and
// rank 0 an Isend, before a ping-pong of rounds messages each way, and
// completes them only after it.
func longLivedJob(rounds int) []*RankTrace {
	var calls [][]call = [][]call{
		{{"Isend", 1, 99, 1, none, 0}},
		{{"Irecv", PeerAny, TagAny, 2, none, 0}},
	}
	for i := 0; i < rounds; i++ {
		calls[0] = append(calls[0], call{"Send", 1, 5, 0, none, 0}, call{"Recv", 1, 6, 0, [2]int32{1, 6}, 0})
		calls[1] = append(calls[1], call{"Recv", 0, 5, 0, [2]int32{0, 5}, 0}, call{"Send", 0, 6, 0, none, 0})
	}
	calls[0] = append(calls[0], call{"Wait", -1, -1, 1, none, 0})
	calls[1] = append(calls[1], call{"Wait", -1, -1, 2, [2]int32{0, 99}, 0})
	ranks := jobOf(calls)
	for _, rt := range ranks {
		rt.Clock = []ClockSample{{Phase: "init", Local: 0, Offset: float64(rt.Rank)}}
	}
	return ranks
}

// TestStreamHoldsWhatIsInFlight: a request in flight for the whole run
// does not make the streamed reader hold the operations posted after it.
func TestStreamHoldsWhatIsInFlight(t *testing.T) {
	for _, rounds := range []int{3000, 12000} {
		s, err := OpenStream(writeDir(t, longLivedJob(rounds)))
		if err != nil {
			t.Fatal(err)
		}
		if s.Summary().Messages != 2*rounds+1 || s.held > 600 {
			t.Errorf("%d rounds: %d messages, held %d operations and message ends at once; want %d and at most %d",
				rounds, s.Summary().Messages, s.held, 2*rounds+1, 600)
		}
	}
}

// TestStreamedExportMatchesInMemory: on every case, the streamed OTF2
// archive is the in-memory one byte for byte (but the anchor's random id),
// the streamed Perfetto JSON has the same events (slices, flow arrows with
// their two ends) in another order, and the summaries agree.
func TestStreamedExportMatchesInMemory(t *testing.T) {
	for name, dir := range streamCases(t) {
		tr, err := ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		s, err := OpenStream(dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var mem, str bytes.Buffer
		if err := WritePerfetto(&mem, tr); err != nil {
			t.Fatal(err)
		}
		if err := s.WritePerfetto(&str); err != nil {
			t.Fatal(err)
		}
		if a, b := perfettoEvents(t, mem.Bytes()), perfettoEvents(t, str.Bytes()); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: the streamed Perfetto JSON differs:\n in memory %d events %q\n streamed  %d events %q", name, len(a), a, len(b), b)
		}
		want := tr.Summary()
		want.Clock.Ranks, want.Manifest.Start = nil, s.Summary().Manifest.Start
		got := s.Summary()
		got.Clock.Ranks = nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: summary\n got %+v\nwant %+v", name, got, want)
		}
		out := t.TempDir()
		if err := WriteOTF2(filepath.Join(out, "mem.otf2"), tr); err != nil {
			t.Fatal(err)
		}
		if err := s.WriteOTF2(filepath.Join(out, "str.otf2")); err != nil {
			t.Fatal(err)
		}
		sameOTF2(t, name, filepath.Join(out, "mem"), filepath.Join(out, "str"))
		if name == "cascading repair, ANY_SOURCE" && (got.Clock.Violations == 0 || got.Clock.Moved == 0 || got.Messages != 180) {
			t.Errorf("%s: the case should repair: %+v", name, got)
		}
	}
}

// perfettoEvents returns the events of Perfetto JSON, each as a string,
// sorted; a flow arrow is its two ends together without their id.
func perfettoEvents(t *testing.T, b []byte) []string {
	var doc struct{ TraceEvents []map[string]any }
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	var out []string
	flows := map[float64][2]string{}
	for _, e := range doc.TraceEvents {
		ph := e["ph"].(string)
		if ph == "s" || ph == "f" {
			id := e["id"].(float64)
			delete(e, "id")
			j, _ := json.Marshal(e)
			f := flows[id]
			f[map[string]int{"s": 0, "f": 1}[ph]] = string(j)
			flows[id] = f
			continue
		}
		j, _ := json.Marshal(e)
		out = append(out, string(j))
	}
	for _, f := range flows {
		out = append(out, "flow "+f[0]+" → "+f[1])
	}
	sort.Strings(out)
	return out
}

// sameOTF2 compares two archives written from one trace.
func sameOTF2(t *testing.T, name, a, b string) {
	t.Helper()
	for _, f := range []string{".def", "/0.evt", "/0.def", "/1.evt"} {
		x, err1 := os.ReadFile(a + f)
		y, err2 := os.ReadFile(b + f)
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s: %s differs (%d and %d bytes; %v %v)", name, f, len(x), len(y), err1, err2)
		}
	}
	entries, _ := os.ReadDir(a)
	for _, e := range entries {
		x, _ := os.ReadFile(filepath.Join(a, e.Name()))
		y, _ := os.ReadFile(filepath.Join(b, e.Name()))
		if !bytes.Equal(x, y) {
			t.Errorf("%s: %s differs", name, e.Name())
		}
	}
	x, _ := os.ReadFile(a + ".otf2")
	y, _ := os.ReadFile(b + ".otf2")
	diff := 0
	for i := range x {
		if i >= len(y) || x[i] != y[i] {
			diff++
		}
	}
	if len(x) != len(y) || diff > 8 {
		t.Errorf("%s: the anchors differ beyond their ids (%d bytes)", name, diff)
	}
}

// TestStreamOutOfOrder: calls within the window of their start order are
// put in it; a call that began before one more than startWindow records
// earlier gives ErrUnordered, which names the file.
func TestStreamOutOfOrder(t *testing.T) {
	names := []string{1: "Send", 2: "Recv", 3: "Barrier"}
	build := func(late int) []*RankTrace {
		ranks := jobOf([][]call{{}, {}})
		for _, rt := range ranks {
			rt.Routines = names
			rt.Events = nil
			for i := int64(0); i < 3000; i++ {
				rt.Events = append(rt.Events, Event{Record: Record{Routine: 3, Start: 100 + i*10, End: 105 + i*10, Comm: 1, Peer: PeerNone,
					StSource: PeerNone}})
			}
			// A long call (another goroutine's) recorded when it returned.
			long := Event{Record: Record{Routine: 3, Start: 100 + int64(3000-late)*10 - 3, End: 40000, Comm: 1, Peer: PeerNone, StSource: PeerNone}}
			rt.Events = append(rt.Events, long)
		}
		return ranks
	}
	s, err := OpenStream(writeDir(t, build(100)))
	if err != nil {
		t.Fatalf("a call 100 records late: %v", err)
	}
	var b bytes.Buffer
	if err := s.WritePerfetto(&b); err != nil {
		t.Fatal(err)
	}
	_, err = OpenStream(writeDir(t, build(startWindow+10)))
	if !errors.Is(err, ErrUnordered) || !strings.Contains(err.Error(), "rank-00000.gtr") {
		t.Errorf("a call %d records late: %v, want ErrUnordered naming the file", startWindow+10, err)
	}
}

// TestStreamCorruptFiles: a corrupt or truncated file gives a format error
// naming the file and the offset, as ReadDir does.
func TestStreamCorruptFiles(t *testing.T) {
	dir := writeDir(t, synthetic(3, 5).Ranks)
	path := RankFile(dir, 1)
	b, _ := os.ReadFile(path)
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"truncated", b[:len(b)-30]},
		{"bad record", append(append([]byte{}, b[:headerSize]...), recordChunkEndingBeforeStart(b)...)},
	} {
		if err := os.WriteFile(path, c.b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := OpenStream(dir)
		var fe *FormatError
		if !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), "offset") {
			t.Errorf("%s: %v, want a format error naming %s and an offset", c.name, err, path)
		}
	}
}

// recordChunkEndingBeforeStart returns the chunks of file b (after its
// header) with its first record made to end before it starts.
func recordChunkEndingBeforeStart(b []byte) []byte {
	out := append([]byte{}, b[headerSize:]...)
	for off := 0; off+chunkHead <= len(out); {
		kind, n := int(out[off])|int(out[off+1])<<8, int(out[off+4])|int(out[off+5])<<8|int(out[off+6])<<16
		if uint32(kind) == chunkRecords {
			rec := out[off+chunkHead:]
			rec[16], rec[17], rec[18], rec[19] = 0, 0, 0, 0 // End = 0
			rec[20], rec[21], rec[22], rec[23] = 0, 0, 0, 0
			rec[8] = 9 // Start > 0
			break
		}
		off += chunkHead + n
	}
	return out
}
