// Package launch is the synchronized-launch scheduler of the MPIPerf method
// (spec/mpiperf.md, "The method", steps 2–4): it starts a function on every
// rank at the same moment of the global clock, many times, and says for
// each launch how long it took (the maximum over ranks) and whether it is
// valid (no rank started late, no rank overran its window).
//
// Any benchmark can use it at two levels:
//
//   - Schedule: "launch this function at these global times, give me
//     per-rank and per-launch times and validity";
//   - Measure: the whole method — stage 0 of k′ launches with Δ = 0 whose
//     results are discarded, then stages of k launches at τ_j + l·Δ_j,
//     Δ corrected by γ when more than g of a stage's launches are invalid,
//     stop rule 1 or 2, g trimmed at each end, mean, SE and a Student-t
//     interval (Stats).
//
// The global clock comes from package sync/clock. Params holds the spec's
// table of defaults (DefaultParams); every value can be changed.
//
// # When ranks outnumber CPUs
//
// Ranks that share CPUs cannot start at one moment: the rank whose turn it
// is not waits for the scheduler of the operating system. The scheduler
// then waits by sleeping and yielding (WaitSleep, chosen automatically under
// golaunch), still judges every launch by the same rule, and reports the
// launches that started late as invalid rather than pretending they were
// synchronized; the stop rule's launch limit (and Params.Deadline) bound the
// time it takes.
package launch
