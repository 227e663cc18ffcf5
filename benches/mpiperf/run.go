package mpiperf

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/gompi/gompi/gompi"
	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/stats"
	"github.com/gompi/gompi/rdtsc"
	"github.com/gompi/gompi/sync/clock"
	"github.com/gompi/gompi/sync/launch"
)

// Row is one measured point.
type Row struct {
	Method Method
	Op     string
	Alg    string // "" the runtime's choice, "-" none
	N      int    // ranks
	Size   int    // the size asked for
	Bytes  int    // the size moved (reductions: whole float32 elements)
	Stats  launch.Stats
	// Late and Overrun count the launches that some rank started late or
	// overran; Stop says why the measurement ended.
	Late, Overrun int
	Stop          string
	Delta, TBcast float64 // the last Δ and t_bcast, seconds
	// MeanAll is the mean time over all launches, invalid ones included:
	// not a synchronized measurement, but what there is when ranks outnumber
	// CPUs and few launches are valid.
	MeanAll float64
	// Spread and RefSpread are medians over the valid launches of the
	// start spread on the global clock and on the host's counter (start
	// spread test only; NaN otherwise).
	Spread, RefSpread float64
	// Overlap is the share of the operation hidden behind computation, in
	// per cent (nonblocking tests with --overlap; NaN otherwise), measured
	// with TOverlap seconds of time for start + computation + wait.
	Overlap, TOverlap float64
	Skipped           string // why the point was not measured
	PerRank           []RankRow
}

// RankRow is one rank's own times at one point (the per-rank report).
type RankRow struct {
	Rank          int
	Host          string
	Stats         launch.Stats // over the launches valid on every rank, this rank's own times
	Late, Overrun int          // launches this rank started late / overran
}

// Run runs the suite as configured on every rank of world; rank 0 writes
// the report to out, and progress (and, for CSV and JSON, the header) to
// progress. It is collective.
func Run(world *gompi.Comm, cfg Config, out, progress io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	ops, _ := ParseOps(cfg.Ops)
	if cfg.List {
		if world.Rank() == 0 {
			return writeList(out)
		}
		return nil
	}
	for _, n := range cfg.Ranks {
		if int(n) > world.Size() {
			return fmt.Errorf("--ranks %d: the job has only %d ranks", n, world.Size())
		}
	}
	if cfg.Root < 0 || cfg.Root >= minRanks(cfg, world.Size()) {
		return fmt.Errorf("--root %d: not a rank of every communicator measured", cfg.Root)
	}
	r := &runner{cfg: cfg, world: world, ops: ops, begin: time.Now()}
	r.prog = newProgress(cfg.Progress, progress, world.Rank() == 0)
	if err := r.open(); err != nil {
		return err
	}
	if cfg.Method == MethodLateInit {
		// First calls must come before anything else this run does with the
		// collectives: no clock sync (rank 0's clock is all it needs).
		if err := r.lateInit(); err != nil {
			return err
		}
	} else {
		if err := r.syncClocks(); err != nil {
			return err
		}
		if err := r.sweep(); err != nil {
			return err
		}
		end, err := clock.Check(world, r.g, cfg.Sync)
		if err != nil {
			return err
		}
		r.residEnd = end
	}
	if world.Rank() != 0 {
		return nil
	}
	return r.write(out, progress)
}

func minRanks(cfg Config, size int) int {
	m := size
	for _, n := range cfg.Ranks {
		m = min(m, int(n))
	}
	return m
}

type runner struct {
	cfg   Config
	world *gompi.Comm
	ops   []Op
	begin time.Time

	local     rdtsc.Clock
	timerNote string
	g         *clock.Global
	resid     clock.Residuals
	residEnd  clock.Residuals
	ref       clock.Source
	refNote   string
	hosts     []string
	cpus      []int
	over      bool   // ranks outnumber CPUs on some host
	overNote  string // says so
	bindNote  string
	pool      *pool
	wait      launch.WaitMode
	tBcast    map[int]float64

	rows []Row
	late []LateRow // lateinit mode
	prog *progress
}

