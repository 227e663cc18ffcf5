package coll_test

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/coll/sim"
)

const docPath = "../docs/COLLECTIVES.md"

// docBlock is a generated block of the documentation: a marker comment
// followed by a fenced text block.
var docBlock = regexp.MustCompile("(?s)<!-- (schedule|selection-table)([^>]*)-->\n```text\n(.*?)```\n")

// TestDocs keeps the examples of docs/COLLECTIVES.md true: every block after
// a "<!-- schedule op=… alg=… n=… size=… -->" marker must be what the
// simulator prints for that call, and the block after
// "<!-- selection-table -->" the default table. -update rewrites them.
func TestDocs(t *testing.T) {
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	out := docBlock.ReplaceAllFunc(doc, func(m []byte) []byte {
		count++
		sub := docBlock.FindSubmatch(m)
		kind, params, old := string(sub[1]), string(sub[2]), string(sub[3])
		var b bytes.Buffer
		switch kind {
		case "schedule":
			if err := docSchedule(&b, params); err != nil {
				t.Errorf("%s%s: %v", kind, params, err)
				return m
			}
		case "selection-table":
			sim.WriteSelectionTable(&b)
		}
		if b.String() != old && !*update {
			t.Errorf("%s%s in %s is out of date (go test ./coll -run Docs -update); now:\n%s", kind, params, docPath, b.String())
		}
		return []byte(fmt.Sprintf("<!-- %s%s-->\n```text\n%s```\n", kind, params, b.String()))
	})
	if count == 0 {
		t.Fatalf("no generated blocks in %s", docPath)
	}
	if *update {
		if err := os.WriteFile(docPath, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func docSchedule(b *bytes.Buffer, params string) error {
	c := sim.Call{}
	for _, kv := range strings.Fields(params) {
		k, v, _ := strings.Cut(kv, "=")
		n, _ := strconv.Atoi(v)
		switch k {
		case "op":
			c.Op = coll.Operation(v)
		case "alg":
			c.Algorithm = v
		case "n":
			c.Ranks = n
		case "size":
			c.Bytes = n
		case "root":
			c.Root = n
		case "segment":
			c.SegmentSize = n
		default:
			return fmt.Errorf("unknown parameter %q", k)
		}
	}
	e, err := sim.Explain(c)
	if err != nil {
		return err
	}
	return e.WriteText(b)
}
