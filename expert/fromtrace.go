package expert

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gompi/gompi/trace"
)

// ReadTrace reads a trace directory written by golaunch --trace (package
// trace reads, matches sends to receives and puts the ranks on one time
// axis) and gives it in the analyser's form.
func ReadTrace(dir string) (*Trace, *trace.Trace, error) {
	t, err := trace.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	return FromTrace(t), t, nil
}

// rooted are the collectives whose Peer is the root.
var rooted = map[string]bool{
	"Bcast": true, "Gather": true, "Gatherv": true, "Scatter": true, "Scatterv": true, "Reduce": true,
	"Ibcast": true, "Igather": true, "Igatherv": true, "Iscatter": true, "Iscatterv": true, "Ireduce": true,
}

// FromTrace converts a trace read by package trace. The messages trace.Match
// found give each send and the receive that got it the same Msg (on the
// calls that posted them; a Wait is tied to its post through Request).
func FromTrace(t *trace.Trace) *Trace {
	out := &Trace{Calls: make([][]Call, len(t.Ranks)), Begin: make([]float64, len(t.Ranks)), End: make([]float64, len(t.Ranks))}
	sites := map[string][3]string{}
	// Where each event went: its call, and for a Sendrecv, split into its
	// send and its receive, the receive's call.
	at := make([][]int, len(t.Ranks))
	recvAt := make([]map[int]int, len(t.Ranks))
	for r, rt := range t.Ranks {
		persistent := map[uint64]string{} // request -> "send" or "receive"
		calls := make([]Call, 0, len(rt.Events))
		at[r] = make([]int, len(rt.Events))
		recvAt[r] = map[int]int{}
		for i := range rt.Events {
			e := &rt.Events[i]
			name := rt.Name(e)
			s := rt.Site(e)
			fl, ok := sites[s]
			if !ok {
				fl = splitSite(s)
				sites[s] = fl
			}
			line, _ := strconv.Atoi(fl[2])
			c := Call{
				Rank: r, Routine: name, Start: e.T0, End: e.T1,
				Peer: int(e.Peer), Tag: int(e.Tag), Bytes: int(e.Bytes), Root: -1,
				Comm: int64(e.Comm), Request: int64(e.Req), Msg: -1,
				StatusSource: int(e.StSource), StatusTag: int(e.StTag), StatusBytes: int(e.StCount),
				Func: fl[0], File: fl[1], Line: line,
			}
			if rooted[name] {
				c.Root = c.Peer
			}
			switch name {
			case "Send_init", "Ssend_init", "Rsend_init", "Bsend_init":
				persistent[e.Req] = "send"
			case "Recv_init":
				persistent[e.Req] = "receive"
			case "Start":
				c.Side = persistent[e.Req]
			case "Sendrecv":
				c.Side = "send"
				rc := c
				rc.Side, rc.Peer, rc.Tag, rc.Bytes = "receive", c.StatusSource, c.StatusTag, c.StatusBytes
				recvAt[r][i] = len(calls) + 1
				calls = append(calls, c)
				c = rc
				at[r][i] = len(calls) - 1
			}
			if name != "Sendrecv" {
				at[r][i] = len(calls)
			}
			calls = append(calls, c)
			if i == 0 || e.T0 < out.Begin[r] {
				out.Begin[r] = e.T0
			}
			out.End[r] = max(out.End[r], e.T1)
		}
		out.Calls[r] = calls
	}
	for k, m := range t.Messages {
		out.Calls[m.Send.Rank][at[m.Send.Rank][m.Send.Index]].Msg = int64(k)
		ri := at[m.Recv.Rank][m.Recv.Index]
		if j, ok := recvAt[m.Recv.Rank][m.Recv.Index]; ok {
			ri = j
		}
		out.Calls[m.Recv.Rank][ri].Msg = int64(k)
	}
	return out
}

// splitSite splits "function /path/file.go:42" into function, file, line.
func splitSite(s string) [3]string {
	i := strings.LastIndexByte(s, ' ')
	if i < 0 {
		return [3]string{s, "", "0"}
	}
	fn, fl := s[:i], s[i+1:]
	j := strings.LastIndexByte(fl, ':')
	if j < 0 {
		return [3]string{fn, fl, "0"}
	}
	return [3]string{fn, fl[:j], fl[j+1:]}
}

// TraceNotes says what the reader had to do to the trace, for the report:
// records lost, unmatched messages, events the clock repair moved.
func TraceNotes(t *trace.Trace) []string {
	var out []string
	if t.Dropped > 0 {
		out = append(out, fmt.Sprintf("%d records were dropped while tracing: problems may be missed", t.Dropped))
	}
	if n := t.Match.UnmatchedSends + t.Match.UnmatchedRecvs; n > 0 {
		out = append(out, fmt.Sprintf("%d sends and %d receives have no partner in the trace", t.Match.UnmatchedSends, t.Match.UnmatchedRecvs))
	}
	if t.Clock.Moved > 0 {
		out = append(out, fmt.Sprintf("clock repair moved %d events (by at most %.3g s)", t.Clock.Moved, t.Clock.MaxShift))
	}
	return out
}
