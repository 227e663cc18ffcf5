package expert

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/gompi/gompi/expert/lang"
)

// Report is what goexpert report prints: the problems found, biggest first,
// with their cost against the total time (Σ over ranks of their run time),
// where they happen, the advice, and the predicted gain of removing them.
type Report struct {
	Ranks     int       `json:"ranks"`
	WallTime  float64   `json:"wall_time_s"`
	TotalTime float64   `json:"total_time_s"` // Σ over ranks of run time
	InCalls   []float64 `json:"in_calls_s"`   // per rank: time inside traced calls
	RunTime   []float64 `json:"run_time_s"`   // per rank
	Problems  []Problem `json:"problems"`
	Notes     []string  `json:"notes,omitempty"` // about the trace: drops, clock repair
}

// Problem is one problem of the report.
type Problem struct {
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Advice      string    `json:"advice"`
	Rule        string    `json:"rule"` // where the rule is: file:line:column
	Seconds     float64   `json:"seconds"`
	Percent     float64   `json:"percent"` // of the total time
	Occurrences int       `json:"occurrences"`
	Ranks       []int     `json:"ranks"` // ranks where time is lost
	PerRank     []float64 `json:"per_rank_s"`
	// shown is PerRank with each call's wait given to one problem only
	// (the biggest at that call), so that the picture does not count twice
	// what overlapping problems (late sender and its wrong-order part) share.
	shown []float64
	Sites []Site `json:"sites"`
	// PredictedGain is the wall time the replay saves without this
	// problem's waits (what-if), in seconds; PredictedPercent of the wall time.
	PredictedGain    float64 `json:"predicted_gain_s"`
	PredictedPercent float64 `json:"predicted_gain_percent"`
}

// Site is one call site where a problem costs time.
type Site struct {
	Site        string   `json:"site"` // "Recv in main.exchange (jacobi.go:88)"
	Seconds     float64  `json:"seconds"`
	Percent     float64  `json:"percent"` // of the total time
	Occurrences int      `json:"occurrences"`
	Ranks       []int    `json:"ranks"`
	Partners    []string `json:"partners,omitempty"` // the other calls of the problem (the late Send, ...), most frequent first
}

// BuildReport analyses t with rules and predicts each problem's gain.
func BuildReport(rules *lang.Rules, t *Trace) *Report {
	rep := &Report{Ranks: t.Ranks(), WallTime: t.WallTime(), TotalTime: t.TotalTime(),
		InCalls: make([]float64, t.Ranks()), RunTime: make([]float64, t.Ranks()), Problems: []Problem{}}
	for r, cs := range t.Calls {
		rep.RunTime[r] = t.End[r] - t.Begin[r]
		end := -1.0 // calls nested in others (Waits inside Waitall) count once
		for _, c := range cs {
			if c.End <= end {
				continue
			}
			rep.InCalls[r] += c.End - max(c.Start, end)
			end = c.End
		}
	}
	findings := Analyse(rules, t)
	byProblem := map[*lang.ProblemDecl][]Finding{}
	var order []*lang.ProblemDecl
	for _, f := range findings {
		if byProblem[f.Problem] == nil {
			order = append(order, f.Problem)
		}
		byProblem[f.Problem] = append(byProblem[f.Problem], f)
	}
	// For the picture: each call's wait goes to its biggest problem.
	biggest := map[*Call]*Finding{}
	for i := range findings {
		f := &findings[i]
		if b := biggest[f.At]; b == nil || f.Duration > b.Duration {
			biggest[f.At] = f
		}
	}
	for _, p := range order {
		fs := byProblem[p]
		pr := Problem{Name: p.Name, Description: p.Description, Rule: p.Pos.String(),
			Occurrences: len(fs), PerRank: make([]float64, t.Ranks()), shown: make([]float64, t.Ranks())}
		sites := map[string]*Site{}
		partners := map[string]map[string]int{}
		advice := map[string]int{}
		ranks := map[int]bool{}
		siteRanks := map[string]map[int]bool{}
		for _, f := range fs {
			if b := biggest[f.At]; b.Problem == f.Problem && b.Duration == f.Duration {
				pr.shown[f.At.Rank] += f.Duration
			}
			pr.Seconds += f.Duration
			pr.PerRank[f.At.Rank] += f.Duration
			ranks[f.At.Rank] = true
			advice[f.Advice]++
			s := f.At.Site()
			st := sites[s]
			if st == nil {
				st = &Site{Site: s}
				sites[s] = st
				partners[s] = map[string]int{}
				siteRanks[s] = map[int]bool{}
			}
			st.Seconds += f.Duration
			st.Occurrences++
			siteRanks[s][f.At.Rank] = true
			for _, a := range f.Actions {
				if a != f.At {
					partners[s][a.Site()]++
				}
			}
		}
		pr.Percent = 100 * pr.Seconds / rep.TotalTime
		pr.Ranks = sortedKeys(ranks)
		pr.Advice = mostFrequent(advice)
		for s, st := range sites {
			st.Percent = 100 * st.Seconds / rep.TotalTime
			st.Ranks = sortedKeys(siteRanks[s])
			st.Partners = byCount(partners[s])
			pr.Sites = append(pr.Sites, *st)
		}
		sort.Slice(pr.Sites, func(i, j int) bool { return pr.Sites[i].Seconds > pr.Sites[j].Seconds })
		base, without := PredictGain(t, fs)
		pr.PredictedGain = max(0, base-without)
		if base > 0 {
			pr.PredictedPercent = 100 * pr.PredictedGain / base
		}
		rep.Problems = append(rep.Problems, pr)
	}
	sort.SliceStable(rep.Problems, func(i, j int) bool { return rep.Problems[i].Seconds > rep.Problems[j].Seconds })
	return rep
}

