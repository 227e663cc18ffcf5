package coll

// opIndex is op's place in ops, or -1 for an unknown operation. Every
// collective call looks up its operation's checks, algorithms and
// environment variable; a switch on the name and slices indexed by the
// result cost a fraction of the string-keyed map lookups they replace.
func opIndex(op Operation) int {
	switch op {
	case OpBarrier:
		return 0
	case OpBcast:
		return 1
	case OpReduce:
		return 2
	case OpAllreduce:
		return 3
	case OpGather:
		return 4
	case OpGatherv:
		return 5
	case OpScatter:
		return 6
	case OpScatterv:
		return 7
	case OpAllgather:
		return 8
	case OpAllgatherv:
		return 9
	case OpAlltoall:
		return 10
	case OpAlltoallv:
		return 11
	case OpAlltoallw:
		return 12
	case OpReduceScatter:
		return 13
	case OpReduceScatterBlock:
		return 14
	case OpScan:
		return 15
	case OpExscan:
		return 16
	}
	return -1
}

// opInfoList and envVarList are opInfos and the environment variables by
// opIndex.
var (
	opInfoList = func() []*opInfo {
		l := make([]*opInfo, len(ops))
		for i, op := range ops {
			info := opInfos[op]
			l[i] = &info
		}
		return l
	}()
	envVarList = func() []string {
		l := make([]string, len(ops))
		for i, op := range ops {
			l[i] = EnvVar(op)
		}
		return l
	}()
)
