package slurmenv

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseNodeList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"gpu3", []string{"gpu3"}},
		{"n[01-04,07],gpu3", []string{"n01", "n02", "n03", "n04", "n07", "gpu3"}},
		{"n[1-3]", []string{"n1", "n2", "n3"}},
		{"n[8-11]", []string{"n8", "n9", "n10", "n11"}},
		{"n[08-11]", []string{"n08", "n09", "n10", "n11"}},
		{"n[098-101]", []string{"n098", "n099", "n100", "n101"}},
		{"n[0-1]", []string{"n0", "n1"}},
		{"a,b,c", []string{"a", "b", "c"}},
		{"rack[1-2]-n[01-02]", []string{"rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"}},
		{"x[1,3]y[5]z", []string{"x1y5z", "x3y5z"}},
		{"[1-2]", []string{"1", "2"}},
		{"node-a.cluster,node[7]", []string{"node-a.cluster", "node7"}},
		{" n[1-2] , m ", []string{"n1", "n2", "m"}},
	} {
		got, err := ParseNodeList(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseNodeList(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestParseNodeListErrors(t *testing.T) {
	for _, in := range []string{
		"", " ", "n[", "n]", "n[]", "n[1-]", "n[-2]", "n[3-1]", "n[a-b]", "n[1-2", "n[1[2]]", "a,,b", "n[1-2]]",
		"n[1-999999999]", "n[0-1023][0-1023][0-3]", "a b", "n[1--2]", "n[+1]",
	} {
		if got, err := ParseNodeList(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseNodeList(%q) = %q, %v; want ErrSyntax", in, got, err)
		}
	}
}

func TestParseCounts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		err  bool
	}{
		{"2(x3),1", []int{2, 2, 2, 1}, false},
		{"4", []int{4}, false},
		{"1,2,3", []int{1, 2, 3}, false},
		{"16(x2)", []int{16, 16}, false},
		{"", nil, true},
		{"0", nil, true},
		{"2(x0)", nil, true},
		{"2(x3", nil, true},
		{"2x3", nil, true},
		{"-1", nil, true},
		{"2(x3),", nil, true},
		{"1(x99999999)", nil, true},
	} {
		got, err := ParseCounts(tc.in)
		if (err != nil) != tc.err || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseCounts(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
		if err != nil && !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseCounts(%q): %v is not ErrSyntax", tc.in, err)
		}
	}
}

func TestAllocation(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	nodes, ok, err := allocation(env(map[string]string{JobID: "7", JobNodeList: "n[1-3]", TasksPerNode: "2(x2),1"}))
	want := []Node{{"n1", 2}, {"n2", 2}, {"n3", 1}}
	if !ok || err != nil || !reflect.DeepEqual(nodes, want) {
		t.Errorf("allocation = %v, %v, %v; want %v", nodes, ok, err, want)
	}
	// Without a task count, the CPUs per node.
	nodes, _, err = allocation(env(map[string]string{JobID: "7", JobNodeList: "a,b", CPUsPerNode: "4(x2)"}))
	if err != nil || !reflect.DeepEqual(nodes, []Node{{"a", 4}, {"b", 4}}) {
		t.Errorf("allocation by CPUs = %v, %v", nodes, err)
	}
	if _, ok, _ := allocation(env(map[string]string{})); ok {
		t.Error("allocation outside Slurm: ok")
	}
	if _, _, err := allocation(env(map[string]string{JobID: "7", JobNodeList: "n[1-3]", TasksPerNode: "2"})); !errors.Is(err, ErrSyntax) {
		t.Errorf("3 nodes, 1 count: %v", err)
	}
}

// FuzzParseNodeList checks that the parser never panics nor exceeds its
// bound, that every name it returns is well formed, and that a list written
// back in plain form reads the same.
func FuzzParseNodeList(f *testing.F) {
	for _, s := range []string{"n[01-04,07],gpu3", "rack[1-2]-n[01-02]", "a,b", "n[", "x[1,3]y[5]z", "n[098-101]", "[0-9][0-9]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		hosts, err := ParseNodeList(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("ParseNodeList(%q): error %v is not ErrSyntax", s, err)
			}
			return
		}
		if len(hosts) == 0 || len(hosts) > MaxHosts {
			t.Fatalf("ParseNodeList(%q): %d hosts", s, len(hosts))
		}
		for _, h := range hosts {
			if h == "" || strings.ContainsAny(h, "[], \t\n") {
				t.Fatalf("ParseNodeList(%q) gave host %q", s, h)
			}
		}
		if len(hosts) > 1000 {
			return
		}
		again, err := ParseNodeList(strings.Join(hosts, ","))
		if err != nil || !reflect.DeepEqual(again, hosts) {
			t.Fatalf("ParseNodeList(%q) = %q; its plain form reads %q, %v", s, hosts, again, err)
		}
	})
}

func FuzzParseCounts(f *testing.F) {
	for _, s := range []string{"2(x3),1", "4", "1(x", "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := ParseCounts(s)
		if err != nil {
			return
		}
		if len(cs) == 0 || len(cs) > MaxHosts {
			t.Fatalf("ParseCounts(%q): %d counts", s, len(cs))
		}
		for _, c := range cs {
			if c <= 0 {
				t.Fatalf("ParseCounts(%q) gave %d", s, c)
			}
		}
	})
}
