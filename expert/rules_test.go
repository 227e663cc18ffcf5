package expert

import (
	"math"
	"sort"
	"testing"
)

// Every problem of the knowledge base is tested the same way: a program with
// a delay injected at a known place must give the problem at the right call
// site with a cost within 5 % of the wait the delay causes, and the same
// program without the delay must give no problem at all.

func call(o op, line int) op { return site(o, "main.work", line) }

func send(dest, line int) op         { return call(op{routine: "Send", peer: dest}, line) }
func ssend(dest, line int) op        { return call(op{routine: "Ssend", peer: dest}, line) }
func recv(src, line int) op          { return call(op{routine: "Recv", peer: src}, line) }
func sendTag(dest, tag, line int) op { return call(op{routine: "Send", peer: dest, tag: tag}, line) }
func recvTag(src, tag, line int) op  { return call(op{routine: "Recv", peer: src, tag: tag}, line) }
func irecv(src int, req int64, line int) op {
	return call(op{routine: "Irecv", peer: src, req: req}, line)
}
func issend(dest int, req int64, line int) op {
	return call(op{routine: "Isend", peer: dest, req: req, sync: true}, line)
}
func wait(req int64, sync bool, line int) op {
	return call(op{routine: "Wait", req: req, sync: sync}, line)
}
func coll(routine string, root, line int) op { return call(op{routine: routine, peer: root}, line) }

// hand builds a trace call by call (for the one-sided problems, which the
// simulator does not model).
type hand struct{ t Trace }

func newHand(n int) *hand {
	h := &hand{t: Trace{Calls: make([][]Call, n), Begin: make([]float64, n), End: make([]float64, n)}}
	return h
}

func (h *hand) add(rank int, routine string, start, end float64, peer int, line int) {
	h.t.Calls[rank] = append(h.t.Calls[rank], Call{Rank: rank, Routine: routine, Start: start, End: end,
		Peer: peer, Root: -1, Msg: -1, Comm: 7, Func: "main.work", File: "prog.go", Line: line})
	h.t.End[rank] = max(h.t.End[rank], end)
}

type ruleCase struct {
	problem string
	build   func(t *testing.T, d float64) *Trace
	ranks   []int   // ranks where the time is lost
	line    int     // the call site where it is lost
	waits   float64 // the wait in units of the injected delay (ranks that wait)
}

func p2p(scripts ...[]op) [][]op { return scripts }

