package gompi

import "github.com/gompi/gompi/coll"

// Selection in the pure-Go runtime. Package coll's default table
// (coll/table.go) stays underneath; the runtime puts rules of its own in
// front of it, one algorithm each, in tiers, so that an operation's table
// reads from the top:
//
//	tierFirst   in front of everything (e.g. a form whose Available alone
//	            decides, for Gatherv/Scatterv/Alltoallv/w, whose size is
//	            always 0 and whose "shm" takes every call)
//	tierFit     "shm" where the call fits the communicator's scratch area
//	            (the operations whose shm form runs in one step)
//	tierCopy    single copy ("cma") between its measured bounds
//	tierPieces  "shm" in pieces (Bcast, Allgather: any size fits)
//	            coll's default table
//
// A rule that matches a call but whose algorithm cannot run it (its
// Available says no: the call does not fit the scratch area, single copy is
// off, the ranks are not on one host) passes the call on to the next rule
// that matches (see coll.Rule), so no rule has to repeat the ones below it.
// Within a tier, rules apply in the order they were added.
//
// To prefer an algorithm somewhere, add a rule to a tier, once, at start-up
// (from installCollectives or a function it calls):
//
//	prefer(coll.OpScatter, tierCopy, coll.Rule{MinRanks: 3, MinBytes: 4 << 10, MaxBytes: 128 << 10, Use: []string{"cma"}})
//
// preferAbove(op, name, minBytes, minBytes2) is the short form for "name
// from minBytes on (on two ranks from minBytes2)" in tierCopy. The order in
// which rules are added across tiers does not matter: every call rebuilds
// the operation's table from coll's default and every tier.
const (
	tierFirst = iota
	tierFit
	tierCopy
	tierPieces
	tiers
)

// layers holds the runtime's rules by operation, and baseTables the table of
// each operation before the first of them (coll's default).
var (
	layers     = map[coll.Operation][]layered{}
	baseTables = map[coll.Operation][]coll.Rule{}
)

type layered struct {
	tier int
	rule coll.Rule
}

// prefer adds rule r in tier to op's table.
func prefer(op coll.Operation, tier int, r coll.Rule) error {
	if _, ok := baseTables[op]; !ok {
		baseTables[op] = coll.Table(op)
	}
	layers[op] = append(layers[op], layered{tier, r})
	return coll.SetTable(op, layeredTable(op))
}

// layeredTable is op's table: the runtime's rules tier by tier, then coll's.
func layeredTable(op coll.Operation) []coll.Rule {
	var rules []coll.Rule
	for t := range tiers {
		for _, l := range layers[op] {
			if l.tier == t {
				rules = append(rules, l.rule)
			}
		}
	}
	return append(rules, baseTables[op]...)
}

// preferAbove puts name first (tierCopy) for calls of at least minBytes,
// and on two ranks of at least minBytes2 where that is larger; every other
// call keeps the rule it matched. The single-copy algorithms use it.
func preferAbove(op coll.Operation, name string, minBytes, minBytes2 int) error {
	use := []string{name}
	if minBytes2 > minBytes {
		if err := prefer(op, tierCopy, coll.Rule{MinRanks: 3, MinBytes: minBytes, Use: use}); err != nil {
			return err
		}
		return prefer(op, tierCopy, coll.Rule{MaxRanks: 2, MinBytes: minBytes2, Use: use})
	}
	return prefer(op, tierCopy, coll.Rule{MinBytes: minBytes, Use: use})
}
