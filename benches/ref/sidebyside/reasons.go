package main

// Reasons: a hand-written file of measured explanations for the sweep's
// points where gompi is slower than the MPI library. The sweep joins it into
// sweep.md (a reason column, the reasons with their evidence, and the points
// above 1.0 that no reason covers), so that a point is either at or below
// 1.0, or explained, or listed as unexplained.
//
// The file is a JSON array; each entry covers the points of some operations
// at some rank counts and a range of sizes:
//
//	[
//	  {
//	    "id": "oversubscribed-wakeup",
//	    "ops": ["alltoallv", "alltoallw"],
//	    "n": [4, 8],
//	    "min_bytes": 8, "max_bytes": 1048576,
//	    "reason": "what was measured, and what would fix it",
//	    "evidence": "docs/PERFORMANCE.md#section, or the command that shows it"
//	  }
//	]
//
// n empty or absent: every rank count; min_bytes absent: 0; max_bytes absent
// or 0: no limit. The first entry that covers a point is its reason.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"

	"github.com/gompi/gompi/benches/osu"
)

// reason is one entry of the reasons file.
type reason struct {
	ID       string   `json:"id"`
	Ops      []string `json:"ops"`
	N        []int    `json:"n,omitempty"`
	MinBytes int      `json:"min_bytes,omitempty"`
	MaxBytes int      `json:"max_bytes,omitempty"`
	Reason   string   `json:"reason"`
	Evidence string   `json:"evidence"`
}

// errBadReasons classes every error of a reasons file.
var errBadReasons = errors.New("bad reasons file")

var reasonID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// covers reports whether r explains the point (op, n, size).
func (r reason) covers(op string, n, size int) bool {
	if !slices.Contains(r.Ops, op) {
		return false
	}
	if len(r.N) > 0 && !slices.Contains(r.N, n) {
		return false
	}
	return size >= r.MinBytes && (r.MaxBytes == 0 || size <= r.MaxBytes)
}

// parseReasons decodes and checks a reasons file: known operations, positive
// rank counts, a size range whose ends are in order, a unique id, and a
// reason and evidence given.
func parseReasons(data []byte) ([]reason, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rs []reason
	if err := dec.Decode(&rs); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadReasons, err)
	}
	ids := map[string]bool{}
	for i, r := range rs {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%w: entry %d (%q): %s", errBadReasons, i+1, r.ID, fmt.Sprintf(format, args...))
		}
		switch {
		case !reasonID.MatchString(r.ID):
			return nil, bad("id must be lower-case letters, digits and dashes")
		case ids[r.ID]:
			return nil, bad("id used twice")
		case len(r.Ops) == 0:
			return nil, bad("ops is empty: name the operations (%v)", osu.Ops)
		case r.MinBytes < 0 || r.MaxBytes < 0:
			return nil, bad("min_bytes and max_bytes must not be negative")
		case r.MaxBytes != 0 && r.MinBytes > r.MaxBytes:
			return nil, bad("min_bytes %d is above max_bytes %d", r.MinBytes, r.MaxBytes)
		case r.Reason == "":
			return nil, bad("reason is empty")
		case r.Evidence == "":
			return nil, bad("evidence is empty: say where the measurement is (a docs section or a command)")
		}
		for _, op := range r.Ops {
			if !slices.Contains(osu.Ops, op) {
				return nil, bad("unknown operation %q (one of %v)", op, osu.Ops)
			}
		}
		for _, n := range r.N {
			if n < 1 {
				return nil, bad("rank count %d: must be at least 1", n)
			}
		}
		ids[r.ID] = true
	}
	return rs, nil
}

// loadReasons reads a reasons file; path "" means none.
func loadReasons(path string) ([]reason, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--reasons: %w", err)
	}
	rs, err := parseReasons(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rs, nil
}

// reasonFor returns the first reason that covers s, or nil.
func reasonFor(rs []reason, s sample) *reason {
	for i := range rs {
		if rs[i].covers(s.Op, s.N, s.Size) {
			return &rs[i]
		}
	}
	return nil
}
