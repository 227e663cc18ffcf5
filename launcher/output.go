package launcher

import (
	"bufio"
	"io"
	"strconv"
	"sync"
)

// output copies the ranks' streams to the launcher's, a whole line at a time
// so that lines of different ranks never interleave mid-line, optionally
// prefixed with the rank in Open MPI's --tag-output form: "[1,R]<stdout>:".
type output struct {
	mu  sync.Mutex
	tag bool
}

// maxLine bounds how much of an unterminated line is held before it is
// written anyway.
const maxLine = 64 << 10

func (o *output) copy(dst io.Writer, src io.Reader, rank int, stream string) {
	prefix := o.prefix(rank, stream)
	r := bufio.NewReaderSize(src, maxLine)
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			line = append(line[:0], prefix...)
			line = append(line, chunk...)
			if err != nil && len(chunk) > 0 && chunk[len(chunk)-1] != '\n' && err != bufio.ErrBufferFull {
				line = append(line, '\n') // the last line had no newline
			}
			o.mu.Lock()
			dst.Write(line)
			o.mu.Unlock()
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

func (o *output) prefix(rank int, stream string) []byte {
	if !o.tag {
		return nil
	}
	return []byte("[1," + strconv.Itoa(rank) + "]<" + stream + ">:")
}

// write writes one whole line of a remote rank (stream 1 stdout, 2 stderr),
// prefixed as copy does.
func (o *output) write(dst io.Writer, rank, stream int, line []byte) {
	name := "stdout"
	if stream == 2 {
		name = "stderr"
	}
	b := append(o.prefix(rank, name), line...)
	o.mu.Lock()
	dst.Write(b)
	o.mu.Unlock()
}
