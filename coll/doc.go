// Package coll holds gompi's collective algorithms: several algorithms for each
// MPI collective operation, a registry that names them, and a selection table
// that picks one for a call.
//
// The package implements only the algorithms. It moves bytes through a small
// point-to-point interface, [Comm], that the caller provides, and never does
// I/O of its own (as etcd-io/raft leaves the network to its user). The same
// algorithm therefore runs over the gompi runtime, over an in-process
// transport, or over the simulator in coll/sim, which also records the message
// schedule so that it can be printed or drawn.
//
// # Calling a collective
//
// Each MPI collective has a function here: [Barrier], [Bcast], [Reduce],
// [Allreduce], [Gather], [Gatherv], [Scatter], [Scatterv], [Allgather],
// [Allgatherv], [Alltoall], [Alltoallv], [Alltoallw], [ReduceScatter],
// [ReduceScatterBlock], [Scan] and [Exscan]. All take the [Comm] of one call
// and buffers of bytes; element types enter only through the reduction
// operator, an [Op]. Counts and displacements of the v and w variants are in
// bytes. A nil send buffer means "in place" where MPI allows MPI_IN_PLACE; each
// function says where and what it means there.
//
// Every rank of the communicator must call the same operation with matching
// arguments: the same root, the same message sizes where MPI requires them to
// match, the same algorithm options. Where a rank can see that another rank
// disagrees (a message of another size than expected) it returns an error
// wrapping [ErrMismatch]; it still completes its part of the schedule, so that
// no rank waits forever for a message that this rank's logic would otherwise
// withhold.
//
// # Algorithms, selection and overrides
//
// The algorithms of each [Operation] are registered by name ([Algorithms],
// [Lookup]); the runtime may add its own with [Register]. For each call one is
// chosen, in this order of precedence:
//
//  1. the [WithAlgorithm] option of the call;
//  2. the communicator's choice, if the [Comm] implements [AlgorithmChooser];
//  3. the environment variable GOMPI_COLL_<OP>, e.g. GOMPI_COLL_BCAST=binomial
//     (see [EnvVar]), read once, at the first collective call of the process;
//  4. the selection table ([Select], [Table], [SetTable]): the first usable
//     algorithm of the first rule that matches the communicator size and
//     message size (each [Rule] has lower and upper bounds) and names a
//     usable one.
//
// A name given by 1–3 must exist ([ErrUnknownAlgorithm], whose message lists
// the valid names) and must be usable for the call ([ErrNotApplicable]: for
// example, an algorithm that cannot keep rank order refuses a non-commutative
// op). The table instead skips unusable algorithms, then rules with none
// usable, and falls back to the first registered algorithm that is usable.
//
// # Concurrency
//
// Algorithms keep no global mutable state: concurrent calls on different Comm
// values are safe, which is how the runtime builds nonblocking collectives.
// The registry and table are safe for concurrent use; change them before the
// collectives that should see the change.
package coll
