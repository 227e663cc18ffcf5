package gompi

import (
	"slices"
	"testing"
)

// TestFirstFit: regions go in the first gap that holds them, a freed
// region's gap is reused, and a request no gap holds is refused.
func TestFirstFit(t *testing.T) {
	const size = 100
	var f firstFit
	steps := []struct {
		alloc   int  // bytes to place (0: release free instead)
		free    span // with alloc 0
		want    span
		wantOK  bool
		wantMap []span // the regions in use afterwards
	}{
		{alloc: 30, want: span{0, 30}, wantOK: true, wantMap: []span{{0, 30}}},
		{alloc: 30, want: span{30, 60}, wantOK: true, wantMap: []span{{0, 30}, {30, 60}}},
		{alloc: 50, wantOK: false, wantMap: []span{{0, 30}, {30, 60}}},
		{free: span{0, 30}, wantMap: []span{{30, 60}}},
		{alloc: 20, want: span{0, 20}, wantOK: true, wantMap: []span{{0, 20}, {30, 60}}},
		{alloc: 15, want: span{60, 75}, wantOK: true, wantMap: []span{{0, 20}, {30, 60}, {60, 75}}},
		{alloc: 10, want: span{20, 30}, wantOK: true, wantMap: []span{{0, 20}, {20, 30}, {30, 60}, {60, 75}}},
		{free: span{30, 60}, wantMap: []span{{0, 20}, {20, 30}, {60, 75}}},
		{free: span{5, 6}, wantMap: []span{{0, 20}, {20, 30}, {60, 75}}}, // not in use: nothing happens
		{alloc: 55, wantOK: false, wantMap: []span{{0, 20}, {20, 30}, {60, 75}}},
		{alloc: 25, want: span{30, 55}, wantOK: true, wantMap: []span{{0, 20}, {20, 30}, {30, 55}, {60, 75}}},
		{alloc: 25, want: span{75, 100}, wantOK: true, wantMap: []span{{0, 20}, {20, 30}, {30, 55}, {60, 75}, {75, 100}}},
		{alloc: 6, wantOK: false, wantMap: []span{{0, 20}, {20, 30}, {30, 55}, {60, 75}, {75, 100}}},
	}
	for i, st := range steps {
		if st.alloc > 0 {
			got, ok := f.alloc(st.alloc, size)
			if ok != st.wantOK || ok && got != st.want {
				t.Fatalf("step %d: alloc(%d) = %v, %v; want %v, %v", i, st.alloc, got, ok, st.want, st.wantOK)
			}
		} else {
			f.release(st.free)
		}
		if !slices.Equal(f.used, st.wantMap) {
			t.Fatalf("step %d: in use %v, want %v", i, f.used, st.wantMap)
		}
	}
}
