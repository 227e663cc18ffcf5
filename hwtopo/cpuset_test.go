package hwtopo

import (
	"slices"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	cases := []struct {
		in   string
		want []int
		str  string
		bad  bool
	}{
		{in: "", want: nil, str: ""},
		{in: " \n", want: nil, str: ""},
		{in: "0", want: []int{0}, str: "0"},
		{in: "0-3\n", want: []int{0, 1, 2, 3}, str: "0-3"},
		{in: "0-3,8-11", want: []int{0, 1, 2, 3, 8, 9, 10, 11}, str: "0-3,8-11"},
		{in: "5,1,3,2", want: []int{1, 2, 3, 5}, str: "1-3,5"},
		{in: "1,1,0-1", want: []int{0, 1}, str: "0-1"},
		{in: "7-7", want: []int{7}, str: "7"},
		{in: "3-1", bad: true},
		{in: "a", bad: true},
		{in: "1,,2", bad: true},
		{in: "-1", bad: true},
		{in: "0-99999999", bad: true},
	}
	for _, c := range cases {
		s, err := ParseCPUList(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("ParseCPUList(%q) = %v, want an error", c.in, s)
			}
			continue
		}
		if err != nil || !slices.Equal(s, c.want) || s.String() != c.str {
			t.Errorf("ParseCPUList(%q) = %v (%q), %v; want %v (%q)", c.in, s, s.String(), err, c.want, c.str)
		}
	}
}

func TestCPUSetOps(t *testing.T) {
	a, b := NewCPUSet(3, 1, 2, 2), NewCPUSet(2, 3, 4)
	if !a.Equal(CPUSet{1, 2, 3}) || a.String() != "1-3" {
		t.Errorf("NewCPUSet = %v", a)
	}
	if got := a.Intersect(b); !got.Equal(CPUSet{2, 3}) {
		t.Errorf("Intersect = %v", got)
	}
	if got := a.Union(b); !got.Equal(CPUSet{1, 2, 3, 4}) {
		t.Errorf("Union = %v", got)
	}
	if !a.Contains(2) || a.Contains(4) || !(CPUSet{2, 3}).SubsetOf(a) || b.SubsetOf(a) || !CPUSet(nil).SubsetOf(a) {
		t.Error("Contains or SubsetOf wrong")
	}
}

// FuzzParseCPUList: whatever parses prints back to a list that parses to the
// same set.
func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0-3,8-11", "0", "", "1,3,5-7", "0-65536", "2-1", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseCPUList(in)
		if err != nil {
			return
		}
		again, err := ParseCPUList(s.String())
		if err != nil || !again.Equal(s) {
			t.Fatalf("%q → %v → %q → %v, %v", in, s, s.String(), again, err)
		}
		if !slices.IsSorted(s) || len(slices.Compact(slices.Clone(s))) != len(s) {
			t.Fatalf("%q → %v: not sorted and unique", in, s)
		}
	})
}
