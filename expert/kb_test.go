package expert

import "testing"

func TestKnowledgeBaseChecks(t *testing.T) {
	r, err := LoadRules(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) < 18 {
		t.Errorf("knowledge base has %d problems, want at least 18", len(r.Problems))
	}
}
