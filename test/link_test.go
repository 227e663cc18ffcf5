package test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLostLinkToAgentEndsJob cuts the connection between golaunch and the
// agent of a second host: the relay that plays ssh for it (test/faults
// relay) is killed, and nothing else. The agent must notice the end of its
// stream and kill its ranks; golaunch must notice the end of the link, name
// the host, and stop the ranks of the other host; nothing may be left. The
// second "host" is this machine, and the ranks publish loopback addresses
// only (GOMPI_TCP_NET matches no interface).
func TestLostLinkToAgentEndsJob(t *testing.T) {
	const host = "gompi-test-remote"
	pidFile := filepath.Join(t.TempDir(), "relay.pid")
	cmd := exec.Command(filepath.Join(bin, "golaunch"), "-n", "4", "-H", "localhost:2,"+host+":2",
		"--launch-agent", filepath.Join(bin, "faults")+" relay "+pidFile, "-x", "GOMPI_TCP_NET=127.255.255.255/32",
		filepath.Join(bin, "rankprog"), "--mode", "forever")
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	exited := false
	defer func() {
		if !exited {
			cmd.Process.Kill()
			<-ended
		}
	}()
	waitFor(t, func() bool { return strings.Count(out.String(), "ready") == 4 })
	b, err := os.ReadFile(pidFile)
	m := regexp.MustCompile(`^relay=(\d+) agent=(\d+)$`).FindStringSubmatch(strings.TrimSpace(string(b)))
	if err != nil || m == nil {
		t.Fatalf("the relay left no pids in %s: %q, %v", pidFile, b, err)
	}
	relay, _ := strconv.Atoi(m[1])
	agent, _ := strconv.Atoi(m[2])
	syscall.Kill(relay, syscall.SIGKILL)
	select {
	case err := <-ended:
		exited = true
		if err == nil {
			t.Error("golaunch exited with status 0 after losing a host")
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("golaunch still runs 30 s after the link to %s was cut; stderr:\n%s", host, errb.String())
	}
	if want := "golaunch: host " + host + ":"; !strings.Contains(errb.String(), want) {
		t.Errorf("golaunch did not name the lost host (%q); stderr:\n%s", want, errb.String())
	}
	assertGone(t, pids(out.String()))
	// The agent is an orphan now: whoever reaps orphans here may leave it
	// a zombie for a while, which is gone enough.
	deadline := time.Now().Add(10 * time.Second)
	for running(agent) {
		if time.Now().After(deadline) {
			t.Errorf("the agent of %s (pid %d) still runs after its link was cut", host, agent)
			syscall.Kill(agent, syscall.SIGKILL)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	assertNoSegments(t)
}

// running reports whether pid is a process that has not exited (a zombie
// has).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}
