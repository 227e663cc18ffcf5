package main

import (
	"strings"
	"testing"
)

// The lines both osu programs print with --format json: gompi's (report's
// JSON, loop_us last) and osu_coll.c's, then one without loop_us (an older
// build, e.g. a base side) and a ping-pong line.
func TestParsePoints(t *testing.T) {
	out := strings.Join([]string{
		`osu: bcast n=4 size=8: 1.00 µs`,
		`{"op":"bcast","n":4,"size":8,"avg_us":1.25,"min_us":1.00,"max_us":1.50,"iters":1000,"loop_us":3.75}`,
		`{"op":"scatter","n":4,"size":64,"avg_us":2.100,"min_us":2.000,"max_us":2.200,"iters":1000,"loop_us":5.500}`,
		`{"op":"gather","n":2,"size":512,"avg_us":0.9,"min_us":0.8,"max_us":1.0,"iters":1000}`,
		`  {"size":0,"latency_us":0.5,"reps":3}`,
		``,
	}, "\n")
	pts, err := parsePoints(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []point{
		{Op: "bcast", N: 4, Size: 8, Avg: 1.25, Loop: 3.75},
		{Op: "scatter", N: 4, Size: 64, Avg: 2.1, Loop: 5.5},
		{Op: "gather", N: 2, Size: 512, Avg: 0.9},
		{Latency: 0.5},
	}
	if len(pts) != len(want) {
		t.Fatalf("got %d points %+v, want %d", len(pts), pts, len(want))
	}
	for i := range want {
		if pts[i] != want[i] {
			t.Errorf("point %d: %+v, want %+v", i, pts[i], want[i])
		}
	}
}

func TestParsePointsBadLine(t *testing.T) {
	pts, err := parsePoints(strings.NewReader("{\"op\":\"bcast\",\"avg_us\":1}\n{\"op\":\n"))
	if err == nil || len(pts) != 1 {
		t.Fatalf("got %v, %v: want the first point and an error", pts, err)
	}
}

func TestRatioCells(t *testing.T) {
	got := ratioCells([][]float64{{3, 1, 2}, {1, 1, 1}})
	if want := " 2.00 | 1.00 | 2.00 |"; got != want {
		t.Errorf("ratioCells = %q, want %q", got, want)
	}
}
