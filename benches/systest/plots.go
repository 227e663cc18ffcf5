package systest

import (
	"os"
	"path/filepath"
	"unsafe"

	"github.com/gompi/gompi/benches/internal/plot"
)

// writePlot writes p as SVG into the plot directory.
func (e *env) writePlot(name string, p *plot.Plot) error {
	if err := os.MkdirAll(e.cfg.PlotDir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(e.cfg.PlotDir, name)
	if err := p.WriteFile(path); err != nil {
		return err
	}
	e.plots = append(e.plots, path)
	return nil
}

// unsafeWords views page-aligned memory as 8-byte words.
func unsafeWords(b []byte) []uint64 {
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
}
