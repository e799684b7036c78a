package box

import (
	"bufio"
	"context"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// limitMemory sets the Go runtime's soft memory limit to mib MiB, unless
// GOMEMLIMIT in the environment set one or mib is 0; it returns the limit
// in force.
func limitMemory(mib int) int64 {
	if os.Getenv("GOMEMLIMIT") == "" && mib > 0 {
		debug.SetMemoryLimit(int64(mib) << 20)
	}
	return debug.SetMemoryLimit(-1)
}

// reportMemory logs the Go heap and the process's resident memory each time
// the process gets SIGUSR1 (kill -USR1 $(pidof hark)), until ctx is done.
func reportMemory(ctx context.Context, log *slog.Logger) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	defer signal.Stop(sig)
	for {
		select {
		case <-ctx.Done():
			return
		case <-sig:
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			log.Info("memory", "heap_alloc_bytes", m.HeapAlloc, "heap_sys_bytes", m.HeapSys,
				"go_sys_bytes", m.Sys, "rss_bytes", residentBytes(), "goroutines", runtime.NumGoroutine())
		}
	}
}

// residentBytes reads VmRSS from /proc/self/status; 0 where there is none.
func residentBytes() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
