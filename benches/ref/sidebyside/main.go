// Command sidebyside runs the same collective measurements over gompi and
// over an MPI library, alternating the two for every point so that the
// machine's slow drift in load hits both alike, and prints the medians of
// the repetitions with their ratio as a Markdown table.
//
//	go run ./benches/ref/sidebyside --ops barrier,bcast --n 2,4,8 --sizes 8,1024
//
// It needs golaunch and benches built from this tree, and the reference
// program benches/ref/osu_coll.c compiled with mpicc (it builds what is
// missing into --dir).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

type point struct {
	Op   string  `json:"op"`
	N    int     `json:"n"`
	Size int     `json:"size"`
	Avg  float64 `json:"avg_us"`
}

func main() {
	ops := pflag.StringSlice("ops", []string{"barrier", "bcast", "allreduce", "allgather", "alltoall"}, "operations")
	ns := pflag.IntSlice("n", []int{2, 4, 8, 16, 64}, "rank counts")
	sizes := pflag.String("sizes", "8,1024,65536,1048576", "sizes in bytes, comma-separated")
	reps := pflag.Int("reps", 3, "repetitions of each point (the median is reported)")
	dir := pflag.String("dir", "/tmp/sidebyside", "where the binaries are built")
	mpirun := pflag.String("mpirun", "mpirun --allow-run-as-root --oversubscribe", "how to start the MPI program")
	extra := pflag.String("osu-args", "", "extra arguments for both programs (e.g. --iters 200)")
	large := pflag.String("large-args", "--iters-large 20 --skip-large 2", "arguments for both programs at n >= 32")
	pflag.Parse()
	if err := build(*dir); err != nil {
		log.Fatal(err)
	}
	type key struct {
		op      string
		n, size int
	}
	results := map[key][2][]float64{}
	var order []key
	for _, op := range *ops {
		for _, n := range *ns {
			args := []string{"--op", op, "--sizes", *sizes, "--format", "json"}
			args = append(args, strings.Fields(*extra)...)
			if n >= 32 {
				args = append(args, strings.Fields(*large)...)
			}
			for r := 0; r < *reps; r++ {
				for side := 0; side < 2; side++ {
					var cmd []string
					if side == 0 {
						cmd = append([]string{filepath.Join(*dir, "golaunch"), "-n", strconv.Itoa(n), filepath.Join(*dir, "benches"), "osu"}, args...)
					} else {
						cmd = append(append(strings.Fields(*mpirun), "-n", strconv.Itoa(n), filepath.Join(*dir, "osu_coll")), args...)
					}
					pts, err := runJSON(cmd)
					if err != nil {
						log.Fatalf("%s: %v", strings.Join(cmd, " "), err)
					}
					for _, p := range pts {
						k := key{p.Op, p.N, p.Size}
						v, seen := results[k]
						if !seen {
							order = append(order, k)
						}
						v[side] = append(v[side], p.Avg)
						results[k] = v
					}
				}
			}
			fmt.Fprintf(os.Stderr, "done %s n=%d\n", op, n)
		}
	}
	fmt.Printf("| op | n | size | gompi µs | MPI µs | gompi / MPI |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, k := range order {
		v := results[k]
		g, m := median(v[0]), median(v[1])
		fmt.Printf("| %s | %d | %s | %.2f | %.2f | %.2f |\n", k.op, k.n, size(k.size), g, m, g/m)
	}
}

func runJSON(cmd []string) ([]point, error) {
	c := exec.Command(cmd[0], cmd[1:]...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, errb.String())
	}
	var pts []point
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var p point
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			return nil, err
		}
		pts = append(pts, p)
	}
	return pts, nil
}

func build(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, step := range [][]string{
		{"go", "build", "-o", filepath.Join(dir, "golaunch"), "./launcher/golaunch"},
		{"go", "build", "-o", filepath.Join(dir, "benches"), "./benches"},
		{"mpicc", "-O2", "-o", filepath.Join(dir, "osu_coll"), "benches/ref/osu_coll.c"},
	} {
		c := exec.Command(step[0], step[1:]...)
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(step, " "), err, out)
		}
	}
	return nil
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func size(b int) string {
	switch {
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}
