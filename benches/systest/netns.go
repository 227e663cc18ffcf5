package systest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// netnsPair is two network namespaces of this machine joined by a veth
// pair: the two "hosts" of test 5. Names start with gs- and addresses are
// in 10.232.0.0/16, a /24 per process; the test removes what it made.
type netnsPair struct {
	a, b         string // namespace names
	linkA, linkB string // veth ends
	net          string // the /24
}

// newNetnsPair makes the pair, shaping a→b to rate when rate is set; nil
// and why when this machine does not allow it.
func newNetnsPair(rate string) (*netnsPair, string) {
	if os.Geteuid() != 0 {
		return nil, "creating network namespaces needs root"
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return nil, "iproute2's ip command is not installed"
	}
	pid := os.Getpid()
	x := pid%250 + 1
	p := &netnsPair{
		a: fmt.Sprintf("gs-%d-a", pid), b: fmt.Sprintf("gs-%d-b", pid),
		linkA: fmt.Sprintf("gs%da", pid%10000000), linkB: fmt.Sprintf("gs%db", pid%10000000),
		net: fmt.Sprintf("10.232.%d.0/24", x),
	}
	if out, err := exec.Command("ip", "netns", "add", p.a).CombinedOutput(); err != nil {
		return nil, fmt.Sprintf("ip netns add is not allowed here (%v: %s)", err, bytes.TrimSpace(out))
	}
	prefix := fmt.Sprintf("10.232.%d.", x)
	steps := [][]string{
		{"netns", "add", p.b},
		{"link", "add", p.linkA, "type", "veth", "peer", "name", p.linkB},
		{"link", "set", p.linkA, "netns", p.a},
		{"link", "set", p.linkB, "netns", p.b},
		{"-n", p.a, "addr", "add", prefix + "1/24", "dev", p.linkA},
		{"-n", p.b, "addr", "add", prefix + "2/24", "dev", p.linkB},
		{"-n", p.a, "link", "set", "lo", "up"},
		{"-n", p.b, "link", "set", "lo", "up"},
		{"-n", p.a, "link", "set", p.linkA, "up"},
		{"-n", p.b, "link", "set", p.linkB, "up"},
	}
	for _, s := range steps {
		if out, err := exec.Command("ip", s...).CombinedOutput(); err != nil {
			p.remove()
			return nil, fmt.Sprintf("ip %s: %v: %s", strings.Join(s, " "), err, bytes.TrimSpace(out))
		}
	}
	if rate != "" {
		out, err := exec.Command("ip", "netns", "exec", p.a, "tc", "qdisc", "add", "dev", p.linkA, "root",
			"tbf", "rate", rate, "burst", "256kbit", "latency", "400ms").CombinedOutput()
		if err != nil {
			p.remove()
			return nil, fmt.Sprintf("shaping with tc: %v: %s", err, bytes.TrimSpace(out))
		}
	}
	return p, ""
}

// remove deletes both namespaces (the veth pair goes with them) and checks
// that none is left.
func (p *netnsPair) remove() error {
	for _, ns := range []string{p.a, p.b} {
		exec.Command("ip", "netns", "del", ns).Run()
	}
	exec.Command("ip", "link", "del", p.linkA).Run() // if it never moved
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, ns := range []string{p.a, p.b} {
		if bytes.Contains(out, []byte(ns+" ")) || bytes.Contains(out, []byte(ns+"\n")) {
			return fmt.Errorf("network namespace %s is left behind: remove it with ip netns del %s", ns, ns)
		}
	}
	return nil
}
