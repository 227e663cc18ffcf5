package coll

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// Rule is one row of the selection table of an operation: for calls on
// MinRanks..MaxRanks ranks and of MinBytes..MaxBytes bytes (bounds
// inclusive; 0: no bound; what the size of a call is depends on the
// operation, see Operation.SizeMeaning), use the first usable algorithm of
// Use. The rules of an operation are tried in order, and the first rule that
// matches the call and names an algorithm that can run it (its Available
// says yes, it is commutative where it must be) decides; a rule none of
// whose algorithms can run the call passes it on to the next rule that
// matches. So a table can say "shm where the call fits the scratch area,
// else cma from 4 KiB to 128 KiB on 3 ranks or more, else binomial" as three
// rules: {Use: shm}, {MinRanks: 3, MinBytes: 4096, MaxBytes: 131072, Use:
// cma}, {Use: binomial}. The last rule must have no bounds.
type Rule struct {
	MaxRanks int
	MaxBytes int
	Use      []string
	MinRanks int
	MinBytes int
}

// Matches reports whether the rule covers a call on commSize ranks of the
// given size (its bounds only, not whether its algorithms can run the call).
func (r Rule) Matches(commSize, bytes int) bool { return r.matches(commSize, bytes) }

func (r Rule) matches(commSize, bytes int) bool {
	return (r.MaxRanks == 0 || commSize <= r.MaxRanks) && (r.MaxBytes == 0 || bytes <= r.MaxBytes) &&
		commSize >= r.MinRanks && bytes >= r.MinBytes
}

// unbounded reports whether the rule matches every call.
func (r Rule) unbounded() bool {
	return r.MaxRanks == 0 && r.MaxBytes == 0 && r.MinRanks == 0 && r.MinBytes == 0
}

// copyRule returns r with a copy of its Use.
func copyRule(r Rule) Rule {
	r.Use = append([]string(nil), r.Use...)
	return r
}

// Table returns the selection rules of op.
func Table(op Operation) []Rule {
	registry.RLock()
	defer registry.RUnlock()
	rules := make([]Rule, len(registry.table[op]))
	for i, r := range registry.table[op] {
		rules[i] = copyRule(r)
	}
	return rules
}

// SetTable replaces the selection rules of op. Every name must be registered
// for op, every bound ≥ 0 (a lower bound at most its upper bound), and the
// last rule must have no bounds, so that every call matches a rule.
func SetTable(op Operation, rules []Rule) error {
	registry.Lock()
	defer registry.Unlock()
	if len(rules) == 0 || !rules[len(rules)-1].unbounded() {
		return argErr("table for %s: the last rule must have no bounds (MinRanks, MaxRanks, MinBytes and MaxBytes 0)", op)
	}
	own := make([]Rule, len(rules))
	for i, r := range rules {
		if len(r.Use) == 0 || r.MaxRanks < 0 || r.MaxBytes < 0 || r.MinRanks < 0 || r.MinBytes < 0 ||
			(r.MaxRanks != 0 && r.MinRanks > r.MaxRanks) || (r.MaxBytes != 0 && r.MinBytes > r.MaxBytes) {
			return argErr("table for %s, rule %d: needs algorithms and bounds ≥ 0, each lower bound at most its upper bound", op, i)
		}
		for _, name := range r.Use {
			if _, err := lookup(op, name); err != nil {
				return fmt.Errorf("table for %s, rule %d: %w", op, i, err)
			}
		}
		own[i] = copyRule(r)
	}
	registry.table[op] = own
	publish(op)
	return nil
}

// Select returns the table's first choice for op on commSize ranks and a call
// of the given size: the first algorithm of the first rule that matches,
// what runs when no override is given, the op is commutative and the
// algorithm is available (where it is not, the next one of the rule, then
// of the next rule that matches). "" if op has no table.
func Select(op Operation, commSize, bytes int) string {
	registry.RLock()
	defer registry.RUnlock()
	for _, r := range registry.table[op] {
		if r.matches(commSize, bytes) {
			return r.Use[0]
		}
	}
	return ""
}

// EnvVar is the environment variable that overrides the algorithm of op:
// GOMPI_COLL_ and the operation in upper case, e.g. GOMPI_COLL_BCAST or
// GOMPI_COLL_REDUCE_SCATTER_BLOCK.
func EnvVar(op Operation) string {
	if v, ok := envVars[op]; ok {
		return v
	}
	return "GOMPI_COLL_" + strings.ToUpper(string(op))
}

// envVars holds the variable names, so that looking one up per call
// allocates nothing.
var envVars = func() map[Operation]string {
	m := map[Operation]string{}
	for _, op := range ops {
		m[op] = "GOMPI_COLL_" + strings.ToUpper(string(op))
	}
	return m
}()

