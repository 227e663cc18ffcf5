package launcher

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/gompi/gompi/internal/slurmenv"
)

// Inside a Slurm allocation (salloc, sbatch), golaunch takes its hosts from
// the allocation and starts its agent on each through srun, as Open MPI's
// mpirun does with its daemons: Slurm then accounts for the ranks, confines
// them to the allocation and cleans them up with the job.

// SlurmAgent is the launch agent inside an allocation: a one-task step on
// the named node (the node name and the agent's command follow). The step
// overlaps the others (--overlap), takes no CPU binding (the ranks are
// placed by golaunch, not by Slurm), gets no PMI (--mpi=none: the ranks
// learn their job from golaunch), passes bytes through as soon as they come
// (-u: the agent's control stream is binary), and is cancelled if the agent
// fails (-K).
var SlurmAgent = []string{"srun", "--nodes=1", "--ntasks=1", "--overlap", "--cpu-bind=none", "--mpi=none",
	"-u", "--kill-on-bad-exit=1", "--job-name=golaunch-agent", "--nodelist"}

// SlurmHosts returns the nodes of the allocation golaunch runs in, each
// with the tasks Slurm gives it, and the launch agent that reaches them; ok
// is false outside an allocation.
func SlurmHosts() (hosts []Host, agent []string, ok bool, err error) {
	nodes, ok, err := slurmenv.Allocation()
	if !ok || err != nil {
		return nil, nil, ok, err
	}
	if _, err := exec.LookPath("srun"); err != nil {
		return nil, nil, true, fmt.Errorf("inside Slurm allocation %s (%s is set) but srun is not in PATH to start the agents: %w",
			os.Getenv(slurmenv.JobID), slurmenv.JobID, err)
	}
	for _, n := range nodes {
		hosts = append(hosts, Host{Name: n.Name, Slots: n.Tasks})
	}
	return hosts, append([]string(nil), SlurmAgent...), true, nil
}
