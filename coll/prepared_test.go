package coll

import "testing"

// TestCurrentSelectionChanges: the Selection a caller keeps a choice under
// changes when the table or the environment's overrides do, and only then.
func TestCurrentSelectionChanges(t *testing.T) {
	s0 := CurrentSelection()
	if CurrentSelection() != s0 {
		t.Fatal("selection changed with nothing changed")
	}
	orig := Table(OpBcast)
	defer SetTable(OpBcast, orig)
	if err := SetTable(OpBcast, []Rule{{Use: []string{"binomial"}}}); err != nil {
		t.Fatal(err)
	}
	s1 := CurrentSelection()
	if s1 == s0 {
		t.Error("SetTable left the selection as it was")
	}
	t.Cleanup(ReadEnvironment) // after t.Setenv's own cleanup
	t.Setenv(EnvVar(OpBcast), "binomial")
	ReadEnvironment()
	if CurrentSelection() == s1 {
		t.Error("a new GOMPI_COLL_BCAST left the selection as it was")
	}
}
