package expert

import (
	"testing"
)

var fuzzRoutines = []string{"Send", "Ssend", "Recv", "Isend", "Irecv", "Wait", "Barrier", "Bcast",
	"Gather", "Reduce", "Scatter", "Alltoall", "Scan", "Start", "Recv_init", "Send_init", "Sendrecv",
	"Win_create", "Win_lock", "Win_unlock", "Win_post", "Win_start", "Win_complete", "Win_wait"}

// FuzzAnalyse: whatever calls a trace holds — unmatched, overlapping,
// backwards in time, messages shared by three calls — the analyser and the
// replay give a report and never panic or hang.
func FuzzAnalyse(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte{2, 0, 0, 9, 9, 1, 2, 3, 6, 1, 1, 1, 6, 2, 2, 2, 6, 0, 0, 0})
	f.Add([]byte{0, 5, 1, 4, 2, 2, 2, 3, 4, 3, 3, 1, 17, 0, 1, 3, 18, 1, 2, 4})
	rules, err := LoadRules(false)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		const ranks = 3
		tr := &Trace{Calls: make([][]Call, ranks), Begin: make([]float64, ranks), End: make([]float64, ranks)}
		now := make([]float64, ranks)
		for i := 0; i+4 <= len(b) && i < 4*200; i += 4 {
			r := int(b[i]) % ranks
			c := Call{Rank: r, Routine: fuzzRoutines[int(b[i+1])%len(fuzzRoutines)],
				Peer: int(b[i+2]%4) - 1, Root: int(b[i+2]%3) - 1, Tag: int(b[i+3] % 2),
				Comm: int64(b[i+3] % 3), Request: int64(b[i+3] % 4), Msg: int64(b[i+3]%5) - 1,
				Side: []string{"", "send", "receive"}[b[i+2]%3], Func: "f", File: "f.go", Line: i}
			c.Start = now[r] + float64(int(b[i+3])-64)*1e-4 // may go back in time
			c.End = c.Start + float64(b[i+2])*1e-4
			now[r] = max(now[r], c.End)
			tr.Calls[r] = append(tr.Calls[r], c)
			tr.End[r] = now[r]
		}
		rep := BuildReport(rules, tr)
		for _, p := range rep.Problems {
			if !(p.Seconds > 0) || p.PredictedGain < 0 {
				t.Fatalf("%s: %v s, predicted %v s", p.Name, p.Seconds, p.PredictedGain)
			}
		}
	})
}
