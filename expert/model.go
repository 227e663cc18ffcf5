// Package expert is the Performance Expert's analyser: it applies rules
// written in the rule language (package lang; the shipped knowledge base is
// in kb/) to a trace, finds problems with their cost, place and advice, and
// predicts what removing each would save.
package expert

import (
	"fmt"
	"path/filepath"
)

// Call is one traced call as the analyser sees it: a simple event's raw
// material (spec: e = <f, et, EPval, t, d, pr, cs>).
type Call struct {
	Rank       int
	Routine    string  // Send, Recv, Barrier, ...
	Start, End float64 // seconds on the trace's one time axis
	Peer       int     // destination or source as a world rank; -1 none or any
	Tag        int     // -1 none or any
	Bytes      int
	Root       int   // world rank of a rooted collective's root; -1 none
	Comm       int64 // communicator (or window) id, the same on every rank
	Request    int64 // rank-local request id a post and its Wait share; 0 none
	Msg        int64 // a send and the receive that matched it share Msg; -1 unmatched
	// Side is "send" or "receive" for the calls whose routine does not say
	// which side of a message they are: a Start (the kind of its persistent
	// request) and each of the two calls a Sendrecv is split into.
	Side string

	StatusSource, StatusTag, StatusBytes int

	Func string // the user's function that made the call
	File string
	Line int
}

// Site names where the call was made: "Recv in main.exchange (jacobi.go:88)".
func (c *Call) Site() string {
	if c.Func == "" && c.File == "" {
		return c.Routine + " (no call site)"
	}
	return fmt.Sprintf("%s in %s (%s:%d)", c.Routine, c.Func, filepath.Base(c.File), c.Line)
}

// Trace is what the analyser reads: each rank's calls in order, and each
// rank's run (from Init to Finalize) on the same time axis.
type Trace struct {
	Calls      [][]Call
	Begin, End []float64
}

// Ranks is the number of processes.
func (t *Trace) Ranks() int { return len(t.Calls) }

// TotalTime is the sum over ranks of their run time: the spec's measure the
// problems' shares are given against.
func (t *Trace) TotalTime() float64 {
	var s float64
	for r := range t.Calls {
		s += t.End[r] - t.Begin[r]
	}
	return s
}

// WallTime is the run's length: from the first rank's start to the last
// rank's end.
func (t *Trace) WallTime() float64 {
	if len(t.Calls) == 0 {
		return 0
	}
	lo, hi := t.Begin[0], t.End[0]
	for r := range t.Calls {
		lo, hi = min(lo, t.Begin[r]), max(hi, t.End[r])
	}
	return hi - lo
}
