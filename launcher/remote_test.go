package launcher

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gompi/gompi/internal/jobenv"
)

func TestParseHosts(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hosts")
	os.WriteFile(file, []byte("# cluster\nnodeA slots=2\nnodeB   slots=3 max_slots=4 # big one\n\nnodeC\n"), 0o644)
	mpich := filepath.Join(t.TempDir(), "mpich-hosts")
	os.WriteFile(mpich, []byte("nodeA:2\nnodeB:1\nnodeC\n"), 0o644)
	bad := filepath.Join(t.TempDir(), "bad-hosts")
	os.WriteFile(bad, []byte("nodeA:x\n"), 0o644)
	for _, tc := range []struct {
		list, file string
		want       []Host
		bad        bool
	}{
		{list: "a:2,b:2", want: []Host{{"a", 2}, {"b", 2}}},
		{list: "a,b:3,a", want: []Host{{"a", 2}, {"b", 3}}},
		{file: file, want: []Host{{"nodeA", 2}, {"nodeB", 3}, {"nodeC", 1}}},
		{list: "x:1", file: file, want: []Host{{"x", 1}, {"nodeA", 2}, {"nodeB", 3}, {"nodeC", 1}}},
		{file: mpich, want: []Host{{"nodeA", 2}, {"nodeB", 1}, {"nodeC", 1}}},
		{file: bad, bad: true},
		{list: "a:0", bad: true},
		{list: "a:x", bad: true},
		{list: ":2", bad: true},
		{file: filepath.Join(t.TempDir(), "none"), bad: true},
	} {
		got, err := ParseHosts(tc.list, tc.file)
		if tc.bad != (err != nil) || !tc.bad && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseHosts(%q, %q) = %v, %v; want %v (error: %v)", tc.list, tc.file, got, err, tc.want, tc.bad)
		}
	}
}

func TestMapRanks(t *testing.T) {
	hosts := []Host{{"a", 2}, {"b", 3}}
	for _, tc := range []struct {
		n    int
		by   string
		want []jobenv.HostRanks
	}{
		{5, "slot", []jobenv.HostRanks{{Name: "a", Ranks: []int{0, 1}}, {Name: "b", Ranks: []int{2, 3, 4}}}},
		{5, "node", []jobenv.HostRanks{{Name: "a", Ranks: []int{0, 2}}, {Name: "b", Ranks: []int{1, 3, 4}}}},
		{2, "slot", []jobenv.HostRanks{{Name: "a", Ranks: []int{0, 1}}}},
		{3, "node", []jobenv.HostRanks{{Name: "a", Ranks: []int{0, 2}}, {Name: "b", Ranks: []int{1}}}},
	} {
		got, err := mapRanks(hosts, tc.n, tc.by)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("mapRanks(%d, %s) = %v, %v; want %v", tc.n, tc.by, got, err, tc.want)
		}
	}
	if _, err := mapRanks(hosts, 6, "slot"); err == nil {
		t.Error("6 ranks on 5 slots were placed")
	}
}

func TestOversubscribeAndPerNode(t *testing.T) {
	for _, tc := range []struct {
		hosts []Host
		n     int
		want  []Host
	}{
		{[]Host{{"localhost", 2}}, 4, []Host{{"localhost", 4}}},
		{[]Host{{"a", 2}, {"b", 1}}, 6, []Host{{"a", 4}, {"b", 2}}},
		{[]Host{{"a", 2}, {"b", 2}}, 3, []Host{{"a", 2}, {"b", 2}}},
	} {
		got := Oversubscribe(tc.hosts, tc.n)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Oversubscribe(%v, %d) = %v, want %v", tc.hosts, tc.n, got, tc.want)
		}
		if _, err := mapRanks(got, tc.n, "slot"); err != nil {
			t.Errorf("after Oversubscribe(%v, %d): %v", tc.hosts, tc.n, err)
		}
	}
	if got := PerNode([]Host{{"a", 2}, {"b", 5}}, 3); !reflect.DeepEqual(got, []Host{{"a", 3}, {"b", 3}}) {
		t.Errorf("PerNode: %v", got)
	}
}

// FuzzParseHosts: no -H list or hostfile makes ParseHosts panic, and what it
// accepts has names and at least one slot each.
func FuzzParseHosts(f *testing.F) {
	f.Add("a:2,b", "nodeA slots=2\nnodeB:3\n# c\n")
	f.Add("", "x max_slots=4 slots=1\n")
	f.Add(":,a:", "h:0\n")
	f.Fuzz(func(t *testing.T, list, file string) {
		path := filepath.Join(t.TempDir(), "hosts")
		os.WriteFile(path, []byte(file), 0o644)
		hs, err := ParseHosts(list, path)
		if err != nil {
			return
		}
		for _, h := range hs {
			if h.Name == "" || h.Slots < 1 {
				t.Errorf("ParseHosts(%q, %q) accepted %+v", list, file, h)
			}
		}
	})
}
