package osu

import (
	"os"
	"slices"
	"strconv"
	"strings"
)

// ThreadSnap is a snapshot of the calling process's threads' counters.
type ThreadSnap map[int]ThreadStat

// SnapThreads reads /proc/self/task/*/{schedstat,status,comm} (Linux;
// elsewhere it finds nothing). Threads it cannot read are left out.
func SnapThreads() ThreadSnap {
	snap := ThreadSnap{}
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return snap
	}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		dir := "/proc/self/task/" + e.Name() + "/"
		st := ThreadStat{TID: tid}
		if b, err := os.ReadFile(dir + "schedstat"); err == nil {
			f := strings.Fields(string(b))
			if len(f) >= 3 {
				run, _ := strconv.ParseInt(f[0], 10, 64)
				wait, _ := strconv.ParseInt(f[1], 10, 64)
				st.RunUs, st.WaitUs = float64(run)/1e3, float64(wait)/1e3
				st.Slices, _ = strconv.ParseInt(f[2], 10, 64)
			}
		}
		if b, err := os.ReadFile(dir + "status"); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				k, v, ok := strings.Cut(line, ":")
				if !ok {
					continue
				}
				switch k {
				case "voluntary_ctxt_switches":
					st.Vcsw, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				case "nonvoluntary_ctxt_switches":
					st.Ivcsw, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				}
			}
		}
		if b, err := os.ReadFile(dir + "comm"); err == nil {
			st.Comm = strings.TrimSpace(string(b))
		}
		snap[tid] = st
	}
	return snap
}

// Since returns what each thread did from before to now (threads that did
// nothing are left out; a thread started since counts from zero).
func (now ThreadSnap) Since(before ThreadSnap) []ThreadStat {
	var out []ThreadStat
	for tid, a := range now {
		b := before[tid]
		d := ThreadStat{TID: tid, Comm: a.Comm, RunUs: a.RunUs - b.RunUs, WaitUs: a.WaitUs - b.WaitUs,
			Slices: a.Slices - b.Slices, Vcsw: a.Vcsw - b.Vcsw, Ivcsw: a.Ivcsw - b.Ivcsw}
		if d.Slices != 0 || d.Vcsw != 0 || d.Ivcsw != 0 {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(x, y ThreadStat) int { return x.TID - y.TID })
	return out
}
