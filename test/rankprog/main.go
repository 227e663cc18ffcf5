// Command rankprog is the rank program of the end-to-end tests: each -mode
// makes the job behave (or misbehave) in one way the tests check.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gompi/gompi/gompi"
	"github.com/spf13/pflag"
)

// statusKB reads a "Name: N kB" line of /proc/self/status.
func statusKB(name string) int64 { return procKB("/proc/self/status", name) }

// procKB reads the field name, in kB, of a /proc file of the form
// "Name:   123 kB" (status, smaps_rollup); -1 if it is not there.
func procKB(file, name string) int64 {
	b, _ := os.ReadFile(file)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb
		}
	}
	return -1
}

func main() {
	mode := pflag.String("mode", "", "what to do")
	arg := pflag.Int("arg", 0, "a number the mode uses")
	pflag.StringVar(&path, "path", "", "a file the mode uses")
	noInit := pflag.Int("no-init", -1, "this rank never calls Init (it sleeps instead)")
	pflag.Parse()
	if os.Getenv("GOMPI_RANK") == strconv.Itoa(*noInit) {
		fmt.Printf("pid=%d rank=%d (not calling Init)\n", os.Getpid(), *noInit)
		time.Sleep(time.Hour)
	}
	t0 := time.Now()
	if err := gompi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	initTook = time.Since(t0)
	pastInit = time.Now()
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		cpuToInit = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	c := gompi.World()
	fmt.Printf("pid=%d rank=%d\n", os.Getpid(), c.Rank())
	err := modes[*mode](c, *arg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rank %d: %v\n", c.Rank(), err)
		os.Exit(1)
	}
	gompi.Finalize()
}

var path string

// initTook is how long this rank's gompi.Init took (mode rss reports it).
var initTook time.Duration

// pastInit is when this rank's gompi.Init returned (mode inittime reports
// the last rank's).
var pastInit time.Time

// cpuToInit is the CPU time (user and system) this process had used when
// gompi.Init returned: its start (exec, the Go runtime, package
// initialization) and Init. Mode inittime reports the mean over ranks, a
// measure of start-up that other load on the machine disturbs less than
// wall time.
var cpuToInit time.Duration