// open opens the timer, learns where the ranks run, checks the host's
// counter for the start-spread test and binds the ranks.
func (r *runner) open() error {
	var err error
	if r.local, r.timerNote, err = openTimer(r.world, r.cfg.Timer); err != nil {
		return err
	}
	r.pool = newPool(r.cfg.Buffers, lastLevelCache())
	if err := r.hostMap(); err != nil {
		return err
	}
	// The cross-core check of the reference needs every CPU: before binding.
	if r.ref, r.refNote, err = reference(r.world); err != nil {
		return err
	}
	r.bindNote, err = r.bind()
	return err
}

// syncClocks synchronizes the clocks and checks them independently.
func (r *runner) syncClocks() error {
	var err error
	w := r.world
	r.prog.say("clock sync (%s) of %d ranks", r.cfg.Sync.Algorithm, w.Size())
	if r.g, err = clock.Sync(w, r.local, r.cfg.Sync); err != nil {
		return err
	}
	if r.resid, err = clock.Check(w, r.g, r.cfg.Sync); err != nil {
		return err
	}
	r.tBcast = map[int]float64{}
	return nil
}

// hostMap gathers every rank's host and CPU count and decides whether
// ranks outnumber CPUs.
func (r *runner) hostMap() error {
	const w = 64
	name := make([]byte, w)
	copy(name, gompi.Host())
	all := make([]byte, w*r.world.Size())
	if err := r.world.Allgather(name, all); err != nil {
		return err
	}
	cpus := make([]int64, r.world.Size())
	if err := gompi.Allgather(r.world, []int64{int64(runtime.NumCPU())}, cpus); err != nil {
		return err
	}
	count := map[string]int{}
	for i := range r.world.Size() {
		h := string(all[i*w : (i+1)*w])
		if j := slices.Index([]byte(h), 0); j >= 0 {
			h = h[:j]
		}
		r.hosts = append(r.hosts, h)
		r.cpus = append(r.cpus, int(cpus[i]))
		count[h]++
	}
	for i, h := range r.hosts {
		if count[h] > r.cpus[i] && !r.over {
			r.over = true
			r.overNote = fmt.Sprintf("%d ranks on the %d CPUs of host %s", count[h], r.cpus[i], h)
		}
	}
	if !r.over && os.Getenv(jobenv.Oversubscribed) == "1" {
		r.over, r.overNote = true, "golaunch says ranks outnumber CPUs (GOMPI_OVERSUBSCRIBED=1)"
	}
	return nil
}

// point is one (n, op, algorithm, size) of the sweep.
type point struct {
	op   Op
	alg  string
	size int
}

func (r *runner) points() []point {
	var ps []point
	for _, op := range r.ops {
		sizes := []int{0}
		if op.Sized {
			sizes = nil
			for _, s := range r.cfg.Sizes {
				sizes = append(sizes, int(s))
			}
		}
		for _, alg := range algorithmsFor(op, r.cfg.Algs) {
			for _, s := range sizes {
				ps = append(ps, point{op, alg, s})
			}
		}
	}
	return ps
}

func (r *runner) rankCounts() []int {
	if len(r.cfg.Ranks) == 0 {
		return []int{r.world.Size()}
	}
	var ns []int
	for _, n := range r.cfg.Ranks {
		ns = append(ns, int(n))
	}
	return ns
}

