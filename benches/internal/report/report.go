// Package report renders benchmark results as a table with named columns:
// aligned text for people, CSV or JSON lines (one object per row) for
// programs. Every suite offers the choice with a --format flag whose value is
// a Format.
package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format is an output format; *Format is a pflag.Value (--format text|csv|json).
type Format int

// Output formats.
const (
	Text Format = iota // aligned columns, numbers right-aligned
	CSV                // a header line, then one line per row
	JSON               // one JSON object per row, keys as the column names
)

var formatNames = []string{"text", "csv", "json"}

func (f Format) String() string {
	if f >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Set parses "text", "csv" or "json".
func (f *Format) Set(s string) error {
	for i, n := range formatNames {
		if strings.EqualFold(s, n) {
			*f = Format(i)
			return nil
		}
	}
	return fmt.Errorf("unknown format %q: want text, csv or json", s)
}

// Type is the value's type name in pflag's help.
func (*Format) Type() string { return "text|csv|json" }

// Table is a list of rows under named columns. Values are kept as given:
// strings, integers, floats, bools, nil (empty), or anything with a String
// method. Text output formats floats with the column's verb (default %.4g);
// CSV and JSON keep full precision. NaN and infinities are "-" in text, empty
// in CSV and null in JSON.
type Table struct {
	cols  []string
	verbs []string
	rows  [][]any
	err   error
}

// NewTable returns an empty table with the given column names.
func NewTable(columns ...string) *Table {
	return &Table{cols: columns, verbs: make([]string, len(columns))}
}

// SetVerb sets the fmt verb that text output uses for the column's numbers
// ("%.1f", "%d"). It returns t for chaining; an unknown column is an error
// that Write reports.
func (t *Table) SetVerb(column, verb string) *Table {
	for i, c := range t.cols {
		if c == column {
			t.verbs[i] = verb
			return t
		}
	}
	t.fail(fmt.Errorf("report: SetVerb: no column %q", column))
	return t
}

// Add appends a row; it must have one value per column, or Write fails.
func (t *Table) Add(values ...any) {
	if len(values) != len(t.cols) {
		t.fail(fmt.Errorf("report: row %d has %d values for %d columns", len(t.rows)+1, len(values), len(t.cols)))
		return
	}
	t.rows = append(t.rows, values)
}

func (t *Table) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

// Len returns the number of rows.
func (t *Table) Len() int { return len(t.rows) }

// Write renders the table in format f.
func (t *Table) Write(w io.Writer, f Format) error {
	if t.err != nil {
		return t.err
	}
	switch f {
	case Text:
		return t.writeText(w)
	case CSV:
		return t.writeCSV(w)
	case JSON:
		return t.writeJSON(w)
	}
	return fmt.Errorf("report: unknown format %v", f)
}

func isNumber(v any) bool {
	switch v.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return true
	}
	return false
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	}
	return 0, false
}

// cell formats v for text (verb applies to numbers) or, with verb "", for CSV.
func cell(v any, verb string, forText bool) string {
	if f, ok := toFloat(v); ok {
		switch {
		case math.IsNaN(f) || math.IsInf(f, 0):
			if forText {
				return "-"
			}
			return ""
		case forText && verb == "":
			return strconv.FormatFloat(f, 'g', 4, 64)
		case !forText:
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case fmt.Stringer:
		return x.String()
	}
	if forText && verb != "" && isNumber(v) {
		return fmt.Sprintf(verb, v)
	}
	return fmt.Sprint(v)
}

func (t *Table) writeText(w io.Writer) error {
	cells := make([][]string, len(t.rows)+1)
	cells[0] = t.cols
	width := make([]int, len(t.cols))
	right := make([]bool, len(t.cols))
	for i, c := range t.cols {
		width[i] = utf8.RuneCountInString(c)
		right[i] = len(t.rows) > 0
	}
	for r, row := range t.rows {
		cells[r+1] = make([]string, len(row))
		for i, v := range row {
			s := cell(v, t.verbs[i], true)
			cells[r+1][i] = s
			width[i] = max(width[i], utf8.RuneCountInString(s))
			if v != nil && !isNumber(v) {
				right[i] = false
			}
		}
	}
	var b strings.Builder
	for _, row := range cells {
		var line strings.Builder
		for i, s := range row {
			if i > 0 {
				line.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(s))
			if right[i] {
				line.WriteString(pad + s)
			} else {
				line.WriteString(s + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (t *Table) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(t.cols)
	for _, row := range t.rows {
		rec := make([]string, len(row))
		for i, v := range row {
			rec[i] = cell(v, "", false)
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

func (t *Table) writeJSON(w io.Writer) error {
	var b strings.Builder
	for _, row := range t.rows {
		b.WriteByte('{')
		for i, v := range row {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(t.cols[i])
			b.Write(k)
			b.WriteByte(':')
			val, err := jsonValue(v)
			if err != nil {
				return fmt.Errorf("report: column %q: %w", t.cols[i], err)
			}
			b.Write(val)
		}
		b.WriteString("}\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func jsonValue(v any) ([]byte, error) {
	if f, ok := toFloat(v); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return []byte("null"), nil
	}
	if s, ok := v.(fmt.Stringer); ok && !isNumber(v) {
		return json.Marshal(s.String())
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, errors.New("value cannot be written as JSON")
	}
	return b, nil
}
