package systest

import (
	"io"

	"github.com/gompi/gompi/benches/internal/report"
)

// ratioTable is a small text table of ratios after a few label columns.
type ratioTable struct {
	t *report.Table
}

func newRatioTable(labels ...string) *ratioTable {
	t := report.NewTable(append(labels, "ratio", "median ratio")...)
	t.SetVerb("ratio", "%.2f").SetVerb("median ratio", "%.2f")
	return &ratioTable{t}
}

// add adds a row: the ratio of the means (the seed's results), the ratio of
// the medians, then the labels.
func (r *ratioTable) add(ratio, medianRatio float64, labels ...any) {
	r.t.Add(append(labels, ratio, medianRatio)...)
}

func (r *ratioTable) write(w io.Writer) {
	if r.t.Len() > 0 {
		r.t.Write(w, report.Text)
	}
}

// newTextTable is a report table written as text.
func newTextTable(cols ...string) *report.Table { return report.NewTable(cols...) }

func anySlice(s []string) []any {
	a := make([]any, len(s))
	for i, v := range s {
		a[i] = v
	}
	return a
}
