package test

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobenv"
	"golang.org/x/sys/unix"
)

// The multi-host tests run jobs on two "hosts" that are network namespaces
// of this machine joined by a veth pair, with `ip netns exec` as golaunch's
// launch agent. They need root and iproute2; without them they are skipped,
// saying why. Every namespace they make is removed, also when they fail.

// hostPair is two namespaces joined by a veth pair.
type hostPair struct {
	a, b   string // namespace names, used as host names
	ipA    string // address of a on the link
	linkA  string // veth names inside a and b
	linkB  string
	prefix string // 10.231.X.
}

// newHostPair makes two namespaces named for this test process and joined
// by a veth pair on a /24 of 10.231.0.0/16 of their own.
func newHostPair(t *testing.T, tag string) *hostPair {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("multi-host tests need root to create network namespaces")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("multi-host tests need iproute2's ip command")
	}
	pid := os.Getpid()
	h := &hostPair{
		a: fmt.Sprintf("gompi-test-%d-%s-a", pid, tag), b: fmt.Sprintf("gompi-test-%d-%s-b", pid, tag),
		linkA: fmt.Sprintf("gt%d%sa", pid%100000, tag), linkB: fmt.Sprintf("gt%d%sb", pid%100000, tag),
		prefix: fmt.Sprintf("10.231.%d.", (pid+len(tag)*37+int(tag[0]))%250+1),
	}
	h.ipA = h.prefix + "1"
	if out, err := exec.Command("ip", "netns", "add", h.a).CombinedOutput(); err != nil {
		t.Skipf("cannot create a network namespace (ip netns add: %v: %s)", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() { h.remove(t) })
	steps := [][]string{
		{"netns", "add", h.b},
		{"link", "add", h.linkA, "type", "veth", "peer", "name", h.linkB},
		{"link", "set", h.linkA, "netns", h.a},
		{"link", "set", h.linkB, "netns", h.b},
		{"-n", h.a, "addr", "add", h.prefix + "1/24", "dev", h.linkA},
		{"-n", h.b, "addr", "add", h.prefix + "2/24", "dev", h.linkB},
		{"-n", h.a, "link", "set", "lo", "up"},
		{"-n", h.b, "link", "set", "lo", "up"},
		{"-n", h.a, "link", "set", h.linkA, "up"},
		{"-n", h.b, "link", "set", h.linkB, "up"},
	}
	for _, s := range steps {
		if out, err := exec.Command("ip", s...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(s, " "), err, out)
		}
	}
	return h
}

// remove deletes both namespaces (the veth pair goes with them) and checks
// that nothing of the test is left in the list.
func (h *hostPair) remove(t *testing.T) {
	for _, ns := range []string{h.a, h.b} {
		exec.Command("ip", "netns", "del", ns).Run()
	}
	exec.Command("ip", "link", "del", h.linkA).Run() // if it never moved
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, ns := range []string{h.a, h.b} {
		if bytes.Contains(out, []byte(ns)) {
			t.Errorf("network namespace %s is left behind", ns)
		}
	}
}

// shape limits the rate of the link from a to b with a token bucket, so that
// a large message takes a known long time to cross.
func (h *hostPair) shape(t *testing.T, rate string) {
	t.Helper()
	cmd := exec.Command("ip", "netns", "exec", h.a, "tc", "qdisc", "add", "dev", h.linkA, "root",
		"tbf", "rate", rate, "burst", "32kbit", "latency", "400ms")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("cannot shape the test link (tc: %v: %s)", err, bytes.TrimSpace(out))
	}
}

// hostsArgs returns golaunch's arguments for slots ranks on each namespace.
func (h *hostPair) hostsArgs(slotsA, slotsB int, extra ...string) []string {
	return append([]string{"-H", fmt.Sprintf("%s:%d,%s:%d", h.a, slotsA, h.b, slotsB),
		"--launch-agent", "ip netns exec", "--connect-timeout", "10s"}, extra...)
}