var modes = map[string]func(c *gompi.Comm, arg int) error{
	// hosts: print how this rank reaches every other and where it runs, then
	// pass a small and a large message round the ring.
	"hosts": func(c *gompi.Comm, _ int) error {
		var b strings.Builder
		for r := 0; r < c.Size(); r++ {
			fmt.Fprintf(&b, " %d=%s@%s", r, c.Transport(r), c.HostOf(r))
		}
		fmt.Printf("rank %d on %s:%s\n", c.Rank(), gompi.Host(), b.String())
		return ringCheck(c)
	},
	// midreset: rank 0 starts sending 128 MiB to rank 1 and exits with
	// status 7 two seconds into it; rank 1 reports how its receive ended.
	// Rank 1 ignores SIGTERM so that it can say so before golaunch stops
	// it. The test shapes the link to 100 Mbit/s, where the message takes
	// over ten seconds: two seconds is far too soon for all of it to go,
	// and long enough for the rendezvous and the first payload bytes even
	// on a loaded machine (a few milliseconds was not: on a loaded CI
	// machine rank 0 sometimes died before any payload had left).
	"midreset": func(c *gompi.Comm, _ int) error {
		const size = 128 << 20
		switch c.Rank() {
		case 0:
			if _, err := c.Recv(nil, 1, 1); err != nil {
				return err
			}
			req, err := c.Isend(make([]byte, size), 1, 2)
			if err != nil {
				return err
			}
			for start := time.Now(); time.Since(start) < 2*time.Second; {
				if _, done, _ := req.Test(); done {
					return errors.New("the 128 MiB send finished within two seconds: is the link shaped?")
				}
				time.Sleep(time.Millisecond)
			}
			os.Exit(7)
		case 1:
			signal.Ignore(syscall.SIGTERM)
			req, err := c.Irecv(make([]byte, size), 0, 2)
			if err != nil {
				return err
			}
			if err := c.Send(nil, 0, 1); err != nil {
				return err
			}
			_, err = req.Wait()
			fmt.Printf("rank 1: receive ended: %v\n", err)
			if !errors.Is(err, gompi.ErrPeerLost) {
				return fmt.Errorf("want ErrPeerLost, got %v", err)
			}
		}
		return nil
	},
	// gate: report ready, wait until the file --path exists, then run the
	// ring check.
	"gate": func(c *gompi.Comm, _ int) error {
		fmt.Println("ready")
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(path); err == nil {
				break
			}
			if time.Now().After(deadline) {
				return errors.New("gate: the file never appeared")
			}
		}
		if err := ringCheck(c); err != nil {
			return err
		}
		fmt.Println("gate passed")
		return nil
	},
	// forever: pass messages round a ring until killed.
	"forever": func(c *gompi.Comm, _ int) error {
		n, me := c.Size(), c.Rank()
		buf := make([]byte, 64)
		fmt.Println("ready")
		for {
			if me == 0 {
				if err := c.Send(buf, (me+1)%n, 0); err != nil {
					return err
				}
			}
			if _, err := c.Recv(buf, (me-1+n)%n, 0); err != nil {
				return err
			}
			if me != 0 {
				if err := c.Send(buf, (me+1)%n, 0); err != nil {
					return err
				}
			}
		}
	},
	// truncate: rank 1 receives a 100-byte message into 50 bytes, then the
	// next message whole.
	"truncate": func(c *gompi.Comm, _ int) error {
		a, b := bytes.Repeat([]byte{1}, 100), bytes.Repeat([]byte{2}, 100)
		if c.Rank() == 0 {
			if err := c.Send(a, 1, 0); err != nil {
				return err
			}
			return c.Send(b, 1, 0)
		}
		if c.Rank() != 1 {
			return nil
		}
		small := make([]byte, 50)
		_, err := c.Recv(small, 0, 0)
		if !errors.Is(err, gompi.ErrTruncate) {
			return fmt.Errorf("want ErrTruncate, got %v", err)
		}
		fmt.Println("truncation:", err)
		full := make([]byte, 100)
		if _, err := c.Recv(full, 0, 0); err != nil {
			return err
		}
		if !bytes.Equal(full, b) {
			return errors.New("the message after the truncated one is corrupted")
		}
		fmt.Println("next message intact")
		return nil
	},
	// early: rank 1 finalizes and leaves at once; rank 0 waits for a message
	// from it that never comes.
	"early": func(c *gompi.Comm, _ int) error {
		if c.Rank() == 1 {
			return nil
		}
		_, err := c.Recv(make([]byte, 8), 1, 0)
		if !errors.Is(err, gompi.ErrPeerLost) {
			return fmt.Errorf("want ErrPeerLost, got %v", err)
		}
		fmt.Println("peer lost:", err)
		return nil
	},
	// exit: rank arg exits with status 3.
	"exit": func(c *gompi.Comm, arg int) error {
		if c.Rank() == arg {
			os.Exit(3)
		}
		_, err := c.Recv(nil, arg, 0)
		return err
	},
	// loudfail: rank arg says why on stderr and exits with status 3; the
	// others write screens of output to stderr first, then wait for it.
	"loudfail": func(c *gompi.Comm, arg int) error {
		if c.Rank() == arg {
			time.Sleep(50 * time.Millisecond)
			fmt.Fprintf(os.Stderr, "rank %d: reading input.dat: no such file\n", arg)
			os.Exit(3)
		}
		for i := 0; i < 200; i++ {
			fmt.Fprintf(os.Stderr, "rank %d: noise line %d\n", c.Rank(), i)
		}
		_, err := c.Recv(nil, arg, 0)
		return err
	},
	// abort: rank arg says so on stderr and calls Abort(5); the others wait.
	"abort": func(c *gompi.Comm, arg int) error {
		if c.Rank() == arg {
			fmt.Fprintf(os.Stderr, "rank %d: calling Abort(5)\n", arg)
			gompi.Abort(5)
		}
		time.Sleep(time.Minute)
		return nil
	},
	// hang: every rank sleeps.
	"hang": func(c *gompi.Comm, _ int) error {
		fmt.Println("ready")
		time.Sleep(time.Hour)
		return nil
	},
	// echo: rank 0 copies its stdin to its stdout.
	"echo": func(c *gompi.Comm, _ int) error {
		if c.Rank() == 0 {
			_, err := io.Copy(os.Stdout, os.Stdin)
			return err
		}
		return nil
	},
	// env: print the variable GOMPI_TEST_VAR.
	"env": func(c *gompi.Comm, _ int) error {
		fmt.Printf("var=%s\n", os.Getenv("GOMPI_TEST_VAR"))
		return nil
	},
	// rss: exchange some messages and collectives, then report this rank's
	// resident memory and how long its Init took (rank 0 prints the
	// summary: means over ranks, PSS counting each shared page once per
	// job, and the slowest Init).
	// inittime: rank 0 prints when the last rank got past Init, in
	// microseconds since the Unix epoch, so that a caller that noted the
	// launch time gets the job's start-up up to Init
	// (benches/ref/startup.sh; benches/ref/hello.c --init-time prints the
	// same for MPI).
	"inittime": func(c *gompi.Comm, _ int) error {
		all := make([]int64, 2*c.Size())
		if err := gompi.Gather(c, []int64{pastInit.UnixMicro(), cpuToInit.Microseconds()}, all, 0); err != nil {
			return err
		}
		if c.Rank() == 0 {
			var last, cpu int64
			for r := 0; r < c.Size(); r++ {
				last, cpu = max(last, all[2*r]), cpu+all[2*r+1]
			}
			fmt.Printf("ranks=%d last past Init at unix-us=%d; CPU to Init per rank, mean ms: %.2f\n",
				c.Size(), last, float64(cpu)/float64(c.Size())/1e3)
		}
		return nil
	},
	"rss": func(c *gompi.Comm, _ int) error {
		n := c.Size()
		buf := make([]byte, 1024*n)
		out := make([]byte, 1024*n)
		for i := 0; i < 3; i++ {
			if err := c.Alltoall(buf, out); err != nil {
				return err
			}
			if err := c.Allgather(buf[:1024], out); err != nil {
				return err
			}
			if err := c.Bcast(out, 0); err != nil {
				return err
			}
		}
		peer := (c.Rank() + 1) % n
		for i := 0; i < 20; i++ { // enough to set up fast boxes
			if _, err := c.Sendrecv(buf[:64], peer, 9, out[:64], (c.Rank()-1+n)%n, 9); err != nil {
				return err
			}
		}
		mine := []int64{statusKB("VmRSS"), statusKB("RssAnon"), statusKB("RssFile"), statusKB("RssShmem"),
			procKB("/proc/self/smaps_rollup", "Pss"), initTook.Microseconds()}
		k := len(mine)
		all := make([]int64, k*n)
		if err := gompi.Gather(c, mine, all, 0); err != nil {
			return err
		}
		if c.Rank() == 0 {
			sum := make([]int64, k)
			var slowest int64
			for r := 0; r < n; r++ {
				for j := range sum {
					sum[j] += all[k*r+j]
				}
				slowest = max(slowest, all[k*r+k-1])
			}
			m := int64(n)
			fmt.Printf("ranks=%d per-rank mean KiB: rss=%d anon=%d file=%d shmem=%d pss=%d; Init ms: mean %.1f, slowest %.1f\n",
				n, sum[0]/m, sum[1]/m, sum[2]/m, sum[3]/m, sum[4]/m, float64(sum[5])/float64(m)/1e3, float64(slowest)/1e3)
		}
		return nil
	},
	// nofinalize: rank arg exits 0 without Finalize.
	"nofinalize": func(c *gompi.Comm, arg int) error {
		if c.Rank() == arg {
			os.Exit(0)
		}
		_, err := c.Recv(nil, arg, 0)
		if errors.Is(err, gompi.ErrPeerLost) {
			return nil
		}
		return err
	},
}

// ringCheck sends messages of several sizes (eager and rendezvous on every
// transport) round the ring and checks what comes back.
func ringCheck(c *gompi.Comm) error {
	n, me := c.Size(), c.Rank()
	next, prev := (me+1)%n, (me-1+n)%n
	for _, size := range []int{0, 1, 4000, 70000, 3 << 20} {
		out := make([]byte, size)
		for i := range out {
			out[i] = byte(i*7 + me)
		}
		in := make([]byte, size)
		req, err := c.Isend(out, next, size%1000)
		if err != nil {
			return err
		}
		st, err := c.Recv(in, prev, size%1000)
		if err != nil {
			return err
		}
		if _, err := req.Wait(); err != nil {
			return err
		}
		if st.Count != size {
			return fmt.Errorf("ring: %d bytes from rank %d, want %d", st.Count, prev, size)
		}
		for i := range in {
			if in[i] != byte(i*7+prev) {
				return fmt.Errorf("ring: byte %d of %d from rank %d is wrong", i, size, prev)
			}
		}
	}
	fmt.Printf("rank %d: ring check passed\n", me)
	return nil
}
