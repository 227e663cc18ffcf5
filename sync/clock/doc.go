// Package clock synchronizes the clocks of the ranks of a communicator: each
// rank i estimates the offset o_i of its local clock against rank 0, whose
// clock is the global time, so that T_0 = T_i + o_i (spec/mpiperf.md, "The
// method", step 1).
//
// # The pairwise step
//
// Every algorithm is built from one pairwise step between a client and a
// server rank (Pairwise): the client reads its clock (T′), sends a request,
// the server answers with its clock (T_0), the client reads its clock again
// (T″). The round-trip time is RTT = T″ − T′ and the offset estimate
// o = T_0 + RTT/2 − T″. Of many such exchanges the one with the smallest RTT
// is kept; the exchanges stop when the minimum has not changed for the last
// d of them (Options.StopAfter, default 100).
//
// The server's reading happened somewhere between the client's two readings,
// so the error of the kept estimate is at most RTT_min/2, whatever the delays
// of the two messages were: that is the error bound every algorithm states
// (Model.Err), and it is a bound, not a statistical guess. An algorithm that
// chains pairwise steps (ring, tree) adds the bounds along the chain, and,
// since the steps happen at different moments while the clocks drift apart,
// Options.MaxRate (default 100 ppm) times the time between them. A model
// without a drift estimate (linear, ring, tree) is exact only at its Ref:
// Model.ErrAt adds MaxRate per second away from it, so that a benchmark or
// a trace read long after the sync never states a tighter error than it has.
//
// # Algorithms
//
// Sync runs an algorithm chosen by name (Algorithms lists them):
//
//   - linear: rank 0 syncs with 1, 2, …, n−1 in turn, O(n·T_sync); each rank
//     is one hop from rank 0.
//   - ring: every rank i syncs with (i−1+n) mod n, in two parallel phases (odd
//     i, then even i) and a third for the closing pair (0, n−1); rank 0
//     gathers the pairwise offsets, sums them along the ring and scatters the
//     results, O(T_sync + log n). The sum around the whole ring should be zero:
//     what it is instead is reported as the ring's closure error.
//   - tree: a binomial tree; in round r every rank i < 2^r that already knows
//     the global time serves rank i + 2^r, answering with its global time.
//     O(log n · T_sync), at most ⌈log₂ n⌉ hops from rank 0.
//   - drift: the linear algorithm repeated over several epochs, a straight
//     line o_i(t) = a + b·t fitted through the epochs (weighted by their
//     bounds): for clocks that run at different rates (other hosts, other
//     calibrations). Its bound is exact for the fit and grows when the line
//     is extrapolated (Model.ErrAt).
//
// # Clocks
//
// A Source is anything with Now() in seconds; every rdtsc.Clock is one.
// Ranks started by gompi.Run share the process's clock, so a test injects the
// skew it wants with Skew: a virtual clock with its own offset and rate. Sync
// returns a *Global: the rank's global clock (local reading corrected by the
// rank's Model), itself a Source.
//
// # Checking
//
// Check measures what is left after the synchronization by a separate round
// of exchanges with another rule: one-way delays in each direction between
// rank 0 and each rank, read on the global clocks, whose minima bracket the
// residual offset (see Residuals). Every benchmark report carries its maximum
// and median.
package clock
