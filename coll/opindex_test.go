package coll

import "testing"

func TestOpIndex(t *testing.T) {
	for i, op := range ops {
		if got := opIndex(op); got != i {
			t.Errorf("opIndex(%s) = %d, want %d", op, got, i)
		}
		if opInfoList[i].check == nil || envVarList[i] != EnvVar(op) {
			t.Errorf("%s: lists out of step", op)
		}
	}
	if opIndex("nosuch") != -1 {
		t.Error("opIndex(nosuch) != -1")
	}
}
