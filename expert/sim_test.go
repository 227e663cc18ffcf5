package expert

import (
	"fmt"
	"testing"
)

// A tiny simulator of message passing for the tests: each rank runs a
// script of operations; times follow from the operations' semantics with no
// noise, so an injected delay turns into an exactly known wait.

const opCost = 1e-6 // every call's own time

type op struct {
	routine  string
	compute  float64 // for "compute"
	peer     int     // dest, source, root or target
	tag      int
	req      int64
	sync     bool // Isend: completes only once the receive started
	line     int
	function string
}

func compute(d float64) op { return op{routine: "compute", compute: d} }

func site(o op, fn string, line int) op {
	o.function, o.line = fn, line
	return o
}

// simulate runs the scripts and gives the trace with matching filled in.
func simulate(t *testing.T, scripts [][]op) *Trace {
	t.Helper()
	tr, err := runSim(scripts)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func runSim(scripts [][]op) (*Trace, error) {
	n := len(scripts)
	calls := make([][]Call, n)
	now := make([]float64, n)
	pc := make([]int, n)
	begin := make([]float64, n)
	// Messages in flight per (src, dst, tag): the sends' indexes, in order;
	// receives in the same order match them (non-overtaking).
	type chanKey struct{ src, dst, tag int }
	sends := map[chanKey][]int{}
	recvs := map[chanKey][]int{}
	ref := func(r, i int) int { return r<<32 | i }
	get := func(x int) *Call { return &calls[x>>32][x&(1<<32-1)] }
	collCount := make([]int, n)
	var colls [][]int // collective instance -> per rank call ref (-1 not yet)
	reqs := make([]map[int64]int, n)
	for r := range reqs {
		reqs[r] = map[int64]int{}
	}
	var msg int64
	// partner of a p2p call, known once both sides have been issued.
	partner := map[int]int{}
	pairUp := func(k chanKey) {
		for len(sends[k]) > 0 && len(recvs[k]) > 0 {
			s, rv := sends[k][0], recvs[k][0]
			sends[k], recvs[k] = sends[k][1:], recvs[k][1:]
			get(s).Msg, get(rv).Msg = msg, msg
			msg++
			partner[s], partner[rv] = rv, s
		}
	}
	issue := func(r int, o op) int {
		c := Call{Rank: r, Routine: o.routine, Start: now[r], End: -1, Peer: o.peer, Tag: o.tag,
			Root: -1, Request: o.req, Msg: -1, Func: o.function, File: "prog.go", Line: o.line}
		calls[r] = append(calls[r], c)
		return ref(r, len(calls[r])-1)
	}
	for steps := 0; ; steps++ {
		progress, done := false, true
		for r := 0; r < n; r++ {
			if pc[r] == len(scripts[r]) {
				continue
			}
			done = false
			o := scripts[r][pc[r]]
			if o.routine == "compute" {
				now[r] += o.compute
				pc[r]++
				progress = true
				continue
			}
			// Issue the call once; complete it when its partners are known.
			if len(calls[r]) == 0 || calls[r][len(calls[r])-1].End >= 0 {
				x := issue(r, o)
				switch o.routine {
				case "Send", "Ssend", "Isend":
					k := chanKey{r, o.peer, o.tag}
					sends[k] = append(sends[k], x)
					pairUp(k)
				case "Recv", "Irecv":
					k := chanKey{o.peer, r, o.tag}
					recvs[k] = append(recvs[k], x)
					pairUp(k)
				case "Barrier", "Allreduce", "Alltoall", "Gather", "Reduce", "Bcast", "Scatter", "Scan":
					k := collCount[r]
					collCount[r]++
					for len(colls) <= k {
						row := make([]int, n)
						for i := range row {
							row[i] = -1
						}
						colls = append(colls, row)
					}
					colls[k][r] = x
					get(x).Root = o.peer
					if o.routine == "Barrier" || o.routine == "Allreduce" || o.routine == "Alltoall" || o.routine == "Scan" {
						get(x).Root = -1
					}
				}
				if o.req != 0 && o.routine != "Wait" {
					reqs[r][o.req] = x
				}
				progress = true
			}
			x := ref(r, len(calls[r])-1)
			c := get(x)
			ready := -1.0 // when the call may end; -1: not known yet
			switch o.routine {
			case "Send", "Isend", "Irecv":
				ready = c.Start
			case "Ssend":
				if p, ok := partner[x]; ok {
					ready = max(c.Start, get(p).Start)
				}
			case "Recv":
				if p, ok := partner[x]; ok {
					ready = max(c.Start, get(p).Start)
				}
			case "Wait":
				post := reqs[r][o.req]
				pc := get(post)
				if pc.Routine == "Isend" && !o.sync {
					ready = c.Start
				} else if p, ok := partner[post]; ok {
					ready = max(c.Start, get(p).Start)
				}
			default: // collectives
				k := collCount[r] - 1
				row := colls[k]
				root := c.Root
				ready = c.Start
				for q := 0; q < n; q++ {
					need := false
					switch o.routine {
					case "Barrier", "Allreduce", "Alltoall":
						need = true
					case "Gather", "Reduce":
						need = r == root
					case "Bcast", "Scatter":
						need = q == root
					case "Scan":
						need = q <= r
					}
					if !need {
						continue
					}
					if row[q] < 0 {
						ready = -1
						break
					}
					ready = max(ready, get(row[q]).Start)
				}
			}
			if ready < 0 {
				continue
			}
			c.End = ready + opCost
			now[r] = c.End
			pc[r]++
			progress = true
		}
		if done {
			break
		}
		if !progress {
			return nil, fmt.Errorf("simulated program deadlocks at %v", pc)
		}
	}
	return &Trace{Calls: calls, Begin: begin, End: now}, nil
}
