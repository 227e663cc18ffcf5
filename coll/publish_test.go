package coll

import "testing"

// TestPublishKeepsOtherOperations checks that changing one operation's
// table leaves every other operation's snapshot as it was (the same
// pointer: not rebuilt) and gives the changed one the new rules.
func TestPublishKeepsOtherOperations(t *testing.T) {
	before := *snapshot.Load()
	rules := Table(OpBcast)
	t.Cleanup(func() {
		if err := SetTable(OpBcast, rules); err != nil {
			t.Fatal(err)
		}
	})
	last := rules[len(rules)-1]
	if err := SetTable(OpBcast, []Rule{last}); err != nil {
		t.Fatal(err)
	}
	after := *snapshot.Load()
	for i, op := range ops {
		if op == OpBcast {
			if after[i] == before[i] || len(after[i].rules) != 1 {
				t.Errorf("bcast: snapshot not rebuilt (%d rules)", len(after[i].rules))
			}
			continue
		}
		if after[i] != before[i] {
			t.Errorf("%s: rebuilt though its table did not change", op)
		}
	}
}

// BenchmarkSetTable times one table change: what start-up pays for each
// table and algorithm the runtime installs.
func BenchmarkSetTable(b *testing.B) {
	rules := Table(OpAllreduce)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := SetTable(OpAllreduce, rules); err != nil {
			b.Fatal(err)
		}
	}
}
