package launcher

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

func TestSlurmHosts(t *testing.T) {
	t.Setenv("SLURM_JOB_ID", "")
	if _, _, ok, err := SlurmHosts(); ok || err != nil {
		t.Fatalf("outside an allocation: ok %v, err %v", ok, err)
	}
	t.Setenv("SLURM_JOB_ID", "42")
	t.Setenv("SLURM_JOB_NODELIST", "n[01-02],gpu3")
	t.Setenv("SLURM_TASKS_PER_NODE", "2(x2),1")
	hosts, agent, ok, err := SlurmHosts()
	if _, lookErr := exec.LookPath("srun"); lookErr != nil {
		if !ok || err == nil || !strings.Contains(err.Error(), "srun") {
			t.Fatalf("without srun: ok %v, err %v", ok, err)
		}
		return
	}
	want := []Host{{"n01", 2}, {"n02", 2}, {"gpu3", 1}}
	if !ok || err != nil || !reflect.DeepEqual(hosts, want) {
		t.Fatalf("SlurmHosts = %v, %v, %v; want %v", hosts, ok, err, want)
	}
	if agent[0] != "srun" || agent[len(agent)-1] != "--nodelist" {
		t.Errorf("agent %q: the node name must follow it", agent)
	}
	t.Setenv("SLURM_TASKS_PER_NODE", "2(x")
	if _, _, ok, err := SlurmHosts(); !ok || err == nil {
		t.Errorf("malformed task count: ok %v, err %v", ok, err)
	}
}
