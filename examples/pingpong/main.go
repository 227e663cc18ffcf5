// Command pingpong measures latency and bandwidth between ranks 0 and 1:
// rank 0 sends a message, rank 1 sends it back, many times per size. The
// one-way latency is half the round trip; bandwidth is size / one-way time.
// Other ranks, if any, wait.
//
//	golaunch -n 2 ./examples/pingpong
//	golaunch -n 2 ./examples/pingpong --format json --max 4M
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/gompi/gompi/gompi"
	"github.com/spf13/pflag"
)

func main() {
	format := pflag.String("format", "text", "output: text or json (one object per size)")
	minSize := pflag.String("min", "0", "smallest message size (K, M suffixes)")
	maxSize := pflag.String("max", "4M", "largest message size (K, M suffixes)")
	reps := pflag.Int("reps", 5, "measurements per size; the median is reported")
	budget := pflag.Float64("time", 0.05, "seconds each measurement should take (sets the iteration count)")
	pflag.Parse()
	lo, err1 := parseSize(*minSize)
	hi, err2 := parseSize(*maxSize)
	if err1 != nil || err2 != nil || lo > hi || *reps < 1 || (*format != "text" && *format != "json") {
		fmt.Fprintln(os.Stderr, "pingpong: bad arguments (see --help)")
		os.Exit(2)
	}
	if err := gompi.Init(); err != nil {
		log.Fatal(err)
	}
	defer gompi.Finalize()
	c := gompi.World()
	if c.Size() < 2 {
		fmt.Fprintln(os.Stderr, "pingpong: needs at least 2 ranks (golaunch -n 2 ./examples/pingpong)")
		gompi.Abort(2)
	}
	if c.Rank() > 1 {
		return
	}
	if c.Rank() == 0 && *format == "text" {
		fmt.Printf("%12s %14s %16s %10s\n", "size(B)", "latency(us)", "bandwidth(MB/s)", "iters")
	}
	buf := make([]byte, max(hi, 1))
	for _, size := range sizes(lo, hi) {
		iters := calibrate(c, buf[:size], *budget)
		var lat []float64
		for r := 0; r < *reps; r++ {
			lat = append(lat, measure(c, buf[:size], iters)/2)
		}
		if c.Rank() != 0 {
			continue
		}
		sort.Float64s(lat)
		l := lat[len(lat)/2]
		bw := 0.0
		if size > 0 {
			bw = float64(size) / l / 1e6
		}
		if *format == "json" {
			json.NewEncoder(os.Stdout).Encode(map[string]any{
				"size": size, "latency_us": l * 1e6, "bandwidth_MBps": bw, "iterations": iters,
				"reps": *reps, "latency_min_us": lat[0] * 1e6, "latency_max_us": lat[len(lat)-1] * 1e6})
		} else {
			fmt.Printf("%12d %14.3f %16.1f %10d\n", size, l*1e6, bw, iters)
		}
	}
}

// measure returns the mean round-trip time over iters round trips.
func measure(c *gompi.Comm, buf []byte, iters int) float64 {
	peer := 1 - c.Rank()
	// One warm-up round trip, then the timed ones.
	exchange(c, buf, peer, 1)
	t := gompi.Wtime()
	exchange(c, buf, peer, iters)
	return (gompi.Wtime() - t) / float64(iters)
}

func exchange(c *gompi.Comm, buf []byte, peer, iters int) {
	for i := 0; i < iters; i++ {
		if c.Rank() == 0 {
			must(c.Send(buf, peer, 1))
			_, err := c.Recv(buf, peer, 1)
			must(err)
		} else {
			_, err := c.Recv(buf, peer, 1)
			must(err)
			must(c.Send(buf, peer, 1))
		}
	}
}

// calibrate picks an iteration count so that a measurement takes about
// budget seconds; rank 0 decides and tells rank 1.
func calibrate(c *gompi.Comm, buf []byte, budget float64) int {
	n := []int64{0}
	if c.Rank() == 0 {
		rt := measure(c, buf, 10)
		n[0] = int64(min(max(budget/rt, 10), 1e6))
		must(gompi.Send(c, n, 1, 2))
	} else {
		measure(c, buf, 10)
		_, err := gompi.Recv(c, n, 0, 2)
		must(err)
	}
	return int(n[0])
}

// sizes are 0, then powers of two from max(lo,1) to hi.
func sizes(lo, hi int) []int {
	var out []int
	if lo == 0 {
		out = append(out, 0)
		lo = 1
	}
	for s := lo; s <= hi; s *= 2 {
		out = append(out, s)
	}
	return out
}

func parseSize(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return v * mult, nil
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		gompi.Abort(1)
	}
}
