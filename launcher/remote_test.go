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
	for _, tc := range []struct {
		list, file string
		want       []Host
		bad        bool
	}{
		{list: "a:2,b:2", want: []Host{{"a", 2}, {"b", 2}}},
		{list: "a,b:3,a", want: []Host{{"a", 2}, {"b", 3}}},
		{file: file, want: []Host{{"nodeA", 2}, {"nodeB", 3}, {"nodeC", 1}}},
		{list: "x:1", file: file, want: []Host{{"x", 1}, {"nodeA", 2}, {"nodeB", 3}, {"nodeC", 1}}},
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
