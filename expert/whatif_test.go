package expert

import (
	"math"
	"testing"
)

func TestPredictGain(t *testing.T) {
	rules, err := LoadRules(false)
	if err != nil {
		t.Fatal(err)
	}
	const d = 0.010
	for _, c := range []struct {
		name  string
		after float64 // computation on the receiver after its receive
		want  float64 // saving of wall time
	}{
		// The receiver's work after the wait is longer than the sender's
		// delay: removing the wait saves all of it.
		{"all", 0.020, d},
		// Shorter: the sender's delay still bounds the run; only part of
		// the summed wait is saved.
		{"part", 0.004, 0.004},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := simulate(t, p2p([]op{compute(d), send(1, 10)}, []op{recv(0, 20), compute(c.after)}))
			var late []Finding
			for _, f := range Analyse(rules, tr) {
				if f.Problem.Name == "Late sender" {
					late = append(late, f)
				}
			}
			base, without := PredictGain(tr, late)
			if math.Abs(base-tr.WallTime()) > 1e-9 {
				t.Errorf("replay of the trace as it is: %.6f s, the trace's wall time %.6f s", base, tr.WallTime())
			}
			if got := base - without; math.Abs(got-c.want) > 0.05*c.want {
				t.Errorf("predicted saving %.6f s, want %.6f s", got, c.want)
			}
		})
	}
}

func TestReplayFollowsTheTrace(t *testing.T) {
	// A program with every kind of dependency: the replay of the trace as it
	// is must give its wall time back.
	tr := simulate(t, p2p(
		[]op{compute(0.003), send(1, 1), coll("Barrier", -1, 2), coll("Bcast", 0, 3), irecv(1, 1, 4), wait(1, false, 5), coll("Scan", -1, 6)},
		[]op{recv(0, 1), compute(0.002), coll("Barrier", -1, 2), compute(0.001), coll("Bcast", 0, 3), compute(0.004), send(0, 4), coll("Scan", -1, 6)},
		[]op{compute(0.005), coll("Barrier", -1, 2), coll("Bcast", 0, 3), coll("Scan", -1, 6)},
	))
	base, _ := PredictGain(tr, nil)
	if math.Abs(base-tr.WallTime()) > 1e-9 {
		t.Errorf("replay %.9f s, trace %.9f s", base, tr.WallTime())
	}
}
