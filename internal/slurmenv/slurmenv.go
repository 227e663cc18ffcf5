// Package slurmenv reads what Slurm tells a program about its allocation:
// the node list in Slurm's compressed host-list form (SLURM_JOB_NODELIST,
// e.g. "n[01-04,07],gpu3") and the tasks per node in its run-length form
// (SLURM_TASKS_PER_NODE, e.g. "2(x3),1").
package slurmenv

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Environment variables Slurm sets inside an allocation (salloc, sbatch)
// and in every task of a step (srun).
const (
	JobID        = "SLURM_JOB_ID"
	JobNodeList  = "SLURM_JOB_NODELIST"
	TasksPerNode = "SLURM_TASKS_PER_NODE"
	CPUsPerNode  = "SLURM_JOB_CPUS_PER_NODE"
	StepID       = "SLURM_STEP_ID"
	NodeID       = "SLURM_NODEID"  // index of this task's node in the step's node list
	LocalID      = "SLURM_LOCALID" // index of this task among the step's tasks on its node
	ProcID       = "SLURM_PROCID"  // this task's rank in the step
)

// ErrSyntax: a variable does not have the form Slurm writes.
var ErrSyntax = errors.New("slurmenv: malformed value")

// MaxHosts bounds what one host list may expand to, so that a typo such as
// "n[1-999999999]" is an error, not an exhausted memory.
const MaxHosts = 1 << 20

// ParseNodeList expands a Slurm host list: comma-separated entries, each a
// name with any number of bracketed range groups ("n[01-04,07]",
// "rack[1-2]-n[1-3]"), expanded in Slurm's order (the last group varies
// fastest). A range keeps the zero padding of its lower bound ("01-10"
// gives 01..10). Duplicates are kept: Slurm's lists have none.
func ParseNodeList(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: empty node list", ErrSyntax)
	}
	var out []string
	for _, entry := range splitTop(s) {
		hosts, err := expandEntry(strings.TrimSpace(entry), MaxHosts-len(out))
		if err != nil {
			return nil, fmt.Errorf("node list %q: %w", clip(s), err)
		}
		out = append(out, hosts...)
	}
	return out, nil
}

// splitTop splits s at the commas outside brackets.
func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// expandEntry expands one entry: literal text and bracket groups.
func expandEntry(e string, budget int) ([]string, error) {
	if e == "" {
		return nil, fmt.Errorf("%w: empty entry", ErrSyntax)
	}
	names := []string{""}
	for len(e) > 0 {
		open := strings.IndexByte(e, '[')
		if open < 0 {
			if strings.IndexByte(e, ']') >= 0 {
				return nil, fmt.Errorf("%w: ']' without '['", ErrSyntax)
			}
			for i := range names {
				names[i] += e
			}
			break
		}
		lit := e[:open]
		if strings.IndexByte(lit, ']') >= 0 {
			return nil, fmt.Errorf("%w: ']' without '['", ErrSyntax)
		}
		end := strings.IndexByte(e[open:], ']')
		if end < 0 {
			return nil, fmt.Errorf("%w: '[' without ']'", ErrSyntax)
		}
		group := e[open+1 : open+end]
		if strings.IndexByte(group, '[') >= 0 {
			return nil, fmt.Errorf("%w: brackets inside brackets", ErrSyntax)
		}
		vals, err := expandGroup(group, budget)
		if err != nil {
			return nil, err
		}
		if len(names)*len(vals) > budget {
			return nil, fmt.Errorf("%w: more than %d hosts", ErrSyntax, MaxHosts)
		}
		next := make([]string, 0, len(names)*len(vals))
		for _, n := range names {
			for _, v := range vals {
				next = append(next, n+lit+v)
			}
		}
		names = next
		e = e[open+end+1:]
	}
	for _, n := range names {
		if n == "" || strings.ContainsAny(n, " \t\n") {
			return nil, fmt.Errorf("%w: bad host name %q", ErrSyntax, n)
		}
	}
	return names, nil
}

// expandGroup expands the inside of a bracket group: "01-04,07".
func expandGroup(g string, budget int) ([]string, error) {
	if g == "" {
		return nil, fmt.Errorf("%w: empty brackets", ErrSyntax)
	}
	var out []string
	for _, r := range strings.Split(g, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		if !digits(lo) || (isRange && !digits(hi)) {
			return nil, fmt.Errorf("%w: bad range %q (want N or N-M)", ErrSyntax, r)
		}
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || b < a {
			return nil, fmt.Errorf("%w: bad range %q", ErrSyntax, r)
		}
		if b-a >= budget-len(out) {
			return nil, fmt.Errorf("%w: more than %d hosts", ErrSyntax, MaxHosts)
		}
		width := 0
		if len(lo) > 1 && lo[0] == '0' {
			width = len(lo)
		}
		for x := a; x <= b; x++ {
			out = append(out, fmt.Sprintf("%0*d", width, x))
		}
	}
	return out, nil
}

func digits(s string) bool {
	if s == "" || len(s) > 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ParseCounts expands Slurm's run-length list of counts: "2(x3),1" is
// 2,2,2,1. Every count must be positive.
func ParseCounts(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: empty count list", ErrSyntax)
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		num, rep, hasRep := strings.Cut(part, "(x")
		times := 1
		if hasRep {
			r, ok := strings.CutSuffix(rep, ")")
			if !ok || !digits(r) {
				return nil, fmt.Errorf("%w: %q in %q (want N or N(xM))", ErrSyntax, part, clip(s))
			}
			times, _ = strconv.Atoi(r)
		}
		if !digits(num) {
			return nil, fmt.Errorf("%w: %q in %q (want N or N(xM))", ErrSyntax, part, clip(s))
		}
		n, _ := strconv.Atoi(num)
		if n <= 0 || times <= 0 {
			return nil, fmt.Errorf("%w: %q in %q: counts must be positive", ErrSyntax, part, clip(s))
		}
		if times > MaxHosts-len(out) {
			return nil, fmt.Errorf("%w: more than %d entries", ErrSyntax, MaxHosts)
		}
		for range times {
			out = append(out, n)
		}
	}
	return out, nil
}

// Node is one node of an allocation and the tasks it is given.
type Node struct {
	Name  string
	Tasks int
}

// Allocation reads the nodes of the allocation this process runs in and the
// tasks per node (SLURM_TASKS_PER_NODE, or SLURM_JOB_CPUS_PER_NODE when no
// task count was asked for). ok is false outside an allocation.
func Allocation() (nodes []Node, ok bool, err error) {
	return allocation(os.Getenv)
}

func allocation(getenv func(string) string) ([]Node, bool, error) {
	if getenv(JobID) == "" || getenv(JobNodeList) == "" {
		return nil, false, nil
	}
	names, err := ParseNodeList(getenv(JobNodeList))
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", JobNodeList, err)
	}
	countVar := TasksPerNode
	if getenv(countVar) == "" {
		countVar = CPUsPerNode
	}
	counts, err := ParseCounts(getenv(countVar))
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", countVar, err)
	}
	if len(counts) != len(names) {
		return nil, true, fmt.Errorf("%w: %s lists %d nodes, %s %d counts", ErrSyntax, JobNodeList, len(names), countVar, len(counts))
	}
	nodes := make([]Node, len(names))
	for i := range names {
		nodes[i] = Node{names[i], counts[i]}
	}
	return nodes, true, nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
