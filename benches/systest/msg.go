package systest

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gompi/gompi/benches/internal/params"
	"github.com/gompi/gompi/benches/internal/plot"
)

// Test 5: the transfer rate between two ranks for small and large messages
// (1 KiB and 128 MiB in the seed) over shared memory (both ranks on one
// host) and over TCP between two hosts — here two network namespaces of
// this machine joined by a veth pair, which the test creates and removes
// itself (root and iproute2 needed; otherwise TCP over loopback is measured
// and the report says so). One measurement is half a round trip of one
// message (rank 0 sends, rank 1 sends it back); the rate is size / time.
// Histograms of the rates are printed and drawn.

const (
	tagCtl  = 7101
	tagData = 7102
)

// msgSamples is what a child job hands back: its rows with their samples.
type msgSamples struct {
	Rows []msgRow
}

type msgRow struct {
	Row     Row
	Samples []float64
}

func runMsg(e *env) error {
	var rows []Row
	if e.world != nil && e.world.Size() >= 2 {
		own, err := e.pingPong()
		if err != nil {
			return err
		}
		rows = append(rows, own...)
	} else if e.cfg.MsgChild == "" {
		r, err := e.childJob("shared memory", nil, nil)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}
	if e.cfg.MsgChild != "" {
		return writeChildRows(e.cfg.MsgChild, e.rows)
	}
	if e.cfg.Netns != "off" {
		r, err := e.tcpRows()
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}
	e.msgHistograms(rows)
	return e.msgPlots(rows)
}

