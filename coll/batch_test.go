package coll

import "testing"

// Inside Batch the snapshot the collective calls read is not rebuilt; when
// the outermost Batch returns, every operation changed in it is, and only
// those.
func TestBatchPublishesOnceAtTheEnd(t *testing.T) {
	bcast, reduce := Table(OpBcast), Table(OpReduce)
	t.Cleanup(func() {
		if err := SetTable(OpBcast, bcast); err != nil {
			t.Fatal(err)
		}
		if err := SetTable(OpReduce, reduce); err != nil {
			t.Fatal(err)
		}
	})
	bp := snapshot.Load()
	before := *bp
	err := Batch(func() error {
		if err := SetTable(OpBcast, bcast[len(bcast)-1:]); err != nil {
			return err
		}
		return Batch(func() error { // nested: still put off
			if err := SetTable(OpReduce, reduce[len(reduce)-1:]); err != nil {
				return err
			}
			if got := len(Table(OpReduce)); got != 1 {
				t.Errorf("Table inside Batch: %d rules, want the new 1", got)
			}
			if snapshot.Load() != bp {
				t.Error("the snapshot was rebuilt inside Batch")
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	after := *snapshot.Load()
	for i, op := range ops {
		switch op {
		case OpBcast, OpReduce:
			if after[i] == before[i] || len(after[i].rules) != 1 {
				t.Errorf("%s: not rebuilt after Batch (%d rules)", op, len(after[i].rules))
			}
		default:
			if after[i] != before[i] {
				t.Errorf("%s: rebuilt though its table did not change", op)
			}
		}
	}
	if batch.depth != 0 || batch.pending != nil {
		t.Errorf("Batch left depth %d, pending %v", batch.depth, batch.pending)
	}
}

// A Batch whose function fails still publishes what it changed.
func TestBatchPublishesOnError(t *testing.T) {
	rules := Table(OpBcast)
	t.Cleanup(func() {
		if err := SetTable(OpBcast, rules); err != nil {
			t.Fatal(err)
		}
	})
	err := Batch(func() error {
		if err := SetTable(OpBcast, rules[len(rules)-1:]); err != nil {
			return err
		}
		return SetTable(OpBcast, nil) // invalid: no rules
	})
	if err == nil {
		t.Fatal("Batch: the invalid table passed")
	}
	if got := len(snap(OpBcast).rules); got != 1 {
		t.Errorf("after a failed Batch: the snapshot holds %d rules, want 1", got)
	}
}
