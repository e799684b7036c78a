package update

import (
	"fmt"
	"io"
	"strings"
)

// Bar draws download and install progress: a bar redrawn in place on a
// terminal, a line per tenth otherwise (a log, the journal).
type Bar struct {
	w     io.Writer
	tty   bool
	stage string
	tenth int
	drawn bool
}

// NewBar draws on w; tty says whether w is a terminal.
func NewBar(w io.Writer, tty bool) *Bar { return &Bar{w: w, tty: tty, tenth: -1} }

// Show draws p.
func (b *Bar) Show(p Progress) {
	label := map[string]string{"download": "downloading", "install": "installing"}[p.Stage]
	detail := p.Message
	if p.Stage == "download" && p.Total > 0 {
		detail = MB(p.Done) + " of " + MB(p.Total)
	}
	if b.tty {
		const width = 30
		fill := p.Percent * width / 100
		fmt.Fprintf(b.w, "\r\033[K%-11s [%s%s] %3d%% %s", label, strings.Repeat("#", fill), strings.Repeat(" ", width-fill), p.Percent, detail)
		b.drawn = true
		return
	}
	if p.Stage != b.stage || p.Percent/10 != b.tenth {
		b.stage, b.tenth = p.Stage, p.Percent/10
		fmt.Fprintf(b.w, "%s %d%% %s\n", label, p.Percent, detail)
	}
}

// End ends the bar's line on a terminal.
func (b *Bar) End() {
	if b.drawn {
		fmt.Fprintln(b.w)
	}
}

// MB is n bytes in megabytes, for people.
func MB(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
