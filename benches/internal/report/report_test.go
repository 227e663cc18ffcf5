package report

import (
	"math"
	"strings"
	"testing"
	"time"
)

func sample() *Table {
	t := NewTable("source", "overhead_ns", "drift_ppm", "reads", "ok", "note")
	t.SetVerb("overhead_ns", "%.1f")
	t.Add("tsc", 22.94, -0.0412, 1000000, true, nil)
	t.Add("monotonic", 28.5, 0.0, 1000000, true, "reference")
	t.Add("realtime", 48.25, math.NaN(), 12, false, time.Millisecond)
	return t
}

func TestFormats(t *testing.T) {
	cases := []struct {
		f    Format
		want string
	}{
		{Text, "" +
			"source     overhead_ns  drift_ppm    reads  ok     note\n" +
			"tsc               22.9    -0.0412  1000000  true\n" +
			"monotonic         28.5          0  1000000  true   reference\n" +
			"realtime          48.2          -       12  false  1ms\n"},
		{CSV, "" +
			"source,overhead_ns,drift_ppm,reads,ok,note\n" +
			"tsc,22.94,-0.0412,1000000,true,\n" +
			"monotonic,28.5,0,1000000,true,reference\n" +
			"realtime,48.25,,12,false,1ms\n"},
		{JSON, "" +
			`{"source":"tsc","overhead_ns":22.94,"drift_ppm":-0.0412,"reads":1000000,"ok":true,"note":null}` + "\n" +
			`{"source":"monotonic","overhead_ns":28.5,"drift_ppm":0,"reads":1000000,"ok":true,"note":"reference"}` + "\n" +
			`{"source":"realtime","overhead_ns":48.25,"drift_ppm":null,"reads":12,"ok":false,"note":"1ms"}` + "\n"},
	}
	for _, c := range cases {
		var b strings.Builder
		if err := sample().Write(&b, c.f); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%v:\n%s\nwant:\n%s", c.f, b.String(), c.want)
		}
	}
}

func TestTableErrors(t *testing.T) {
	tb := NewTable("a", "b")
	tb.Add(1)
	if err := tb.Write(&strings.Builder{}, Text); err == nil || !strings.Contains(err.Error(), "1 values for 2 columns") {
		t.Errorf("short row: %v", err)
	}
	tb = NewTable("a").SetVerb("z", "%d")
	if err := tb.Write(&strings.Builder{}, CSV); err == nil {
		t.Error("SetVerb on a missing column: no error")
	}
	tb = NewTable("a")
	tb.Add(make(chan int))
	if err := tb.Write(&strings.Builder{}, JSON); err == nil {
		t.Error("a channel in JSON: no error")
	}
	if err := NewTable("a").Write(&strings.Builder{}, Format(9)); err == nil {
		t.Error("unknown format: no error")
	}
	var b strings.Builder
	NewTable("only", "header").Write(&b, Text)
	if b.String() != "only  header\n" || NewTable("x").Len() != 0 {
		t.Errorf("empty table: %q", b.String())
	}
}

func TestFormatFlag(t *testing.T) {
	var f Format
	for _, s := range []string{"csv", "JSON", "text"} {
		if err := f.Set(s); err != nil || f.String() != strings.ToLower(s) {
			t.Errorf("Set(%q): %v %v", s, f, err)
		}
	}
	if err := f.Set("xml"); err == nil {
		t.Error("Set(xml): no error")
	}
	if f.Type() == "" || Format(7).String() != "Format(7)" {
		t.Error("Type or String")
	}
}
