package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progressBar prints "phase [#####.....] done/total" to stderr, at most
// five times a second, and a final line when a phase completes. With
// --quiet it prints nothing.
type progressBar struct {
	w     io.Writer
	quiet bool

	mu    sync.Mutex
	phase string
	last  time.Time
	start time.Time
}

func (a *app) progress() *progressBar {
	return &progressBar{w: a.stderr, quiet: a.quiet || a.jsonOut}
}

// Update reports done of total units of phase.
func (p *progressBar) Update(phase string, done, total int) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if phase != p.phase {
		p.phase, p.start = phase, now
	}
	finished := total > 0 && done >= total
	if !finished && now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = now
	const width = 30
	bar := make([]byte, width)
	fill := 0
	if total > 0 {
		fill = min(width, done*width/total)
	}
	for i := range bar {
		if i < fill {
			bar[i] = '#'
		} else {
			bar[i] = '.'
		}
	}
	rate := ""
	if el := now.Sub(p.start).Seconds(); el > 0.5 {
		rate = fmt.Sprintf(" %.0f/s", float64(done)/el)
	}
	end := "\r"
	if finished {
		end = "\n"
	}
	count := fmt.Sprintf("%d/%d", done, total)
	if total <= 0 {
		// An unknown total (a streamed import) is not "of 0".
		count = fmt.Sprintf("%d", done)
		bar = []byte(strings.Repeat(" ", width))
	}
	fmt.Fprintf(p.w, "%-8s [%s] %s%s   %s", phase, bar, count, rate, end)
}

// Done ends the current line.
func (p *progressBar) Done() {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.phase != "" && !p.last.IsZero() {
		fmt.Fprintln(p.w)
	}
}
