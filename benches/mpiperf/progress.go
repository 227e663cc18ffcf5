package mpiperf

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gompi/gompi/benches/internal/params"
	"github.com/gompi/gompi/benches/internal/tty"
)

// progress prints a line per measured point on stderr, on rank 0, when
// asked or when stderr is a terminal.
type progress struct {
	w      io.Writer // nil: quiet
	total  int
	n      int
	start  time.Time
	prefix string
}

func newProgress(mode string, w io.Writer, rank0 bool) *progress {
	p := &progress{start: time.Now()}
	if !rank0 || mode == "off" || (mode == "auto" && !isTerminal(w)) {
		return p
	}
	p.w = w
	return p
}

// isTerminal reports whether w is a terminal, or, for a rank that golaunch
// started (whose stderr is a pipe to golaunch), whether golaunch's is.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && tty.Is(f)
}

func (p *progress) say(f string, a ...any) {
	if p.w != nil {
		fmt.Fprintf(p.w, "mpiperf: "+f+"\n", a...)
	}
}

func (p *progress) step(pt point, n int) {
	p.n++
	alg := pt.alg
	if alg == "" || alg == "-" {
		alg = ""
	} else {
		alg = " " + alg
	}
	p.prefix = fmt.Sprintf("[%d/%d] %s%s n=%d size=%s", p.n, p.total, pt.op.Name, alg, n, params.FormatSize(int64(pt.size)))
}

func (p *progress) done(r Row) {
	if p.w == nil {
		return
	}
	el := time.Since(p.start).Round(100 * time.Millisecond)
	if r.Skipped != "" {
		p.say("%s %s: skipped (%s) [%v]", p.prefix, r.Method, r.Skipped, el)
		return
	}
	p.say("%s %s: T = %.3f µs, %d of %d launches valid [%v]", p.prefix, r.Method, r.Stats.Mean*us, r.Stats.NC, r.Stats.NT, el)
}
