package main

import (
	"testing"

	"github.com/gompi/gompi/hwtopo"
)

func TestCrowdedBinding(t *testing.T) {
	for _, c := range []struct {
		n, cpus int
		want    hwtopo.BindTo
	}{
		{1, 2, hwtopo.BindNone}, {4, 2, hwtopo.BindNone}, {7, 2, hwtopo.BindNone},
		{8, 2, hwtopo.BindCore}, {64, 2, hwtopo.BindCore}, {63, 16, hwtopo.BindNone},
		{64, 16, hwtopo.BindCore}, {8, 0, hwtopo.BindNone},
	} {
		if got := crowdedBinding(c.n, c.cpus); got != c.want {
			t.Errorf("crowdedBinding(%d, %d) = %v, want %v", c.n, c.cpus, got, c.want)
		}
	}
}
