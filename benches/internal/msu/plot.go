package msu

import (
	"github.com/gompi/gompi/benches/internal/params"
	"github.com/gompi/gompi/benches/internal/plot"
)

// RatePlot returns an empty log-log plot of MB/sec against message size.
func RatePlot(title string) *plot.Plot {
	return &plot.Plot{
		Title: title, XLabel: "message size (bytes)", YLabel: "MB/sec (MB = 2^20 bytes)",
		XScale: plot.Log2, YScale: plot.Log,
		XFormat: func(v float64) string { return params.FormatSize(int64(v)) },
	}
}

// WritePlot draws p into the file at path.
func WritePlot(path string, p *plot.Plot) error { return p.WriteFile(path) }
