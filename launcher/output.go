package launcher

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// output copies the ranks' streams to the launcher's, a whole line at a time
// so that lines of different ranks never interleave mid-line, optionally
// prefixed with the rank in Open MPI's --tag-output form: "[1,R]<stdout>:"
// and with the time (--timestamp-output), optionally also into a file per
// rank and stream (--output-filename). It keeps each rank's last lines of
// stderr, which the closing summary of a failed job quotes.
type output struct {
	mu        sync.Mutex
	tag       bool
	timestamp bool
	dir       string // --output-filename: DIR/1/rank.R/stdout and stderr
	nocopy    bool   // with dir: the files only, not the terminal
	files     map[string]*os.File
	fileErr   error
	last      map[int][]string // each rank's last lines of stderr
}

// maxLine bounds how much of an unterminated line is held before it is
// written anyway.
const maxLine = 64 << 10

// Quoted lines: how many of a failed rank's last lines of stderr the
// closing summary shows, and how much of each.
const (
	tailLines = 8
	tailWidth = 300
)

func newOutput(cfg *Config) *output {
	o := &output{tag: cfg.TagOutput, timestamp: cfg.TimestampOutput}
	if cfg.OutputFilename != "" {
		o.dir, o.nocopy = strings.CutSuffix(cfg.OutputFilename, ":nocopy")
	}
	return o
}

func (o *output) copy(dst io.Writer, src io.Reader, rank int, stream string) {
	r := bufio.NewReaderSize(src, maxLine)
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			line := chunk
			if err != nil && chunk[len(chunk)-1] != '\n' && err != bufio.ErrBufferFull {
				line = append(line, '\n') // the last line had no newline
			}
			o.emit(dst, rank, stream, line)
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

// write writes one whole line of a remote rank (stream 1 stdout, 2 stderr),
// as copy does.
func (o *output) write(dst io.Writer, rank, stream int, line []byte) {
	name := "stdout"
	if stream == 2 {
		name = "stderr"
	}
	o.emit(dst, rank, name, line)
}

// emit writes one line of rank's stream to dst (and its file) and, for
// stderr, keeps it for the summary.
func (o *output) emit(dst io.Writer, rank int, stream string, line []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.dir != "" {
		if f := o.file(rank, stream); f != nil {
			f.Write(line)
		}
	}
	if !o.nocopy || o.dir == "" {
		b := make([]byte, 0, len(line)+40)
		if o.timestamp {
			b = time.Now().AppendFormat(b, "2006-01-02T15:04:05.000000 ")
		}
		if o.tag {
			b = append(b, "[1,"+strconv.Itoa(rank)+"]<"+stream+">:"...)
		}
		dst.Write(append(b, line...))
	}
	if stream == "stderr" {
		if o.last == nil {
			o.last = map[int][]string{}
		}
		s := strings.TrimRight(string(line), "\r\n")
		if len(s) > tailWidth {
			s = s[:tailWidth] + "…"
		}
		ls := append(o.last[rank], s)
		if len(ls) > tailLines {
			ls = ls[1:]
		}
		o.last[rank] = ls
	}
}

// file returns rank's file for stream under dir, Open MPI's layout
// (DIR/1/rank.R/stdout), made on first use; nil after an error, which is
// said once by closeFiles.
func (o *output) file(rank int, stream string) *os.File {
	key := strconv.Itoa(rank) + "/" + stream
	if f, ok := o.files[key]; ok {
		return f
	}
	if o.files == nil {
		o.files = map[string]*os.File{}
	}
	d := filepath.Join(o.dir, "1", "rank."+strconv.Itoa(rank))
	var f *os.File
	err := os.MkdirAll(d, 0o755)
	if err == nil {
		f, err = os.Create(filepath.Join(d, stream))
	}
	if err != nil && o.fileErr == nil {
		o.fileErr = fmt.Errorf("--output-filename: %w", err)
	}
	o.files[key] = f
	return f
}

// closeFiles closes the per-rank files and returns the first error met.
func (o *output) closeFiles() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, f := range o.files {
		if f != nil {
			f.Close()
		}
	}
	return o.fileErr
}

// quote writes rank's last lines of stderr as an indented block after the
// summary, the way mpirun's abort block ends a failed job's output: the
// reason for a failure is then on the screen, next to the verdict, even
// when other ranks wrote screens of output after it.
//
// A rank that wrote nothing on stderr often failed because of what another
// said (every rank exits on a usage error, rank 0 alone explains it): then
// the lowest rank that wrote on stderr is quoted, and named.
func (o *output) quote(log io.Writer, rank int) {
	o.mu.Lock()
	ls := o.last[rank]
	var b strings.Builder
	if len(ls) == 0 {
		other := -1
		for r, l := range o.last {
			if len(l) > 0 && (other < 0 || r < other) {
				other = r
			}
		}
		if other < 0 {
			o.mu.Unlock()
			return
		}
		fmt.Fprintf(&b, "golaunch: rank %d wrote nothing on stderr; ", rank)
		rank, ls = other, o.last[other]
	} else {
		b.WriteString("golaunch: ")
	}
	o.mu.Unlock()
	fmt.Fprintf(&b, "rank %d's last lines of stderr:\n", rank)
	for _, l := range ls {
		b.WriteString("    " + l + "\n")
	}
	io.WriteString(log, b.String())
}

// notifyPipeClosed catches SIGPIPE for the job's lifetime. By default a Go
// program dies of a write to a closed stdout (golaunch ... | head), before
// it could stop its ranks and remove what it built; caught, the write
// fails instead and the job is stopped in order.
func notifyPipeClosed(cfg *Config) chan os.Signal {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGPIPE)
	return c
}

// outputClosed reports whether one of ws is a pipe or socket whose reader
// has gone: a SIGPIPE may also come from a rank's connection, which is not
// a reason to stop the job.
func outputClosed(ws ...io.Writer) bool {
	for _, w := range ws {
		f, ok := w.(*os.File)
		if !ok {
			continue
		}
		fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: unix.POLLOUT}}
		if n, err := unix.Poll(fds, 0); err == nil && n > 0 && fds[0].Revents&unix.POLLERR != 0 {
			return true
		}
	}
	return false
}
