package expert

import (
	"testing"
)

// BenchmarkReport: the naive Jacobi's exchange pattern on 64 ranks for 500
// iterations (about 128 000 calls), analysed and replayed for every problem.
func BenchmarkReport(b *testing.B) {
	const ranks, iterations = 64, 500
	scripts := make([][]op, ranks)
	for r := range scripts {
		for it := 0; it < iterations; it++ {
			s := append(scripts[r], compute(1e-3*float64(1+(r+it)%3)))
			if r > 0 {
				s = append(s, send(r-1, 1))
			}
			if r < ranks-1 {
				s = append(s, recv(r+1, 2), send(r+1, 3))
			}
			if r > 0 {
				s = append(s, recv(r-1, 4))
			}
			scripts[r] = s
		}
	}
	tr, err := runSim(scripts)
	if err != nil {
		b.Fatal(err)
	}
	rules, err := LoadRules(false)
	if err != nil {
		b.Fatal(err)
	}
	calls := 0
	for _, cs := range tr.Calls {
		calls += len(cs)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep := BuildReport(rules, tr)
		if len(rep.Problems) == 0 {
			b.Fatal("no problems")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(calls), "ns/call")
}