// sweep measures every point for every number of ranks.
func (r *runner) sweep() error {
	ps := r.points()
	r.prog.total = len(ps) * len(r.rankCounts())
	for _, n := range r.rankCounts() {
		color := gompi.Undefined
		if r.world.Rank() < n {
			color = 0
		}
		sub, err := r.world.Split(color, r.world.Rank())
		if err != nil {
			return err
		}
		if sub != nil {
			if err := r.sweepComm(sub, ps); err != nil {
				return err
			}
			if err := sub.Free(); err != nil {
				return err
			}
		}
		if err := r.world.Barrier(); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) sweepComm(c *gompi.Comm, ps []point) error {
	sched, err := launch.New(c, r.g, r.cfg.Launch)
	if err != nil {
		return err
	}
	defer sched.Close()
	r.tBcast[c.Size()] = sched.TBcast()
	r.wait = sched.WaitMode()
	for _, p := range ps {
		methods := []Method{r.cfg.Method}
		if r.cfg.Method == MethodBoth {
			methods = []Method{MethodSync, MethodClassic}
		}
		if p.op.Kind == SelfTest && r.cfg.Method != MethodSync {
			methods = []Method{MethodSync} // the self tests check the synchronized method
		}
		r.prog.step(p, c.Size())
		for _, m := range methods {
			row, err := r.measure(c, sched, p, m)
			if err != nil {
				return fmt.Errorf("%s %s n=%d size=%d: %w", m, p.op.Name, c.Size(), p.size, err)
			}
			r.rows = append(r.rows, row)
			r.prog.done(row)
		}
	}
	return nil
}

func (r *runner) env(c *gompi.Comm, p point, compute float64) env {
	e := env{c: c, root: r.cfg.Root, size: p.size, pool: r.pool, local: r.local, compute: compute}
	if p.alg != "" && p.alg != "-" {
		e.opts = []gompi.CollOption{gompi.WithAlgorithm(p.alg)}
	}
	return e
}

// prepare sets a test up and makes one trial call on every rank; a call
// refused as inapplicable (an algorithm that cannot run it) skips the point.
func (r *runner) prepare(c *gompi.Comm, p point, compute float64) (call, string, error) {
	e := r.env(c, p, compute)
	cl, err := setup(p.op, e)
	if err != nil {
		return call{}, "", err
	}
	inner := cl.run
	cl.run = func() error { e.pool.begin(); return inner() }
	skip, err := agree(c, cl.run())
	return cl, skip, err
}

// agree makes the ranks agree on the outcome of a call: an argument error
// on any rank (an algorithm that cannot run the call) is a reason to skip,
// any other error is fatal everywhere.
func agree(c *gompi.Comm, err error) (skip string, fatal error) {
	flag := []int32{0}
	if err != nil {
		flag[0] = 1
		if !errors.Is(err, gompi.ErrArg) {
			flag[0] = 2
		}
	}
	all := []int32{0}
	if err := gompi.Allreduce(c, flag, all, gompi.Max[int32]()); err != nil {
		return "", err
	}
	switch {
	case all[0] == 2 && err != nil:
		return "", err
	case all[0] == 2:
		return "", fmt.Errorf("another rank failed the call")
	case all[0] == 1 && err != nil:
		return err.Error(), nil
	case all[0] == 1:
		return "refused by another rank", nil
	}
	return "", nil
}

// measure times one point by one method.
func (r *runner) measure(c *gompi.Comm, sched *launch.Scheduler, p point, m Method) (Row, error) {
	row := Row{Method: m, Op: p.op.Name, Alg: p.alg, N: c.Size(), Size: p.size,
		MeanAll: math.NaN(), Spread: math.NaN(), RefSpread: math.NaN(), Overlap: math.NaN(), TOverlap: math.NaN(),
		Delta: math.NaN(), TBcast: sched.TBcast()}
	row.Stats = launch.Summarize(nil, 0, 0, r.cfg.Launch.Confidence)
	cl, skip, err := r.prepare(c, p, 0)
	if err != nil || skip != "" {
		row.Skipped = skip
		return row, err
	}
	row.Bytes = cl.bytes
	if m == MethodClassic {
		t, err := r.classic(c, cl)
		row.Stats.Mean, row.Stats.NT, row.Stats.NC, row.Stats.NS = t, r.cfg.ClassicReps, r.cfg.ClassicReps, r.cfg.ClassicReps
		row.Stop, row.TBcast = "-", math.NaN()
		return row, err
	}
	s := sched
	if p.op.Name == OpStartSpread {
		prm := r.cfg.Launch
		prm.Reference = r.ref
		if s, err = sched.With(prm); err != nil {
			return row, err
		}
	}
	res, err := s.Measure(cl.run)
	if err != nil {
		return row, err
	}
	r.fill(&row, res)
	if p.op.Name == OpStartSpread {
		var g, h []float64
		for _, l := range res.Launches {
			if l.Valid() {
				g, h = append(g, l.Spread), append(h, l.RefSpread)
			}
		}
		row.Spread, row.RefSpread = stats.Median(g), stats.Median(h)
	}
	if p.op.Kind == Nonblocking && r.cfg.Overlap && !math.IsNaN(row.Stats.Mean) {
		if err := r.overlap(c, s, p, &row); err != nil {
			return row, err
		}
	}
	if r.cfg.PerRank != "" {
		if row.PerRank, err = r.perRank(c, res); err != nil {
			return row, err
		}
	}
	return row, nil
}

func (r *runner) fill(row *Row, res *launch.Result) {
	row.Stats = res.Stats
	row.Late, row.Overrun = res.Counts()
	row.Stop = res.Stop
	row.Delta = res.Stages[len(res.Stages)-1].Delta
	var all []float64
	for _, l := range res.Launches {
		all = append(all, l.Time)
	}
	row.MeanAll = stats.Mean(all)
}

// classic is the IMB-style loop: one call (initialisation), a barrier, then
// k calls back to back; rank 0's mean time per call.
func (r *runner) classic(c *gompi.Comm, cl call) (float64, error) {
	if err := cl.run(); err != nil {
		return 0, err
	}
	if err := c.Barrier(); err != nil {
		return 0, err
	}
	t0 := r.local.Now()
	for range r.cfg.ClassicReps {
		if err := cl.run(); err != nil {
			return 0, err
		}
	}
	return (r.local.Now() - t0) / float64(r.cfg.ClassicReps), nil
}

// overlap measures the nonblocking test again with as much computation
// between start and wait as the operation took (c = T), and reports the share
// of the operation hidden: 100·(T + c − T_overlap)/min(T, c), within [0, 100].
func (r *runner) overlap(c *gompi.Comm, s *launch.Scheduler, p point, row *Row) error {
	t := row.Stats.Mean
	cl, skip, err := r.prepare(c, p, t)
	if err != nil || skip != "" {
		return err
	}
	res, err := s.Measure(cl.run)
	if err != nil {
		return err
	}
	row.TOverlap = res.Stats.Mean
	row.Overlap = math.Max(0, math.Min(100, 100*(2*t-row.TOverlap)/t))
	return nil
}

// perRank gathers every rank's own statistics at rank 0.
func (r *runner) perRank(c *gompi.Comm, res *launch.Result) ([]RankRow, error) {
	own := res.OwnStats()
	late, over := 0, 0
	for _, o := range res.Own {
		if o.Late {
			late++
		}
		if o.Overrun {
			over++
		}
	}
	v := []float64{own.Mean, own.SE, own.Min, own.Max, float64(own.NC), float64(own.NS), float64(late), float64(over)}
	var all []float64
	if c.Rank() == 0 {
		all = make([]float64, len(v)*c.Size())
	}
	if err := gompi.Gather(c, v, all, 0); err != nil {
		return nil, err
	}
	if c.Rank() != 0 {
		return nil, nil
	}
	rows := make([]RankRow, c.Size())
	for i := range rows {
		x := all[i*len(v):]
		st := launch.Stats{Mean: x[0], SE: x[1], Min: x[2], Max: x[3], NC: int(x[4]), NS: int(x[5]), NT: own.NT}
		rows[i] = RankRow{Rank: i, Host: r.hosts[c.WorldRank(i)], Stats: st, Late: int(x[6]), Overrun: int(x[7])}
	}
	return rows, nil
}
