package test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSlurm runs gompi programs under a real Slurm: it writes a one-node
// cluster's configuration in a temporary directory, starts munged,
// slurmctld and slurmd on this machine (loopback only), runs jobs through
// srun --mpi=pmi2 and through golaunch inside salloc, and stops the daemons.
// It is skipped when Slurm is not installed (Debian: apt-get install
// slurm-wlm) or the test does not run as root (slurmd must).
func TestSlurm(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not starting a Slurm cluster")
	}
	for _, c := range []string{"munged", "slurmctld", "slurmd", "srun", "salloc", "sinfo", "scancel"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("Slurm is not installed (%s not in PATH; on Debian: apt-get install slurm-wlm): skipping the tests under srun", c)
		}
	}
	if os.Getuid() != 0 {
		t.Skip("the Slurm tests start slurmd, which needs root: skipping")
	}
	cl := startCluster(t)

	t.Run("srun ring", func(t *testing.T) {
		r := cl.run(t, "srun", "--mpi=pmi2", "--overcommit", "-n", "4", filepath.Join(bin, "ring"), "--iterations", "20")
		if r.code != 0 || !strings.Contains(r.stdout, "ring of 4 ranks: 20 rounds") {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("srun conformance", func(t *testing.T) {
		conf := buildConformance(t)
		r := cl.run(t, "srun", "--mpi=pmi2", "--overcommit", "-n", "4", conf, "--timeout", "2m")
		if r.code != 0 || !strings.Contains(r.stdout, " 0 failed") {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("srun over tcp", func(t *testing.T) {
		r := cl.run(t, "srun", "--mpi=pmi2", "--overcommit", "-n", "3", "--export=ALL,GOMPI_TRANSPORT=tcp",
			filepath.Join(bin, "rankprog"), "--mode", "hosts")
		if r.code != 0 || strings.Count(r.stdout, "ring check passed") != 3 || !strings.Contains(r.stdout, " 1=tcp@") {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
	})

	// golaunch inside an allocation: the node comes from the allocation
	// (its Slurm name, not this host's name, so the agent starts through
	// srun, not directly).
	t.Run("salloc golaunch", func(t *testing.T) {
		r := cl.run(t, "salloc", "-n", "4", "--overcommit", filepath.Join(bin, "golaunch"), filepath.Join(bin, "ring"))
		if r.code != 0 || !strings.Contains(r.stdout, "ring of 4 ranks") {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
		r = cl.run(t, "salloc", "-n", "2", "--overcommit", filepath.Join(bin, "golaunch"), filepath.Join(bin, "rankprog"), "--mode", "hosts")
		if r.code != 0 || !strings.Contains(r.stdout, "rank 0 on "+cl.node+": 0=self@"+cl.node+" 1=shm@"+cl.node) {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
	})

	// Without PMI-2 each task would be a world of one: an error that says
	// what to run instead.
	t.Run("srun without pmi2", func(t *testing.T) {
		for _, mpi := range []string{"--mpi=none", "--mpi=pmix"} {
			r := cl.run(t, "srun", mpi, "--overcommit", "-n", "2", filepath.Join(bin, "hello"))
			if r.code == 0 || !strings.Contains(r.stderr, "srun --mpi=pmi2") {
				t.Errorf("srun %s: exit %d\nstdout: %s\nstderr: %s", mpi, r.code, r.stdout, r.stderr)
			}
		}
	})

	t.Run("abort", func(t *testing.T) {
		r := cl.run(t, "srun", "--mpi=pmi2", "--overcommit", "-n", "3", filepath.Join(bin, "rankprog"), "--mode", "abort", "--arg", "2")
		if r.code != 5 || !strings.Contains(r.stderr, "rank 2 called Abort(5)") {
			t.Fatalf("exit %d, want 5\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
		assertGone(t, pids(r.stdout))
		assertNoSegments(t)
	})

	// A rank killed by a signal: with --kill-on-bad-exit Slurm ends the
	// step, and nothing of it is left.
	t.Run("killed rank", func(t *testing.T) {
		code, stderr, ps := cl.killOne(t, func(ps []int) { syscall.Kill(ps[1], syscall.SIGKILL) },
			"srun", "--mpi=pmi2", "--overcommit", "-K", "-n", "4", filepath.Join(bin, "rankprog"), "--mode", "hang")
		if code == 0 || !strings.Contains(stderr, "Killed") {
			t.Errorf("srun exited %d after a rank was killed\nstderr: %s", code, stderr)
		}
		assertGone(t, ps)
		assertNoSegments(t)
	})

	// Without --kill-on-bad-exit: the killed rank's peers on its node see
	// it gone (it is marked dead in the segment), fail, and the step ends.
	t.Run("killed rank without -K", func(t *testing.T) {
		code, stderr, ps := cl.killOne(t, func(ps []int) { syscall.Kill(ps[2], syscall.SIGKILL) },
			"srun", "--mpi=pmi2", "--overcommit", "-n", "4", filepath.Join(bin, "rankprog"), "--mode", "forever")
		if code == 0 || !strings.Contains(stderr, "peer lost") {
			t.Errorf("srun exited %d after a rank was killed\nstderr: %s", code, stderr)
		}
		assertGone(t, ps)
		assertNoSegments(t)
	})

	t.Run("scancel", func(t *testing.T) {
		code, stderr, ps := cl.killOne(t, func([]int) {
			if out, err := cl.command(context.Background(), "scancel", "--name=gompi-hang").CombinedOutput(); err != nil {
				t.Errorf("scancel: %v %s", err, out)
			}
		}, "srun", "--mpi=pmi2", "--overcommit", "--job-name=gompi-hang", "-n", "3", filepath.Join(bin, "rankprog"), "--mode", "hang")
		if code == 0 {
			t.Errorf("srun exited 0 after scancel\nstderr: %s", stderr)
		}
		assertGone(t, ps)
		assertNoSegments(t)
	})
}

type cluster struct {
	dir, conf, node string
	env             []string
	daemons         []*exec.Cmd
}

// startCluster starts munged, slurmctld and slurmd for a one-node cluster
// in a temporary directory, and stops them when the test ends.
func startCluster(t *testing.T) *cluster {
	dir, err := os.MkdirTemp("", "gompi-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	cl := &cluster{dir: dir, conf: filepath.Join(dir, "slurm.conf"), node: "gompinode"}
	t.Cleanup(func() { cl.stop(t) })
	key := make([]byte, 1024)
	rand.Read(key)
	for _, d := range []string{"state", "spool"} {
		os.Mkdir(filepath.Join(dir, d), 0o755)
	}
	if err := os.WriteFile(filepath.Join(dir, "munge.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	ports := freePorts(t, 2)
	// One node of 2 CPUs under a name of its own (NodeHostname is this
	// machine): jobs may oversubscribe it; no cgroups, no accounting.
	conf := fmt.Sprintf(`ClusterName=gompitest
SlurmctldHost=%[2]s(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[1]s/munge.sock
CredType=cred/munge
StateSaveLocation=%[1]s/state
SlurmdSpoolDir=%[1]s/spool
SlurmctldPidFile=%[1]s/slurmctld.pid
SlurmdPidFile=%[1]s/slurmd.pid
SlurmctldPort=%[3]d
SlurmdPort=%[4]d
SlurmctldLogFile=%[1]s/slurmctld.log
SlurmdLogFile=%[1]s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=5
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=%[5]s NodeHostname=%[2]s NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=%[5]s Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
`, dir, host, ports[0], ports[1], cl.node)
	if err := os.WriteFile(cl.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cl.env = append(os.Environ(), "SLURM_CONF="+cl.conf)
	cl.start(t, "munged", "-F", "--force", "--socket="+dir+"/munge.sock", "--key-file="+dir+"/munge.key",
		"--pid-file="+dir+"/munged.pid", "--log-file="+dir+"/munged.log", "--seed-file="+dir+"/munge.seed")
	cl.start(t, "slurmctld", "-D", "-c", "-f", cl.conf)
	cl.start(t, "slurmd", "-D", "-c", "-N", cl.node, "-f", cl.conf)
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, _ := cl.command(context.Background(), "sinfo", "-h", "-o", "%T").Output()
		if strings.TrimSpace(string(out)) == "idle" {
			return cl
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Slurm node did not become idle within 60 s (sinfo says %q); logs in %s:\n%s", out, dir, cl.logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func freePorts(t *testing.T, n int) []int {
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

func (cl *cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = cl.env
	cmd.Dir = ".."
	return cmd
}

func (cl *cluster) start(t *testing.T, name string, args ...string) {
	cmd := cl.command(context.Background(), name, args...)
	log, err := os.Create(filepath.Join(cl.dir, name+".out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	cl.daemons = append(cl.daemons, cmd)
}

// stop ends the daemons, last started first, and removes the directory.
func (cl *cluster) stop(t *testing.T) {
	for i := len(cl.daemons) - 1; i >= 0; i-- {
		d := cl.daemons[i]
		d.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { d.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			d.Process.Kill()
			<-done
		}
	}
	if t.Failed() {
		t.Logf("Slurm logs:\n%s", cl.logs())
	}
	os.RemoveAll(cl.dir)
}

func (cl *cluster) logs() string {
	var b strings.Builder
	for _, f := range []string{"slurmctld.log", "slurmd.log", "munged.log", "slurmctld.out", "slurmd.out", "munged.out"} {
		data, _ := os.ReadFile(filepath.Join(cl.dir, f))
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		fmt.Fprintf(&b, "== %s\n%s\n", f, strings.Join(lines, "\n"))
	}
	return b.String()
}

// run runs a Slurm command to its end (at most 3 minutes).
func (cl *cluster) run(t *testing.T, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := cl.command(ctx, name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return runToEnd(t, ctx, cmd, &out, &errb)
}

// killOne starts a job of ranks that print their pid and "ready" and then
// hang, calls kill with their pids once all are ready, and returns how the
// job's command ended (it must end within a minute).
func (cl *cluster) killOne(t *testing.T, kill func(ps []int), name string, args ...string) (code int, stderr string, ps []int) {
	t.Helper()
	n := 0
	for i, a := range args {
		if a == "-n" {
			fmt.Sscan(args[i+1], &n)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := cl.command(ctx, name, args...)
	var errb syncBuffer
	cmd.Stderr = &errb
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	ready := 0
	for ready < n && sc.Scan() {
		if m := pidRe.FindStringSubmatch(sc.Text()); m != nil {
			var p int
			fmt.Sscan(m[1], &p)
			ps = append(ps, p)
		}
		if sc.Text() == "ready" {
			ready++
		}
	}
	if ready < n || len(ps) < n {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("only %d of %d ranks got ready; stderr:\n%s", ready, n, errb.String())
	}
	killed := time.Now()
	kill(ps)
	for sc.Scan() {
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("the step did not end after the kill; stderr:\n%s", errb.String())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	t.Logf("the step ended %v after the kill, exit %d", time.Since(killed).Round(time.Millisecond), code)
	return code, errb.String(), ps
}

// TestSlurmLaunchTime measures how long a job of 8 ranks of examples/hello
// takes from command to exit, under srun --mpi=pmi2, under golaunch inside
// salloc, under golaunch alone, and (Open MPI's path under Slurm) the same
// program built with -tags mpi under srun --mpi=pmix. It runs only with
// GOMPI_SLURM_LAUNCH_TIME=REPS set, and prints the medians of REPS runs of
// each, interleaved (docs/SLURM.md quotes it).
func TestSlurmLaunchTime(t *testing.T) {
	reps := 0
	fmt.Sscan(os.Getenv("GOMPI_SLURM_LAUNCH_TIME"), &reps)
	if reps <= 0 {
		t.Skip("set GOMPI_SLURM_LAUNCH_TIME=REPS to measure launch times under Slurm")
	}
	cl := startCluster(t)
	mpiHello := filepath.Join(bin, "hello-mpi")
	if out, err := exec.Command("go", "build", "-tags", "mpi", "-o", mpiHello, "../examples/hello").CombinedOutput(); err != nil {
		t.Fatalf("building hello with -tags mpi: %v\n%s", err, out)
	}
	hello := filepath.Join(bin, "hello")
	ways := []struct {
		name string
		argv []string
	}{
		{"srun -n 8 true (Slurm's own floor)", []string{"srun", "--overcommit", "-n", "8", "true"}},
		{"srun --mpi=pmi2 -n 8 hello", []string{"srun", "--mpi=pmi2", "--overcommit", "-n", "8", hello}},
		{"salloc -n 8 golaunch hello", []string{"salloc", "-n", "8", "--overcommit", filepath.Join(bin, "golaunch"), hello}},
		{"golaunch -n 8 hello (no Slurm)", []string{filepath.Join(bin, "golaunch"), "-n", "8", hello}},
		{"srun --mpi=pmix -n 8 hello-mpi (Open MPI)", []string{"srun", "--mpi=pmix", "--overcommit", "-n", "8", mpiHello}},
	}
	times := make([][]time.Duration, len(ways))
	for range reps {
		for i, w := range ways {
			r := cl.run(t, w.argv[0], w.argv[1:]...)
			if r.code != 0 || (w.argv[len(w.argv)-1] != "true" && strings.Count(r.stdout, "of 8 on") != 8) {
				t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", w.name, r.code, r.stdout, r.stderr)
			}
			times[i] = append(times[i], r.took)
		}
	}
	fmt.Println("each a job of its own (allocation included):")
	for i, w := range ways {
		printMedian(w.name, times[i])
	}

	// The same inside one allocation: the launch alone, without the
	// scheduler's share.
	inside := []struct{ name, cmd string }{
		{"srun -n 8 true (Slurm's own floor)", "srun --overcommit -n 8 true"},
		{"srun --mpi=pmi2 -n 8 hello", "srun --mpi=pmi2 --overcommit -n 8 " + hello},
		{"golaunch hello (agent through srun)", filepath.Join(bin, "golaunch") + " " + hello},
		{"srun --mpi=pmix -n 8 hello-mpi (Open MPI)", "srun --mpi=pmix --overcommit -n 8 " + mpiHello},
	}
	var script strings.Builder
	fmt.Fprintf(&script, "for i in $(seq %d); do\n", reps)
	for i, w := range inside {
		fmt.Fprintf(&script, "s=$(date +%%s%%N); %s >/dev/null || exit 1; echo %d $(( ($(date +%%s%%N) - s) / 1000 ))\n", w.cmd, i)
	}
	script.WriteString("done\n")
	r := cl.run(t, "salloc", "-n", "8", "--overcommit", "bash", "-c", script.String())
	if r.code != 0 {
		t.Fatalf("inside one allocation: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	in := make([][]time.Duration, len(inside))
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var i int
		var us int64
		if n, _ := fmt.Sscan(line, &i, &us); n == 2 && i >= 0 && i < len(inside) {
			in[i] = append(in[i], time.Duration(us)*time.Microsecond)
		}
	}
	fmt.Println("inside one allocation (salloc -n 8):")
	for i, w := range inside {
		printMedian(w.name, in[i])
	}
}

func printMedian(name string, ts []time.Duration) {
	if len(ts) == 0 {
		fmt.Printf("  %-42s no runs\n", name)
		return
	}
	sortDurations(ts)
	fmt.Printf("  %-42s median %6.0f ms  (min %5.0f, max %5.0f; %d runs)\n", name,
		ms(ts[len(ts)/2]), ms(ts[0]), ms(ts[len(ts)-1]), len(ts))
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func sortDurations(ts []time.Duration) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j] < ts[j-1]; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}
