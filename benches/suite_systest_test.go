package main

import (
	"errors"
	"slices"
	"testing"
)

// Bad parameters stop benches systest before anything runs, with status 2.
func TestSystestSuiteRefusesBadParameters(t *testing.T) {
	if !slices.ContainsFunc(suites, func(s suite) bool { return s.name == "systest" }) {
		t.Fatal("systest is not registered")
	}
	for _, args := range [][]string{
		{"nosuch"},
		{"all,nosuch"},
		{"--max-block", "-1K", "memwrite"},
		{"--max-block", "1T", "memwrite"},
		{"--thread-block", "512G", "multiwrite"},
		{"--loads", "most", "threads"},
		{"--alpha", "0", "threads"},
		{"--nosuch"},
	} {
		if err := runSystest(args); !errors.Is(err, errUsage) {
			t.Errorf("systest %v: %v, want a usage error", args, err)
		}
	}
	if err := runSystest([]string{"--help"}); err != nil {
		t.Errorf("--help: %v", err)
	}
}
