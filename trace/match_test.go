package trace

import (
	"fmt"
	"sort"
	"testing"
)

// job builds ranks from per-rank calls written compactly; times are the
// order of the calls.
type call struct {
	name      string
	peer, tag int32
	req       uint64
	st        [2]int32 // status source and tag; {-1, -1} when none
	flags     Flags
}

func jobOf(calls [][]call) []*RankTrace {
	var names []string
	code := map[string]uint8{}
	ranks := make([]*RankTrace, len(calls))
	for r, cs := range calls {
		rt := &RankTrace{Rank: r, Size: len(calls), Strings: []string{""}}
		for i, c := range cs {
			if _, ok := code[c.name]; !ok {
				code[c.name] = uint8(len(names))
				names = append(names, c.name)
			}
			rt.Events = append(rt.Events, Event{Record: Record{Routine: code[c.name], Flags: c.flags, Start: int64(10 * i),
				End: int64(10*i + 5), Comm: 1, Peer: c.peer, Tag: c.tag, Bytes: 4, Req: c.req,
				StSource: c.st[0], StTag: c.st[1], StCount: 4}})
		}
		ranks[r] = rt
	}
	for _, rt := range ranks {
		rt.Routines = names
	}
	return ranks
}

var none = [2]int32{PeerNone, TagAny}

func describe(ranks []*RankTrace, msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		n := func(x EventRef) string { return ranks[x.Rank].Name(&ranks[x.Rank].Events[x.Index]) }
		out = append(out, fmt.Sprintf("%d→%d tag %d: %s#%d/%s → %s#%d/%s", m.Src, m.Dst, m.Tag, n(m.Send), m.Send.Index,
			n(m.SendDone), n(m.Recv), m.Recv.Index, n(m.RecvDone)))
	}
	sort.Strings(out)
	return out
}