func TestHostsRingAndSharedMemoryWithin(t *testing.T) {
	h := newHostPair(t, "r")
	r := golaunch(t, "", append(h.hostsArgs(2, 2), filepath.Join(bin, "rankprog"), "--mode", "hosts")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	// Ranks 0,1 on a and 2,3 on b (--map-by slot): shared memory within a
	// host, TCP across.
	want := map[int]string{
		0: fmt.Sprintf("rank 0 on %[1]s: 0=self@%[1]s 1=shm@%[1]s 2=tcp@%[2]s 3=tcp@%[2]s", h.a, h.b),
		1: fmt.Sprintf("rank 1 on %[1]s: 0=shm@%[1]s 1=self@%[1]s 2=tcp@%[2]s 3=tcp@%[2]s", h.a, h.b),
		2: fmt.Sprintf("rank 2 on %[2]s: 0=tcp@%[1]s 1=tcp@%[1]s 2=self@%[2]s 3=shm@%[2]s", h.a, h.b),
		3: fmt.Sprintf("rank 3 on %[2]s: 0=tcp@%[1]s 1=tcp@%[1]s 2=shm@%[2]s 3=self@%[2]s", h.a, h.b),
	}
	for rk, line := range want {
		if !strings.Contains(r.stdout, line) {
			t.Errorf("missing %q in\n%s", line, r.stdout)
		}
		if !strings.Contains(r.stdout, fmt.Sprintf("rank %d: ring check passed", rk)) {
			t.Errorf("rank %d did not pass the ring check:\n%s", rk, r.stdout)
		}
	}
	assertGone(t, pids(r.stdout))
	assertNoSegments(t)

	// The example ring, --map-by node (ranks alternate between the hosts, so
	// every hop crosses), and output tagged with world ranks.
	r = golaunch(t, "", append(h.hostsArgs(2, 2, "--map-by", "node", "--tag-output"), filepath.Join(bin, "ring"), "--iterations", "20")...)
	if r.code != 0 || !strings.Contains(r.stdout, "[1,0]<stdout>:ring of 4 ranks: 20 rounds") {
		t.Fatalf("ring --map-by node: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	r = golaunch(t, "", append(h.hostsArgs(1, 1), filepath.Join(bin, "hello"))...)
	for _, want := range []string{"rank 0 of 2 on " + h.a, "rank 1 of 2 on " + h.b} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("hello: missing %q in %q (stderr %s)", want, r.stdout, r.stderr)
		}
	}
}

func TestHostsPingPong(t *testing.T) {
	h := newHostPair(t, "p")
	r := golaunch(t, "", append(h.hostsArgs(1, 1), filepath.Join(bin, "pingpong"), "--format", "json", "--max", "1M", "--reps", "1", "--time", "0.001")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 22 { // 0, 1, ..., 1M
		t.Fatalf("want 22 sizes, got %d lines:\n%s", len(lines), r.stdout)
	}
	assertNoSegments(t)
}

func TestHostsKilledRankStopsBothHosts(t *testing.T) {
	h := newHostPair(t, "k")
	cmd := exec.Command(filepath.Join(bin, "golaunch"), append(h.hostsArgs(2, 2), filepath.Join(bin, "rankprog"), "--mode", "forever")...)
	stdout, _ := cmd.StdoutPipe()
	var errb syncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	rankPid, all := readyRanks(sc, 4)
	go func() {
		for sc.Scan() {
		}
	}()
	time.Sleep(100 * time.Millisecond) // messages are crossing between the hosts
	killed := time.Now()
	syscall.Kill(rankPid[3], syscall.SIGKILL) // on host b
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Logf("golaunch ended %v after rank 3 was killed", time.Since(killed))
		if err == nil {
			t.Fatal("golaunch exited 0 after a rank was killed")
		}
		if s := errb.String(); !strings.Contains(s, "rank 3") || !strings.Contains(s, "signal 9") || !strings.Contains(s, h.b) {
			t.Errorf("golaunch does not name the killed rank, its host and the signal:\n%s", s)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("golaunch did not end after a rank was killed")
	}
	assertGone(t, all)
	assertNoSegments(t)
	if out, _ := exec.Command("pgrep", "-f", "golaunch --agent").Output(); len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("agents left running: %s", out)
	}
}

func TestHostsWrongSecretRefused(t *testing.T) {
	h := newHostPair(t, "s")
	gate := filepath.Join(t.TempDir(), "go")
	cmd := exec.Command(filepath.Join(bin, "golaunch"), append(h.hostsArgs(1, 1), filepath.Join(bin, "rankprog"), "--mode", "gate", "--path", gate)...)
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitFor(t, func() bool { return strings.Count(out.String(), "ready") == 2 })

	// Every listening socket of the job in namespace a: the rank's (for its
	// peers) and the agent's rendezvous store.
	ss, err := exec.Command("ip", "netns", "exec", h.a, "ss", "-Hltnp").Output()
	if err != nil {
		t.Skipf("ss in the namespace: %v", err)
	}
	var targets []string
	for _, line := range strings.Split(string(ss), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || !(strings.Contains(line, `"rankprog"`) || strings.Contains(line, `"golaunch"`)) {
			continue
		}
		_, port, _ := net.SplitHostPort(f[3])
		host := h.ipA
		if strings.HasPrefix(f[3], "127.") {
			host = "127.0.0.1"
		}
		targets = append(targets, net.JoinHostPort(host, port))
	}
	if len(targets) < 2 {
		t.Fatalf("expected a rank's and an agent's listener in %s, found:\n%s", h.a, ss)
	}
	wrong := bytes.Repeat([]byte{7}, jobenv.SecretSize)
	for _, addr := range targets {
		for _, role := range []byte{jobenv.RoleRank, jobenv.RoleKV} {
			err := inNetns(t, h.a, func() error {
				c, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if err != nil {
					return err
				}
				defer c.Close()
				return jobenv.ProveDialer(c, wrong, role, 1, 5*time.Second)
			})
			if err == nil {
				t.Errorf("%s accepted a connection (role %c) with a wrong secret", addr, role)
			}
		}
		// Garbage instead of a greeting.
		inNetns(t, h.a, func() error {
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				return err
			}
			defer c.Close()
			c.Write(bytes.Repeat([]byte("GET / HTTP/1.0\r\n"), 8))
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			c.Read(make([]byte, 64))
			return nil
		})
	}
	// The job is undisturbed: it runs to its end.
	os.WriteFile(gate, nil, 0o644)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the job failed after the strangers: %v\n%s\n%s", err, out.String(), errb.String())
	}
	if c := strings.Count(out.String(), "gate passed"); c != 2 {
		t.Errorf("%d ranks passed the gate, want 2:\n%s", c, out.String())
	}
	if !strings.Contains(errb.String(), "refused a connection") {
		t.Errorf("the refused connections were not logged:\n%s", errb.String())
	}
	assertGone(t, pids(out.String()))
}