// envChoices holds the GOMPI_COLL_<OP> overrides by opIndex, read from the
// environment at the first collective: os.Getenv, which takes a lock and
// hashes the name, was a cost every collective call paid.
var (
	envChoices     atomic.Pointer[[]string]
	envChoicesOnce sync.Once
)

// envChoice returns the override of operation i, "" if none.
func envChoice(i int) string {
	envChoicesOnce.Do(readEnvChoices)
	return (*envChoices.Load())[i]
}

// readEnvChoices (re)reads the overrides from the environment.
func readEnvChoices() {
	names := make([]string, len(envVarList))
	for i, v := range envVarList {
		names[i] = os.Getenv(v)
	}
	envChoices.Store(&names)
}

// Option adjusts one collective call. Options are plain values, so that
// passing them allocates nothing; later ones override earlier ones.
type Option struct {
	algorithm string
	segment   int
}

// WithAlgorithm runs the named algorithm, whatever the communicator, the
// environment and the table say.
func WithAlgorithm(name string) Option { return Option{algorithm: name} }

// WithSegmentSize sets the pipelining unit of pipelined algorithms (bytes; it
// must be the same on all ranks).
func WithSegmentSize(bytes int) Option { return Option{segment: bytes} }

// merge folds opts into one.
func merge(opts []Option) Option {
	var o Option
	for _, x := range opts {
		if x.algorithm != "" {
			o.algorithm = x.algorithm
		}
		if x.segment != 0 {
			o.segment = x.segment
		}
	}
	return o
}

// Choose returns the algorithm that Call would run for these arguments (see
// the package documentation for the order of precedence), e.g. to record it
// in a trace. The arguments are validated first.
func Choose(c Comm, op Operation, a *Args, opts ...Option) (string, error) {
	o := merge(opts)
	bytes, err := check(op, c.Size(), c.Rank(), a)
	if err != nil {
		return "", &Error{Op: op, Rank: c.Rank(), Peer: -1, Err: err}
	}
	alg, err := choose(c, op, a, bytes, o.algorithm)
	if err != nil {
		return "", &Error{Op: op, Rank: c.Rank(), Peer: -1, Err: err}
	}
	return alg.Name, nil
}

// choose picks the algorithm for a validated call of the given size.
func choose(c Comm, op Operation, a *Args, bytes int, named string) (*Algorithm, error) {
	n := c.Size()
	source := "WithAlgorithm"
	if named == "" {
		if ch, ok := c.(AlgorithmChooser); ok {
			named, source = ch.ChooseAlgorithm(op, n, bytes), "the communicator"
		}
	}
	if named == "" {
		if i := opIndex(op); i >= 0 {
			if named = envChoice(i); named != "" {
				source = envVarList[i]
			}
		}
	}
	s := snap(op)
	if s == nil {
		return nil, argErr("unknown operation %q", op)
	}
	if named != "" {
		var chosen *Algorithm
		for _, alg := range s.algs {
			if alg.Name == named {
				chosen = alg
			}
		}
		if chosen == nil {
			registry.RLock()
			_, err := lookup(op, named)
			registry.RUnlock()
			return nil, fmt.Errorf("%s asks for %s algorithm %q: %w", source, op, named, err)
		}
		if why := unusable(chosen, c, a); why != "" {
			return nil, fmt.Errorf("%w: %s asks for %s algorithm %q, but %s", ErrNotApplicable, source, op, named, why)
		}
		return chosen, nil
	}
	// The first rule that matches and names a usable algorithm, its first
	// usable choice; else any algorithm that can run the call.
	for i := range s.rules {
		if s.rules[i].matches(n, bytes) {
			for _, alg := range s.rules[i].use {
				if usable(alg, c, a) {
					return alg, nil
				}
			}
		}
	}
	for _, alg := range s.algs {
		if usable(alg, c, a) {
			return alg, nil
		}
	}
	return nil, fmt.Errorf("%w: no %s algorithm can run this call", ErrNotApplicable, op)
}

// usable reports whether alg can run this call.
func usable(alg *Algorithm, c Comm, a *Args) bool {
	return !(alg.Commutative && !a.Op.Commutative) && (alg.Available == nil || alg.Available(c, a))
}

// unusable says why alg cannot run this call, "" if it can.
func unusable(alg *Algorithm, c Comm, a *Args) string {
	if alg.Commutative && !a.Op.Commutative {
		return fmt.Sprintf("it needs a commutative op and %s is not", a.Op.Name)
	}
	if alg.Available != nil && !alg.Available(c, a) {
		return "it is not available on this communicator"
	}
	return ""
}
