package gompi

import "github.com/gompi/gompi/coll"

// Scatter and Bcast pushed into the readers' own lines ("push", on 3 or more
// ranks, blocks of up to 616 bytes): Scatterv's push (shmcoll_push.go) with
// the block of each reader taken from its position (Scatter) or the buffer
// itself for every reader (Bcast). Every rank knows the block's size here,
// so the selection alone (the rule's MaxBytes and Available) keeps the
// blocks within a line on every rank alike: no call goes as a step and
// none takes a tag base.
//
// Why: at four ranks on two CPUs the slotted step (the root posts, every
// rank arrives at the slot's counter) costs the whole loop of call and
// barrier 12-17 µs a call more than the push, which shares no word between
// all ranks (golaunch -n 4 benches osu --op OP --sizes 8,64 --iters 20000,
// loop_us, quiet round: barrier alone 12.4, Scatterv 14.7, Scatter 24.7 and
// 29.8, Bcast 26.4; docs/PERFORMANCE.md, "The whole loop beside the OSU
// figure; Scatter and Bcast pushed").

// installPushB registers "push" for Scatter and Bcast and puts it first on
// 3 or more ranks up to pushMax bytes.
func installPushB() error {
	for _, op := range []coll.Operation{coll.OpScatter, coll.OpBcast} {
		err := coll.Register(coll.Algorithm{
			Op: op, Name: "push",
			Summary:     "the root writes the block (Bcast: the buffer) of each reader, up to 616 bytes, into that reader's own line of shared memory and leaves; each reader waits for its line alone",
			Cost:        coll.Cost{Formula: "p−1 lines written by the root, 1 read per reader, no barrier"},
			Constraints: "all ranks on one host; blocking calls; 2 or more ranks (the table chooses it from 3: on two ranks the arrival lines carry the data); blocks of up to 616 bytes",
			Available: func(c coll.Comm, a *coll.Args) bool {
				x, ok := c.(*collComm)
				return ok && !x.nonblocking && x.Size() >= 2 && pushBlockSize(op, a, x.Size(), x.Rank()) <= pushMax &&
					x.c.c.ShmPushLines() != nil
			},
			Run: func(c coll.Comm, a *coll.Args) error { return runPush(c.(*collComm), op, a) },
		})
		if err != nil {
			return err
		}
		// In front of the first tier's other rules (Bcast's one-piece
		// shm rules, shmcoll_cma.go, also start at 3 ranks), whatever the
		// order of the install calls.
		if err := preferFront(op, coll.Rule{MinRanks: pushMinRanks, MaxBytes: pushMax, Use: []string{"push"}}); err != nil {
			return err
		}
	}
	return nil
}

// pushBlockSize is the size of one reader's block of a Scatter or Bcast on
// rank me of n: what every rank computes alike.
func pushBlockSize(op coll.Operation, a *coll.Args, n, me int) int {
	if op == coll.OpScatter && me == a.Root && a.Recv == nil {
		return len(a.Send) / n
	}
	return len(a.Recv)
}

// preferFront is prefer(op, tierFirst, r) with r in front of the rules
// already in that tier.
func preferFront(op coll.Operation, r coll.Rule) error {
	if _, ok := baseTables[op]; !ok {
		baseTables[op] = coll.Table(op)
	}
	layers[op] = append([]layered{{tierFirst, r}}, layers[op]...)
	return coll.SetTable(op, layeredTable(op))
}
