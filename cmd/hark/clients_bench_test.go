package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkStormMemory is the issue's storm as the daemon lives it: `hark
// run --sim` idle, then ten `hark ask` processes at once against a server
// that answers one chat at a time (240 ms each). It reports the daemon's
// resident set idle, its peak while the ten are answered, and the rise
// (the box's budget: 40 MB over idle), and the longest ask.
func BenchmarkStormMemory(b *testing.B) {
	srv := echoServer(b, 240*time.Millisecond, true)
	bin := harkBinary(b)
	var idleSum, peakSum float64
	var longest time.Duration
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		cmd, out, _ := startDaemonIn(b, dir, srv.URL)
		go io.Copy(io.Discard, out)
		time.Sleep(2 * time.Second)
		idle := rssOf(cmd.Process.Pid)
		var peak atomic.Int64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			for {
				if r := rssOf(cmd.Process.Pid); r > peak.Load() {
					peak.Store(r)
				}
				select {
				case <-stop:
					return
				case <-time.After(25 * time.Millisecond):
				}
			}
		}()
		b.StartTimer()
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := range 10 {
			wg.Go(func() {
				began := time.Now()
				ask := exec.Command(bin, "ask", "--data", filepath.Join(dir, "data"), fmt.Sprintf("tell me about number %d", i))
				ask.Env = []string{"OLLAMA_HOST=" + srv.URL, "HOME=" + dir, "PATH=" + os.Getenv("PATH")}
				if got, err := ask.CombinedOutput(); err != nil || !strings.Contains(string(got), fmt.Sprintf("number %d", i)) {
					b.Errorf("ask %d: %v: %s", i, err, got)
				}
				mu.Lock()
				longest = max(longest, time.Since(began))
				mu.Unlock()
			})
		}
		wg.Wait()
		b.StopTimer()
		close(stop)
		<-sampled
		idleSum += float64(idle)
		peakSum += float64(peak.Load())
		stopDaemon(b, cmd, strings.NewReader(""))
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(idleSum/n/(1<<20), "MiB-rss-idle")
	b.ReportMetric(peakSum/n/(1<<20), "MiB-rss-peak")
	b.ReportMetric((peakSum-idleSum)/n/(1<<20), "MiB-rss-rise")
	b.ReportMetric(longest.Seconds(), "s-longest-ask")
}

// rssOf is a process's resident set, in bytes, from /proc; 0 when gone.
func rssOf(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