// matchTable: every point-to-point form, with what Match finds.
var matchTable = []struct {
	name  string
	calls [][]call
	want  []string
	stats MatchStats
}{
	{"blocking modes, in order per tag", [][]call{
		{{"Send", 1, 1, 0, none, 0}, {"Bsend", 1, 1, 0, none, 0}, {"Rsend", 1, 2, 0, none, 0}, {"Ssend", 1, 1, 0, none, 0}},
		{{"Recv", 0, 2, 0, [2]int32{0, 2}, 0}, {"Recv", 0, 1, 0, [2]int32{0, 1}, 0}, {"Recv", 0, 1, 0, [2]int32{0, 1}, 0},
			{"Recv", 0, 1, 0, [2]int32{0, 1}, 0}},
	}, []string{
		"0→1 tag 1: Bsend#1/Bsend → Recv#2/Recv", "0→1 tag 1: Send#0/Send → Recv#1/Recv",
		"0→1 tag 1: Ssend#3/Ssend → Recv#3/Recv", "0→1 tag 2: Rsend#2/Rsend → Recv#0/Recv",
	}, MatchStats{Sends: 4, Recvs: 4, Matched: 4}},
	{"ANY_SOURCE and ANY_TAG take what the status says", [][]call{
		{{"Isend", 2, 7, 11, none, 0}, {"Wait", -1, -1, 11, none, 0}},
		{{"Irsend", 2, 8, 12, none, 0}, {"Ibsend", 2, 9, 13, none, 0}, {"Wait", -1, -1, 13, none, 0}, {"Wait", -1, -1, 12, none, 0}},
		{{"Recv", PeerAny, TagAny, 0, [2]int32{1, 8}, 0}, {"Irecv", PeerAny, 7, 21, none, 0}, {"Irecv", 1, TagAny, 22, none, 0},
			{"Test", -1, -1, 21, none, 0}, {"Test", -1, -1, 21, [2]int32{0, 7}, FlagCompleted}, {"Wait", -1, -1, 22, [2]int32{1, 9}, 0}},
	}, []string{
		"0→2 tag 7: Isend#0/Wait → Irecv#1/Test", "1→2 tag 8: Irsend#0/Wait → Recv#0/Recv",
		"1→2 tag 9: Ibsend#1/Wait → Irecv#2/Wait",
	}, MatchStats{Sends: 3, Recvs: 3, Matched: 3}},
	{"persistent requests with wildcards, Startall", [][]call{
		{{"Send_init", 1, 3, 5, none, 0}, {"Start", -1, -1, 5, none, 0}, {"Wait", -1, -1, 5, none, 0},
			{"Start", -1, -1, 5, none, 0}, {"Wait", -1, -1, 5, none, 0}},
		{{"Recv_init", PeerAny, TagAny, 6, none, 0}, {"Startall", -1, -1, 0, none, 0}, {"Start", -1, -1, 6, none, 0},
			{"Wait", -1, -1, 6, [2]int32{0, 3}, 0}, {"Start", -1, -1, 6, none, 0}, {"Wait", -1, -1, 6, [2]int32{0, 3}, 0}},
	}, []string{"0→1 tag 3: Start#1/Wait → Start#2/Wait", "0→1 tag 3: Start#3/Wait → Start#4/Wait"},
		MatchStats{Sends: 2, Recvs: 2, Matched: 2}},
	{"Sendrecv both ways; ProcNull and a cancelled receive are no messages", [][]call{
		{{"Sendrecv", 1, 4, 0, [2]int32{1, 4}, 0}, {"Send", PeerNull, 0, 0, none, 0}, {"Irecv", 1, 9, 30, none, 0},
			{"Wait", -1, -1, 30, [2]int32{PeerNone, TagAny}, FlagCancelled}},
		{{"Sendrecv", 0, 4, 0, [2]int32{0, 4}, 0}, {"Recv", PeerNull, 0, 0, [2]int32{PeerNull, TagAny}, 0}},
	}, []string{"0→1 tag 4: Sendrecv#0/Sendrecv → Sendrecv#0/Sendrecv", "1→0 tag 4: Sendrecv#0/Sendrecv → Sendrecv#0/Sendrecv"},
		MatchStats{Sends: 2, Recvs: 2, Matched: 2}},
	{"a matched probe's receive is ordered at the probe, done by Mrecv or the Imrecv's Wait", [][]call{
		{{"Send", 1, 5, 0, none, 0}, {"Send", 1, 5, 0, none, 0}, {"Send", 1, 5, 0, none, 0},
			{"Sendrecv_replace", 1, 6, 0, [2]int32{1, 6}, 0}},
		{{"Mprobe", 0, 5, 50, [2]int32{0, 5}, FlagCompleted}, {"Improbe", 0, 5, 0, none, 0},
			{"Improbe", PeerAny, TagAny, 51, [2]int32{0, 5}, FlagCompleted}, {"Recv", 0, 5, 0, [2]int32{0, 5}, 0},
			{"Imrecv", -1, -1, 51, none, 0}, {"Mrecv", -1, -1, 50, [2]int32{0, 5}, 0}, {"Wait", -1, -1, 51, [2]int32{0, 5}, 0},
			{"Sendrecv_replace", 0, 6, 0, [2]int32{0, 6}, 0}},
	}, []string{
		"0→1 tag 5: Send#0/Send → Mprobe#0/Mrecv", "0→1 tag 5: Send#1/Send → Improbe#2/Wait",
		"0→1 tag 5: Send#2/Send → Recv#3/Recv", "0→1 tag 6: Sendrecv_replace#3/Sendrecv_replace → Sendrecv_replace#7/Sendrecv_replace",
		"1→0 tag 6: Sendrecv_replace#7/Sendrecv_replace → Sendrecv_replace#3/Sendrecv_replace",
	}, MatchStats{Sends: 5, Recvs: 5, Matched: 5}},
	{"a send nobody received, a receive never completed", [][]call{
		{{"Send", 1, 1, 0, none, 0}},
		{{"Irecv", 0, 2, 40, none, 0}},
	}, nil, MatchStats{Sends: 1, UnmatchedSends: 1, Incomplete: 1}},
	{"failed calls are left out", [][]call{
		{{"Send", 1, 1, 0, none, FlagError}},
		{},
	}, nil, MatchStats{}},
}

// matchCases returns the calls of every case of matchTable.
func matchCases() [][][]call {
	var out [][][]call
	for _, c := range matchTable {
		out = append(out, c.calls)
	}
	return out
}

func TestMatchEveryForm(t *testing.T) {
	for _, c := range matchTable {
		ranks := jobOf(c.calls)
		msgs, st := Match(ranks)
		got := describe(ranks, msgs)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
		if st != c.stats {
			t.Errorf("%s: stats %+v, want %+v", c.name, st, c.stats)
		}
	}
}