func sortedKeys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func mostFrequent(m map[string]int) string {
	best, n := "", -1
	for s, c := range m {
		if c > n || (c == n && s < best) {
			best, n = s, c
		}
	}
	return best
}

func byCount(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if m[out[i]] != m[out[j]] {
			return m[out[i]] > m[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

// WriteJSON writes the report for programs.
func (r *Report) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}

// rankList writes ranks compactly: 0-3,5.
func rankList(rs []int, n int) string {
	if len(rs) == n && n > 1 {
		return fmt.Sprintf("all %d", n)
	}
	var parts []string
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", rs[i], rs[j]))
		} else {
			parts = append(parts, fmt.Sprint(rs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// WriteText writes the report for people: a table of the problems, then
// each problem with its description, advice and call sites. topSites bounds
// the sites listed per problem.
func (r *Report) WriteText(w io.Writer, topSites int) error {
	fmt.Fprintf(w, "%d ranks, wall time %.6f s, total time %.6f s (Σ over ranks of run time)\n", r.Ranks, r.WallTime, r.TotalTime)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if len(r.Problems) == 0 {
		fmt.Fprintln(w, "\nNo problems found.")
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "problem\t% total\tseconds\tranks\tpredicted gain\ttop call site\t")
	for _, p := range r.Problems {
		top := ""
		if len(p.Sites) > 0 {
			top = p.Sites[0].Site
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.6f\t%s\t%.6f s (%.1f %%)\t%s\t\n", p.Name, p.Percent, p.Seconds,
			rankList(p.Ranks, r.Ranks), p.PredictedGain, p.PredictedPercent, top)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, p := range r.Problems {
		fmt.Fprintf(w, "\n%d. %s: %.2f %% of total time (%.6f s in %d occurrences, ranks %s)\n", i+1, p.Name,
			p.Percent, p.Seconds, p.Occurrences, rankList(p.Ranks, r.Ranks))
		fmt.Fprintf(w, "   %s\n", p.Description)
		fmt.Fprintf(w, "   Advice: %s\n", p.Advice)
		fmt.Fprintf(w, "   Predicted gain: %.6f s of wall time (%.1f %%) if these waits were gone (replay of the trace).\n",
			p.PredictedGain, p.PredictedPercent)
		fmt.Fprintf(w, "   Where (rule %s):\n", p.Rule)
		for k, s := range p.Sites {
			if k == topSites {
				fmt.Fprintf(w, "     ... %d more call sites (--top)\n", len(p.Sites)-k)
				break
			}
			fmt.Fprintf(w, "     %6.2f %%  %.6f s  %6dx  ranks %-8s %s\n", s.Percent, s.Seconds, s.Occurrences, rankList(s.Ranks, r.Ranks), s.Site)
			for j, q := range s.Partners {
				if j == 3 {
					break
				}
				fmt.Fprintf(w, "%45s with %s\n", "", q)
			}
		}
	}
	return nil
}
