package lang

// Routines are the calls tracing rules may name: every public operation of
// gompi, and the one-sided ones of MPI (recorded once windows exist).
var Routines = []string{
	"Init", "Finalize", "Send", "Ssend", "Rsend", "Bsend", "Recv", "Isend", "Issend",
	"Irsend", "Ibsend", "Irecv", "Sendrecv", "Probe", "Iprobe", "Wait", "Test", "Waitall",
	"Waitany", "Waitsome", "Testall", "Testany", "Start", "Startall", "Cancel",
	"Comm_dup", "Comm_split", "Comm_free", "Barrier", "Bcast", "Gather", "Gatherv",
	"Scatter", "Scatterv", "Allgather", "Allgatherv", "Alltoall", "Alltoallv", "Alltoallw",
	"Reduce", "Allreduce", "Reduce_scatter", "Reduce_scatter_block", "Scan", "Exscan",
	"Ibarrier", "Ibcast", "Igather", "Igatherv", "Iscatter", "Iscatterv", "Iallgather",
	"Iallgatherv", "Ialltoall", "Ialltoallv", "Ialltoallw", "Ireduce", "Iallreduce",
	"Ireduce_scatter", "Ireduce_scatter_block", "Iscan", "Iexscan",
	"Send_init", "Ssend_init", "Rsend_init", "Bsend_init", "Recv_init",
	"Win_create", "Win_free", "Win_fence", "Win_lock", "Win_unlock", "Win_post",
	"Win_start", "Win_complete", "Win_wait", "Put", "Get", "Accumulate",
	"Mprobe", "Improbe", "Mrecv", "Imrecv", "Sendrecv_replace", "Testsome", "Request_free",
	"Comm_create", "Comm_create_group", "Comm_split_type", "Cart_create",
}

var routineSet = func() map[string]bool {
	m := map[string]bool{}
	for _, r := range Routines {
		m[r] = true
	}
	return m
}()

// KnownRoutine says whether tracing rules may name r.
func KnownRoutine(r string) bool { return routineSet[r] }

// Collective says whether r is called by every rank of a communicator in the
// same order, so that the k-th such call on each rank is one instance.
func Collective(r string) bool {
	switch r {
	case "Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather",
		"Allgatherv", "Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce",
		"Reduce_scatter", "Reduce_scatter_block", "Scan", "Exscan", "Ibarrier", "Ibcast",
		"Igather", "Igatherv", "Iscatter", "Iscatterv", "Iallgather", "Iallgatherv",
		"Ialltoall", "Ialltoallv", "Ialltoallw", "Ireduce", "Iallreduce", "Ireduce_scatter",
		"Ireduce_scatter_block", "Iscan", "Iexscan", "Comm_dup", "Comm_split",
		"Comm_create", "Comm_split_type", "Cart_create", // not Comm_create_group: only its group calls it
		"Win_create", "Win_free", "Win_fence":
		return true
	}
	return false
}
