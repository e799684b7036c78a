//go:build alsa && cgo && linux

package alsa

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// stormShim is an ALSA failure double, preloaded under the real alsa-lib:
// every capture read overruns, and every recovery succeeds at once: the
// storm a failing I2S clock makes.
const stormShim = `
#include <errno.h>
long snd_pcm_readi(void *pcm, void *buf, unsigned long frames) { return -EPIPE; }
int snd_pcm_recover(void *pcm, int err, int silent) { return 0; }
`

// An overrun storm: the capture loop still comes back from each read (so
// the watchdog, which follows it, is fed), and the log gets a line per
// 10 s, not one per overrun.
func TestOverrunStormKeepsTheLoopMovingAndTheLogQuiet(t *testing.T) {
	if os.Getenv("HARK_STORM_CHILD") != "" {
		stormChild(t)
		return
	}
	so := shim(t, stormShim)
	seconds := 3
	if s := os.Getenv("HARK_STORM_SECONDS"); s != "" {
		seconds, _ = strconv.Atoi(s)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOverrunStormKeepsTheLoopMovingAndTheLogQuiet$", "-test.v")
	cmd.Env = append(os.Environ(), "HARK_STORM_CHILD="+strconv.Itoa(seconds), "LD_PRELOAD="+so)
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(err.Error(), "exec format error") {
		t.Skipf("cannot run this test binary again as a child under emulation (nor preload a host-built double into it): %v", err)
	}
	if err != nil {
		t.Fatalf("the storm child: %v\n%s", err, out)
	}
	var reads, lines, xruns int
	i := strings.Index(string(out), "storm:")
	if i < 0 {
		t.Fatalf("no result from the storm child:\n%s", out)
	}
	fmt.Sscanf(string(out[i:]), "storm: reads=%d lines=%d xruns=%d", &reads, &lines, &xruns)
	t.Logf("figure: a %d s overrun storm: %d overruns, %d log lines, %d reads came back (the log's limit: one line per %v)",
		seconds, xruns, lines, reads, xrunEvery)
	if xruns < 100 {
		t.Fatalf("only %d overruns: the double is not in the way (LD_PRELOAD)", xruns)
	}
	if reads < xruns/2 {
		t.Errorf("%d reads came back for %d overruns: the storm keeps the capture loop from moving", reads, xruns)
	}
	if max := 1 + seconds/int(xrunEvery/time.Second); lines > max {
		t.Errorf("%d log lines in %d s; want at most %d (one per %v)", lines, seconds, max, xrunEvery)
	}
}

func stormChild(t *testing.T) {
	seconds, _ := strconv.Atoi(os.Getenv("HARK_STORM_CHILD"))
	fileDevices(t, "")
	var lines atomic.Int64
	log := slog.New(countHandler{&lines})
	p, err := Open(Capture, Config{Device: "null", Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Duration(seconds)*time.Second)
	defer cancel()
	buf := make([]float32, 4096)
	reads := 0
	for ctx.Err() == nil {
		if _, err := p.Read(ctx, buf); err == nil {
			reads++
		}
	}
	fmt.Printf("storm: reads=%d lines=%d xruns=%d\n", reads, lines.Load(), p.Xruns())
}

// countHandler counts the log lines at warn level and above.
type countHandler struct{ n *atomic.Int64 }

func (h countHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h countHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		h.n.Add(1)
	}
	return nil
}
func (h countHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h countHandler) WithGroup(string) slog.Handler      { return h }