var ruleCases = []ruleCase{
	{"Late sender", func(t *testing.T, d float64) *Trace {
		return simulate(t, p2p([]op{compute(d), send(1, 10)}, []op{recv(0, 20)}))
	}, []int{1}, 20, 1},
	{"Late receiver", func(t *testing.T, d float64) *Trace {
		return simulate(t, p2p([]op{ssend(1, 10)}, []op{compute(d), recv(0, 20)}))
	}, []int{0}, 10, 1},
	{"Late sender (nonblocking receive)", func(t *testing.T, d float64) *Trace {
		return simulate(t, p2p([]op{compute(d), send(1, 10)}, []op{irecv(0, 1, 20), wait(1, false, 21)}))
	}, []int{1}, 21, 1},
	{"Late receiver (nonblocking send)", func(t *testing.T, d float64) *Trace {
		return simulate(t, p2p([]op{issend(1, 1, 10), wait(1, true, 11)}, []op{compute(d), recv(0, 20)}))
	}, []int{0}, 11, 1},
	{"Late sender, wrong order", func(t *testing.T, d float64) *Trace {
		return simulate(t, p2p(
			[]op{compute(d), sendTag(2, 0, 10)},
			[]op{sendTag(2, 1, 15)},
			[]op{recvTag(0, 0, 20), recvTag(1, 1, 21)}))
	}, []int{2}, 20, 1},
	{"Wait before barrier", func(t *testing.T, d float64) *Trace {
		return simulate(t, p2p([]op{coll("Barrier", -1, 30)}, []op{compute(d), coll("Barrier", -1, 30)}, []op{coll("Barrier", -1, 30)}))
	}, []int{0, 2}, 30, 2},
	{"Barrier completion", func(t *testing.T, d float64) *Trace {
		tr := simulate(t, p2p([]op{coll("Barrier", -1, 30)}, []op{coll("Barrier", -1, 31)}))
		tr.Calls[1][0].End += d // rank 1 leaves the barrier late
		tr.End[1] += d
		return tr
	}, []int{1}, 31, 1},
	{"Early receive in many-to-one", func(t *testing.T, d float64) *Trace {
		return simulate(t, p2p([]op{coll("Gather", 0, 40)}, []op{compute(d), coll("Gather", 0, 41)}, []op{coll("Gather", 0, 41)}))
	}, []int{0}, 40, 1},
	{"Early reduce", func(t *testing.T, d float64) *Trace {
		return simulate(t, p2p([]op{coll("Reduce", 0, 40)}, []op{coll("Reduce", 0, 41)}, []op{compute(d), coll("Reduce", 0, 41)}))
	}, []int{0}, 40, 1},
	{"Late send in one-to-many", func(t *testing.T, d float64) *Trace {
		return simulate(t, p2p([]op{compute(d), coll("Scatter", 0, 50)}, []op{coll("Scatter", 0, 51)}, []op{coll("Scatter", 0, 51)}))
	}, []int{1, 2}, 51, 2},
	{"Late broadcast", func(t *testing.T, d float64) *Trace {
		return simulate(t, p2p([]op{coll("Bcast", 1, 51)}, []op{compute(d), coll("Bcast", 1, 50)}))
	}, []int{0}, 51, 1},
	{"Wait before all-to-all", func(t *testing.T, d float64) *Trace {
		return simulate(t, p2p([]op{coll("Alltoall", -1, 60)}, []op{coll("Alltoall", -1, 60)}, []op{compute(d), coll("Alltoall", -1, 61)}))
	}, []int{0, 1}, 60, 2},
	{"N x N completion", func(t *testing.T, d float64) *Trace {
		tr := simulate(t, p2p([]op{coll("Allreduce", -1, 60)}, []op{coll("Allreduce", -1, 61)}))
		tr.Calls[1][0].End += d
		tr.End[1] += d
		return tr
	}, []int{1}, 61, 1},
	{"Early scan", func(t *testing.T, d float64) *Trace {
		return simulate(t, p2p([]op{compute(d), coll("Scan", -1, 70)}, []op{coll("Scan", -1, 71)}))
	}, []int{1}, 71, 1},
	{"Delay creating a window", func(t *testing.T, d float64) *Trace {
		h := newHand(3)
		h.add(0, "Win_create", 0, d+1e-6, -1, 80)
		h.add(1, "Win_create", 0, d+1e-6, -1, 80)
		h.add(2, "Win_create", d, d+1e-6, -1, 81)
		return &h.t
	}, []int{0, 1}, 80, 2},
	{"Window lock contention", func(t *testing.T, d float64) *Trace {
		// Ranks 0 and 1 lock rank 2's window; rank 1 asks while rank 0 holds
		// it for d and gets it when rank 0 unlocks.
		h := newHand(3)
		h.add(0, "Win_lock", 0, 1e-6, 2, 90)
		h.add(0, "Win_unlock", 1e-6+d, 2e-6+d, 2, 91)
		h.add(1, "Win_lock", 1e-6, 2e-6+d, 2, 92)
		h.add(1, "Win_unlock", 3e-6+d, 4e-6+d, 2, 93)
		if d == 0 { // no contention: rank 1 locks after rank 0 unlocked
			h.t.Calls[1] = nil
			h.add(1, "Win_lock", 3e-6, 4e-6, 2, 92)
			h.add(1, "Win_unlock", 4e-6, 5e-6, 2, 93)
		}
		h.add(2, "Win_create", 0, 1e-6, -1, 94) // a third rank with a call
		return &h.t
	}, []int{1}, 92, 1},
	{"Late post", func(t *testing.T, d float64) *Trace {
		h := newHand(2)
		h.add(0, "Win_post", d, d+1e-6, -1, 100)
		h.add(1, "Win_start", 0, d+1e-6, 0, 101)
		return &h.t
	}, []int{1}, 101, 1},
	{"Early wait for the end of an epoch", func(t *testing.T, d float64) *Trace {
		h := newHand(3)
		h.add(0, "Win_wait", 0, d+1e-6, -1, 110)
		h.add(1, "Win_complete", 0, 1e-6, 0, 111)
		h.add(2, "Win_complete", d, d+1e-6, 0, 112)
		return &h.t
	}, []int{0}, 110, 1},
}

func TestEveryProblemHasACase(t *testing.T) {
	rules, err := LoadRules(false)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]bool{}
	for _, c := range ruleCases {
		cases[c.problem] = true
	}
	for _, p := range rules.Problems {
		if !cases[p.Name] {
			t.Errorf("problem %q has no injected-delay test", p.Name)
		}
	}
}

func TestRulesFindInjectedDelay(t *testing.T) {
	rules, err := LoadRules(false)
	if err != nil {
		t.Fatal(err)
	}
	const delay = 0.01
	for _, c := range ruleCases {
		t.Run(c.problem, func(t *testing.T) {
			found := Analyse(rules, c.build(t, delay))
			var cost float64
			ranks := map[int]bool{}
			for _, f := range found {
				if f.Problem.Name != c.problem {
					continue
				}
				cost += f.Duration
				ranks[f.At.Rank] = true
				if f.At.Line != c.line {
					t.Errorf("found at %s, want line %d", f.At.Site(), c.line)
				}
				if f.Advice == "" {
					t.Error("no advice")
				}
			}
			want := c.waits * delay
			if math.Abs(cost-want) > 0.05*want {
				t.Errorf("cost %.6f s, want %.6f s within 5%%", cost, want)
			}
			var got []int
			for r := range ranks {
				got = append(got, r)
			}
			sort.Ints(got)
			if len(got) != len(c.ranks) {
				t.Fatalf("ranks %v, want %v", got, c.ranks)
			}
			for i := range got {
				if got[i] != c.ranks[i] {
					t.Fatalf("ranks %v, want %v", got, c.ranks)
				}
			}
		})
		t.Run(c.problem+"/clean", func(t *testing.T) {
			for _, f := range Analyse(rules, c.build(t, 0)) {
				if f.Duration > 0.01*delay {
					t.Errorf("clean run: %s of %.6f s at %s", f.Problem.Name, f.Duration, f.At.Site())
				}
			}
		})
	}
}