// pingPong measures every size between ranks 0 and 1 of the job.
func (e *env) pingPong() ([]Row, error) {
	w := e.world
	setting := fmt.Sprintf("%s, ranks 0-1", w.Transport(1))
	var rows []Row
	maxSize := int64(0)
	for _, s := range e.cfg.MsgSizes {
		maxSize = max(maxSize, s)
	}
	buf := make([]byte, maxSize)
	ctl := make([]byte, 8)
	for _, size := range e.cfg.MsgSizes {
		r, err := e.measure(Row{Test: "msg", Case: params.FormatSize(size), Impl: "gompi", Setting: setting, Bytes: float64(size),
			Note: "half round trip"}, func() (float64, error) {
			binary.LittleEndian.PutUint64(ctl, uint64(size))
			if err := w.Send(ctl, 1, tagCtl); err != nil {
				return 0, err
			}
			t0 := time.Now()
			if err := w.Send(buf[:size], 1, tagData); err != nil {
				return 0, err
			}
			if err := w.Recv(buf[:size], 1, tagData); err != nil {
				return 0, err
			}
			return time.Since(t0).Seconds() / 2, nil
		})
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	binary.LittleEndian.PutUint64(ctl, math.MaxUint64)
	return rows, w.Send(ctl, 1, tagCtl)
}

// msgPeer is rank 1: it echoes every message rank 0 sends until told to stop.
func msgPeer(e *env) error {
	w := e.world
	ctl := make([]byte, 8)
	var buf []byte
	for {
		if err := w.Recv(ctl, 0, tagCtl); err != nil {
			return err
		}
		size := binary.LittleEndian.Uint64(ctl)
		if size == math.MaxUint64 {
			return nil
		}
		if uint64(len(buf)) < size {
			buf = make([]byte, size)
		}
		if err := w.Recv(buf[:size], 0, tagData); err != nil {
			return err
		}
		if err := w.Send(buf[:size], 0, tagData); err != nil {
			return err
		}
	}
}

func writeChildRows(path string, rows []Row) error {
	var out msgSamples
	for _, r := range rows {
		samples := r.Res.Samples
		r.Res.Samples = nil
		out.Rows = append(out.Rows, msgRow{r, samples})
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(out); err != nil { // gob keeps NaN, which JSON cannot
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// tcpRows measures TCP between two namespaces, or over loopback where
// namespaces cannot be made (and --netns is not on).
func (e *env) tcpRows() ([]Row, error) {
	if gl, why := findGolaunch(e.cfg.Golaunch); gl == "" {
		e.note("msg: TCP left out: %s", why)
		return nil, nil
	}
	pair, why := newNetnsPair(e.cfg.Shape)
	if pair == nil {
		if e.cfg.Netns == "on" {
			return nil, fmt.Errorf("--netns on: %s", why)
		}
		e.note("msg: no network namespaces (%s): TCP measured over loopback on one host instead", why)
		return e.childJob("tcp over loopback", []string{"--transport", "tcp"}, nil)
	}
	defer func() {
		if err := pair.remove(); err != nil {
			e.note("msg: %v", err)
		}
	}()
	// An interrupt must not leave the namespaces behind.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case s := <-sig:
			stopChild()
			pair.remove()
			fmt.Fprintf(os.Stderr, "benches systest: %v: network namespaces removed\n", s)
			os.Exit(130)
		case <-done:
		}
	}()
	label := fmt.Sprintf("two namespaces %s %s over veth %s", pair.a, pair.b, pair.net)
	if e.cfg.Shape != "" {
		label += " shaped to " + e.cfg.Shape
	}
	fmt.Fprintf(e.out, "TCP: %s\n", label)
	args := []string{"-H", pair.a + ":1," + pair.b + ":1", "--launch-agent", "ip netns exec", "--connect-timeout", "20s"}
	return e.childJob(label, args, []string{"GOMPI_TCP_NET=" + pair.net})
}

// childJob runs `golaunch -n 2 ARGS benches systest msg` and reads back its
// rows and samples.
func (e *env) childJob(what string, launchArgs, env []string) ([]Row, error) {
	gl, why := findGolaunch(e.cfg.Golaunch)
	if gl == "" {
		e.note("msg: %s left out: %s", what, why)
		return nil, nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "systest-msg-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "rows.gob")
	args := append([]string{"-n", "2"}, launchArgs...)
	args = append(args, self, "systest", "msg", "--quiet", "--netns", "off", "--msg-child", out,
		"--msg-sizes", params.Sizes(e.cfg.MsgSizes).String(), "--cc", "none",
		"--alpha", fmt.Sprint(e.cfg.Judge.Alpha), "--spread", fmt.Sprint(e.cfg.Judge.Spread), "--share", fmt.Sprint(e.cfg.Judge.Share),
		"--start", strconv.Itoa(e.cfg.Rounds.Start), "--rounds", strconv.Itoa(e.cfg.Rounds.MaxRounds),
		"--restarts", strconv.Itoa(e.cfg.Rounds.Restarts), "--budget", e.cfg.Rounds.Budget.String())
	cmd := exec.Command(gl, args...)
	cmd.Env = append(os.Environ(), env...)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	e.prog.step(Row{Test: "msg", Case: "job", Impl: "golaunch", Setting: what})
	child.Lock()
	child.cmd = cmd
	child.Unlock()
	err = runTimeout(cmd, 5*time.Minute)
	child.Lock()
	child.cmd = nil
	child.Unlock()
	if err != nil {
		return nil, fmt.Errorf("%s: %s %s: %v\n%s", what, gl, strings.Join(args, " "), err, lastLines(output.String(), 20))
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("%s: the child job wrote no results: %v\n%s", what, err, lastLines(output.String(), 20))
	}
	var got msgSamples
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&got); err != nil {
		return nil, fmt.Errorf("%s: reading the child job's results: %w", what, err)
	}
	var rows []Row
	for _, r := range got.Rows {
		r.Row.Res.Samples = r.Samples
		r.Row.Setting = strings.TrimSuffix(r.Row.Setting, ", ranks 0-1")
		if strings.HasPrefix(r.Row.Setting, "tcp") && strings.HasPrefix(what, "two namespaces") {
			r.Row.Setting = "tcp, two netns (veth)"
		} else if what == "tcp over loopback" {
			r.Row.Setting = "tcp, loopback"
		}
		e.rows = append(e.rows, r.Row)
		rows = append(rows, r.Row)
	}
	return rows, nil
}

// child is the job test 5 runs, for stopChild.
var child struct {
	sync.Mutex
	cmd *exec.Cmd
}

// stopChild stops the running child job, if any, and waits a little for
// golaunch to stop its ranks.
func stopChild() {
	child.Lock()
	cmd := child.cmd
	child.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGTERM)
	for range 40 {
		if cmd.Process.Signal(syscall.Signal(0)) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func runTimeout(cmd *exec.Cmd, d time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return fmt.Errorf("no answer in %v: stopped", d)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// findGolaunch finds golaunch: the flag, the launcher that started this
// job, one beside this program, or one on PATH.
func findGolaunch(flag string) (string, string) {
	if flag != "" {
		if _, err := os.Stat(flag); err != nil {
			return "", fmt.Sprintf("--golaunch %s: %v", flag, err)
		}
		return flag, ""
	}
	if os.Getenv("GOMPI_RANK") != "" {
		if p, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", os.Getppid())); err == nil && filepath.Base(p) == "golaunch" {
			return p, ""
		}
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "golaunch")
		if _, err := os.Stat(p); err == nil {
			return p, ""
		}
	}
	if p, err := exec.LookPath("golaunch"); err == nil {
		return p, ""
	}
	return "", "no golaunch found (not the launcher of this job, not beside this program, not on PATH): give --golaunch"
}

// histogram counts x in bins equal bins over [lo, hi].
func histogram(x []float64, bins int) (lo, hi float64, counts []int) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range x {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	counts = make([]int, bins)
	if len(x) == 0 {
		return 0, 0, counts
	}
	w := (hi - lo) / float64(bins)
	for _, v := range x {
		i := bins - 1
		if w > 0 {
			i = min(bins-1, int((v-lo)/w))
		}
		counts[i]++
	}
	return lo, hi, counts
}

// rates turns half-round-trip times into GB/s.
func rates(r Row) []float64 {
	out := make([]float64, 0, len(r.Res.Samples))
	for _, t := range r.Res.Samples {
		if t > 0 {
			out = append(out, r.Bytes/t/1e9)
		}
	}
	return out
}

func (e *env) msgHistograms(rows []Row) {
	const bins = 10
	for _, r := range rows {
		x := rates(r)
		if len(x) == 0 {
			continue
		}
		lo, hi, counts := histogram(x, bins)
		fmt.Fprintf(e.out, "\n%s over %s: transfer rate histogram, %d messages of the last round (GB/s):\n", r.Case, r.Setting, len(x))
		most := 1
		for _, c := range counts {
			most = max(most, c)
		}
		w := (hi - lo) / bins
		for i, c := range counts {
			fmt.Fprintf(e.out, "  %8.3g-%-8.3g %5d %s\n", lo+float64(i)*w, lo+float64(i+1)*w, c, strings.Repeat("#", (c*40+most-1)/most))
		}
	}
	// Which channel wins at each size.
	best := map[string]Row{}
	var sizes []string
	for _, r := range rows {
		b, ok := best[r.Case]
		if !ok {
			sizes = append(sizes, r.Case)
		}
		if !ok || r.GBps() > b.GBps() {
			best[r.Case] = r
		}
	}
	if len(rows) > len(sizes) {
		fmt.Fprintln(e.out)
		for _, s := range sizes {
			b := best[s]
			line := fmt.Sprintf("%s: faster over %s (%.3g GB/s)", s, b.Setting, b.GBps())
			for _, r := range rows {
				if r.Case == s && r.Setting != b.Setting && r.GBps() > 0 {
					line += fmt.Sprintf(", %.2fx %s", b.GBps()/r.GBps(), r.Setting)
				}
			}
			fmt.Fprintln(e.out, line)
		}
	}
}

// msgPlots draws one histogram per size, a step line per channel, on bins
// equally wide in log(rate) shared by the channels, since the channels may
// differ by orders of magnitude.
func (e *env) msgPlots(rows []Row) error {
	if e.cfg.PlotDir == "" || len(rows) == 0 {
		return nil
	}
	bySize := map[string][]Row{}
	var sizes []string
	for _, r := range rows {
		if _, ok := bySize[r.Case]; !ok {
			sizes = append(sizes, r.Case)
		}
		bySize[r.Case] = append(bySize[r.Case], r)
	}
	const bins = 40
	for _, s := range sizes {
		p := &plot.Plot{Title: "Test 5: transfer rate of " + s + " messages (last round of each channel)",
			XLabel: "GB/s (log)", YLabel: "messages", XScale: plot.Log}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range bySize[s] {
			for _, v := range rates(r) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		if !(lo > 0) || math.IsInf(hi, 0) {
			continue
		}
		llo, lhi := math.Log10(lo), math.Log10(hi)+1e-9
		w := math.Max((lhi-llo)/bins, 1e-3)
		for _, r := range bySize[s] {
			counts := make([]int, bins)
			for _, v := range rates(r) {
				counts[min(bins-1, int((math.Log10(v)-llo)/w))]++
			}
			ser := plot.Series{Name: shortChannel(r.Setting), Mode: plot.Lines, X: []float64{lo}, Y: []float64{0}}
			for i, c := range counts {
				ser.X = append(ser.X, math.Pow(10, llo+float64(i)*w), math.Pow(10, llo+float64(i+1)*w))
				ser.Y = append(ser.Y, float64(c), float64(c))
			}
			ser.X = append(ser.X, math.Pow(10, llo+bins*w))
			ser.Y = append(ser.Y, 0)
			p.Series = append(p.Series, ser)
		}
		if err := e.writePlot("msg-"+s+".svg", p); err != nil {
			return err
		}
	}
	return nil
}

func shortChannel(s string) string {
	switch {
	case strings.HasPrefix(s, "shm"):
		return "shared memory"
	case strings.Contains(s, "netns"):
		return "TCP, 2 netns"
	case strings.Contains(s, "loopback"):
		return "TCP, loopback"
	}
	return s
}
