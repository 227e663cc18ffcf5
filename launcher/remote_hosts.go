package launcher

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gompi/gompi/internal/jobenv"
)

// Host is one host of a job and how many ranks it takes.
type Host struct {
	Name  string
	Slots int
}

// ParseHosts reads -H (HOST[:SLOTS],...) and --hostfile (Open MPI's format:
// "HOST [slots=N]" a line, or MPICH's: "HOST[:N]"; # comments) into one
// list; a host named twice adds up its slots.
func ParseHosts(list, file string) ([]Host, error) {
	var hs []Host
	add := func(name string, slots int) {
		for i := range hs {
			if hs[i].Name == name {
				hs[i].Slots += slots
				return
			}
		}
		hs = append(hs, Host{name, slots})
	}
	if list != "" {
		for _, part := range strings.Split(list, ",") {
			name, s, hasSlots := strings.Cut(strings.TrimSpace(part), ":")
			slots := 1
			if hasSlots {
				n, err := strconv.Atoi(s)
				if err != nil || n < 1 {
					return nil, fmt.Errorf("-H %q: slots of %q must be a positive number", list, name)
				}
				slots = n
			}
			if name == "" {
				return nil, fmt.Errorf("-H %q: empty host name", list)
			}
			add(name, slots)
		}
	}
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("--hostfile: %w", err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for ln := 1; sc.Scan(); ln++ {
			line, _, _ := strings.Cut(sc.Text(), "#")
			fields := strings.Fields(line)
			if len(fields) == 0 {
				continue
			}
			slots := 1
			if name, n, ok := strings.Cut(fields[0], ":"); ok {
				// MPICH's form, HOST:N.
				v, err := strconv.Atoi(n)
				if err != nil || v < 1 || name == "" {
					return nil, fmt.Errorf("%s:%d: %q: want HOST:N with N a positive number of slots", file, ln, fields[0])
				}
				fields[0], slots = name, v
			}
			for _, f := range fields[1:] {
				k, v, ok := strings.Cut(f, "=")
				switch {
				case ok && (k == "slots" || k == "max_slots" || k == "max-slots"):
					n, err := strconv.Atoi(v)
					if err != nil || n < 1 {
						return nil, fmt.Errorf("%s:%d: %q: want a positive number of slots", file, ln, f)
					}
					if k == "slots" {
						slots = n
					}
				default:
					return nil, fmt.Errorf("%s:%d: %q: only slots=N (and max_slots=N) are understood", file, ln, f)
				}
			}
			add(fields[0], slots)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("--hostfile: %w", err)
		}
		if len(hs) == 0 {
			return nil, fmt.Errorf("--hostfile %s names no host", file)
		}
	}
	return hs, nil
}

// mapRanks places n ranks on hosts: by slot (fill each host before the next)
// or by node (one rank per host in turn, skipping full hosts). It returns
// the ranks of each host, in host order.
func mapRanks(hosts []Host, n int, by string) ([]jobenv.HostRanks, error) {
	total := 0
	for _, h := range hosts {
		total += h.Slots
	}
	if n > total {
		return nil, fmt.Errorf("%d ranks do not fit the %d slots of the hosts given; give fewer ranks, more slots (-H HOST:SLOTS), or --oversubscribe", n, total)
	}
	out := make([]jobenv.HostRanks, len(hosts))
	for i, h := range hosts {
		out[i].Name = h.Name
	}
	if by == "node" {
		for r := 0; r < n; {
			for i, h := range hosts {
				if r < n && len(out[i].Ranks) < h.Slots {
					out[i].Ranks = append(out[i].Ranks, r)
					r++
				}
			}
		}
	} else {
		r := 0
		for i, h := range hosts {
			for k := 0; k < h.Slots && r < n; k++ {
				out[i].Ranks = append(out[i].Ranks, r)
				r++
			}
		}
	}
	// Hosts that got no rank take no part.
	kept := out[:0]
	for _, h := range out {
		if len(h.Ranks) > 0 {
			kept = append(kept, h)
		}
	}
	return kept, nil
}

// Oversubscribe gives hosts the slots n ranks need: the ranks beyond the
// slots given are dealt one per host in turn (mpirun --oversubscribe).
func Oversubscribe(hosts []Host, n int) []Host {
	out := append([]Host(nil), hosts...)
	total := 0
	for _, h := range out {
		total += h.Slots
	}
	for i := 0; total < n && len(out) > 0; i = (i + 1) % len(out) {
		out[i].Slots++
		total++
	}
	return out
}

// PerNode gives every host n slots (mpirun -N, --npernode).
func PerNode(hosts []Host, n int) []Host {
	out := append([]Host(nil), hosts...)
	for i := range out {
		out[i].Slots = n
	}
	return out
}
