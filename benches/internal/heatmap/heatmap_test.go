package heatmap

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
)

func TestColourScale(t *testing.T) {
	tests := []struct {
		ratio float64
		want  string
	}{
		{1, "#f7f7f7"},          // the centre is neutral
		{Span, "#b2182b"},       // saturated red at Span
		{100, "#b2182b"},        // and beyond
		{1 / Span, "#2166ac"},   // saturated blue at 1/Span
		{0.001, "#2166ac"},      // and beyond
		{math.NaN(), "#d0d0d0"}, // not measured
		{0, "#d0d0d0"},
		{-1, "#d0d0d0"},
		{math.Inf(1), "#d0d0d0"},
	}
	for _, tt := range tests {
		if got := Colour(tt.ratio); got != tt.want {
			t.Errorf("Colour(%v) = %s, want %s", tt.ratio, got, tt.want)
		}
	}
	// On a log scale 2x and 0.5x sit half way to their ends: a red and a
	// blue, each the mean of white and its end (halves rounded up).
	for _, c := range []struct {
		ratio float64
		want  string
	}{{2, "#d58891"}, {0.5, "#8cafd2"}} {
		if got := Colour(c.ratio); got != c.want {
			t.Errorf("Colour(%v) = %s, want %s", c.ratio, got, c.want)
		}
	}
}

func sample() Map {
	return Map{
		Title: "bcast <&> test", Subtitle: "go run x", RowTitle: "ranks", ColTitle: "size",
		Legend: "gompi / Open MPI time",
		Rows:   []string{"2", "4"},
		Cols:   []string{"8 B", "1 KiB", "1 MiB"},
		Ratios: [][]float64{{0.5, 1, 2}, {math.NaN(), 4, 0.25}},
	}
}

func TestWriteSVGIsWellFormedAndLabelsEveryCell(t *testing.T) {
	var buf bytes.Buffer
	if err := sample().WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()
	dec := xml.NewDecoder(strings.NewReader(svg))
	var texts []string
	var rects int
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inText = tok.Name.Local == "text"
			if tok.Name.Local == "rect" {
				rects++
			}
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		case xml.EndElement:
			inText = false
		}
	}
	// Background, six cells, legend bar.
	if rects != 1+6+1 {
		t.Errorf("%d rects, want 8", rects)
	}
	for _, want := range []string{"bcast <&> test", "go run x", "ranks", "size", "gompi / Open MPI time",
		"0.50", "1.00", "2.00", "—", "4.00", "0.25", "1x (equal)", "8 B", "1 MiB"} {
		found := false
		for _, s := range texts {
			found = found || s == want
		}
		if !found {
			t.Errorf("no text %q in %q", want, texts)
		}
	}
	for _, c := range []string{Colour(0.5), Colour(1), Colour(2), Colour(math.NaN()), Colour(4), Colour(0.25)} {
		if !strings.Contains(svg, `fill="`+c+`"`) {
			t.Errorf("no cell filled %s", c)
		}
	}
}

func TestWriteSVGIsDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := sample().WriteSVG(&a); err != nil {
		t.Fatal(err)
	}
	if err := sample().WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Error("two renderings of one map differ")
	}
}

func TestWriteSVGRejectsWrongShape(t *testing.T) {
	for name, m := range map[string]Map{
		"missing row":  {Rows: []string{"2", "4"}, Cols: []string{"8"}, Ratios: [][]float64{{1}}},
		"short row":    {Rows: []string{"2"}, Cols: []string{"8", "16"}, Ratios: [][]float64{{1}}},
		"extra column": {Rows: []string{"2"}, Cols: []string{"8"}, Ratios: [][]float64{{1, 2}}},
	} {
		if err := m.WriteSVG(io.Discard); !errors.Is(err, ErrShape) {
			t.Errorf("%s: err = %v, want ErrShape", name, err)
		}
	}
}