// inNetns runs fn on a thread that has entered namespace ns; the thread is
// thrown away afterwards.
func inNetns(t *testing.T, ns string, fn func() error) error {
	t.Helper()
	res := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		f, err := os.Open("/var/run/netns/" + ns)
		if err != nil {
			res <- err
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			res <- err
			return
		}
		res <- fn()
	}()
	return <-res
}

func TestHostsFailuresNameTheirCause(t *testing.T) {
	h := newHostPair(t, "f")
	// A host that cannot be reached.
	r := golaunch(t, "", "-H", h.a+":1,gompi-test-no-such-host:1", "--launch-agent", "ip netns exec", "--connect-timeout", "5s",
		filepath.Join(bin, "hello"))
	if r.code == 0 || !strings.Contains(r.stderr, "host gompi-test-no-such-host") {
		t.Errorf("unreachable host: exit %d\nstderr: %s", r.code, r.stderr)
	}
	// A rank that never checks in: its peers give up after the connect
	// timeout and say which rank and host they waited for.
	r = golaunch(t, "", append(h.hostsArgs(1, 1, "--connect-timeout", "2s"), filepath.Join(bin, "rankprog"), "--mode", "env", "--no-init", "1")...)
	if r.code == 0 || !strings.Contains(r.stderr, "rank 1 (host "+h.b+") did not check in") {
		t.Errorf("rank that never checks in: exit %d\nstderr: %s", r.code, r.stderr)
	}
	assertGone(t, pids(r.stdout))
	// Abort on one host stops the job on both, with the code and the rank.
	r = golaunch(t, "", append(h.hostsArgs(2, 2), filepath.Join(bin, "rankprog"), "--mode", "abort", "--arg", "2")...)
	if r.code != 5 || !strings.Contains(r.stderr, "rank 2 called Abort(5)") {
		t.Errorf("abort: exit %d\nstderr: %s", r.code, r.stderr)
	}
	assertGone(t, pids(r.stdout))
	// More ranks than slots.
	r = golaunch(t, "", append(h.hostsArgs(1, 1, "-n", "3"), filepath.Join(bin, "hello"))...)
	if r.code == 0 || !strings.Contains(r.stderr, "slots") {
		t.Errorf("-n 3 on 2 slots: exit %d\nstderr: %s", r.code, r.stderr)
	}
}

func TestHostsConnectionLostMidMessage(t *testing.T) {
	h := newHostPair(t, "m")
	// At 100 Mbit/s the 128 MiB message takes ten seconds: rank 0 surely
	// dies in the middle of it, however slow a loaded machine makes it.
	h.shape(t, "100mbit")
	r := golaunch(t, "", append(h.hostsArgs(1, 1), filepath.Join(bin, "rankprog"), "--mode", "midreset")...)
	if r.code != 7 || !strings.Contains(r.stderr, "rank 0") || !strings.Contains(r.stderr, "status 7") {
		t.Errorf("golaunch: exit %d, want 7 naming rank 0\nstderr: %s", r.code, r.stderr)
	}
	for _, want := range []string{"rank 1: receive ended: gompi: Recv on rank 1 with peer 0", "peer lost",
		"rank 0 (host " + h.a + ")", "mid-message"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("rank 1's error lacks %q:\n%s", want, r.stdout)
		}
	}
	assertGone(t, pids(r.stdout))
}
