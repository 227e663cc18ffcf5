package hwtopo

import (
	"strings"
	"testing"
)

func TestPlan(t *testing.T) {
	cases := []struct {
		snap    string
		allowed string // "" = all
		n       int
		mapBy   MapBy
		bindTo  BindTo
		cpus    []string // per rank
		cores   []int    // per rank, index into Cores
		over    bool
	}{
		// Compact: fill package 0's cores, each with both hardware threads.
		{"xeon-2s-smt", "", 4, MapByCore, BindCore,
			[]string{"0,8", "1,9", "2,10", "3,11"}, []int{0, 1, 2, 3}, false},
		{"xeon-2s-smt", "", 5, MapByCore, BindCore,
			[]string{"0,8", "1,9", "2,10", "3,11", "4,12"}, []int{0, 1, 2, 3, 4}, false},
		// Round-robin over sockets ("by processor").
		{"xeon-2s-smt", "", 4, MapBySocket, BindCore,
			[]string{"0,8", "4,12", "1,9", "5,13"}, []int{0, 4, 1, 5}, false},
		{"xeon-2s-smt", "", 3, MapBySocket, BindSocket,
			[]string{"0-3,8-11", "4-7,12-15", "0-3,8-11"}, []int{0, 4, 1}, false},
		{"xeon-2s-smt", "", 2, MapByCore, BindNone,
			[]string{"", ""}, []int{0, 1}, false},
		// More ranks than cores: wrap around, and say so.
		{"xeon-2s-smt", "", 10, MapByCore, BindCore,
			[]string{"0,8", "1,9", "2,10", "3,11", "4,12", "5,13", "6,14", "7,15", "0,8", "1,9"},
			[]int{0, 1, 2, 3, 4, 5, 6, 7, 0, 1}, true},
		// Only the allowed CPUs count (a cgroup or taskset): one thread of
		// core 0, and core 5 whole.
		{"xeon-2s-smt", "0,5,13", 3, MapByCore, BindCore,
			[]string{"0", "5,13", "0"}, []int{0, 5, 0}, true},
		{"opteron-4s-6174", "", 8, MapBySocket, BindCore,
			[]string{"0", "12", "24", "36", "1", "13", "25", "37"}, []int{0, 12, 24, 36, 1, 13, 25, 37}, false},
		{"opteron-4s-6174", "", 2, MapBySocket, BindSocket,
			[]string{"0-11", "12-23"}, []int{0, 12}, false},
		{"epyc-2vcpu-kvm", "", 3, MapBySocket, BindCore,
			[]string{"0", "1", "0"}, []int{0, 1, 0}, true},
	}
	for _, c := range cases {
		tp := load(t, c.snap)
		if c.allowed != "" {
			tp.Allowed = cs(c.allowed)
		}
		p, err := tp.Plan(c.n, c.mapBy, c.bindTo)
		if err != nil {
			t.Errorf("%s %d %v %v: %v", c.snap, c.n, c.mapBy, c.bindTo, err)
			continue
		}
		var cpus []string
		var cores []int
		share := map[int]int{}
		for i, s := range p.Slots {
			if s.Rank != i || tp.Cores[s.Core].Package != s.Package {
				t.Errorf("slot %d: %+v", i, s)
			}
			cpus = append(cpus, s.CPUs.String())
			cores = append(cores, s.Core)
			share[s.Core]++
		}
		for _, s := range p.Slots {
			if s.Sharing != share[s.Core] {
				t.Errorf("slot %d: Sharing %d, but %d ranks on core %d", s.Rank, s.Sharing, share[s.Core], s.Core)
			}
		}
		name := c.snap + " " + c.mapBy.String() + "/" + c.bindTo.String()
		check(t, name+" cpus", cpus, c.cpus)
		check(t, name+" cores", cores, c.cores)
		if p.Oversubscribed != c.over || (p.Warning() != "") != c.over {
			t.Errorf("%s n=%d: oversubscribed %v, warning %q", name, c.n, p.Oversubscribed, p.Warning())
		}
		var b strings.Builder
		if err := p.WriteText(&b); err != nil || !strings.Contains(b.String(), "plan: ") {
			t.Errorf("WriteText: %v\n%s", err, b.String())
		}
	}
}

func TestPlanErrors(t *testing.T) {
	tp := load(t, "xeon-2s-smt")
	if _, err := tp.Plan(0, MapByCore, BindCore); err == nil {
		t.Error("Plan(0): no error")
	}
	if _, err := tp.Plan(2, MapByCore, BindTo(7)); err == nil {
		t.Error("Plan with a bad BindTo: no error")
	}
	tp.Allowed = cs("100")
	if _, err := tp.Plan(2, MapByCore, BindCore); err == nil {
		t.Error("Plan with no allowed CPU: no error")
	}
	tp = load(t, "xeon-2s-smt")
	p, _ := tp.Plan(2, MapByCore, BindNone)
	if err := p.Bind(0, 1); err != nil {
		t.Errorf("Bind with BindNone: %v", err)
	}
	if err := p.Bind(2, 1); err == nil {
		t.Error("Bind of a rank beyond the plan: no error")
	}
	if !strings.Contains(must2(tp.Plan(9, MapByCore, BindCore)).Warning(), "9 ranks on 8 cores") {
		t.Error("oversubscription warning does not give the counts")
	}
}

func must2(p *Plan, err error) *Plan {
	if err != nil {
		panic(err)
	}
	return p
}

func TestFlagValues(t *testing.T) {
	var b BindTo
	var m MapBy
	for _, c := range []struct {
		in   string
		want string
	}{{"none", "none"}, {"core", "core"}, {"socket", "socket"}, {"package", "socket"}} {
		if err := b.Set(c.in); err != nil || b.String() != c.want {
			t.Errorf("BindTo.Set(%q): %v, %v", c.in, b, err)
		}
	}
	for _, c := range []struct {
		in   string
		want string
	}{{"core", "core"}, {"socket", "socket"}, {"package", "socket"}} {
		if err := m.Set(c.in); err != nil || m.String() != c.want {
			t.Errorf("MapBy.Set(%q): %v, %v", c.in, m, err)
		}
	}
	if err := b.Set("numa"); err == nil || !strings.Contains(err.Error(), "none, core, socket") {
		t.Errorf("BindTo.Set(numa) = %v", err)
	}
	if err := m.Set("node"); err == nil {
		t.Error("MapBy.Set(node): no error")
	}
	if b.Type() == "" || m.Type() == "" || BindTo(9).String() != "invalid(9)" {
		t.Error("Type or String of an invalid value")
	}
}
