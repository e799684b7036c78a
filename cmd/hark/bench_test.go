package main

import (
	"bufio"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harkbox/hark/internal/sharedtest"
	"github.com/harkbox/hark/pipeline/whisper"
	"github.com/harkbox/hark/reply/ollamatest"
)

// startDaemon starts `hark run --sim` with a notify socket, as systemd would,
// and returns once it has sent READY=1, with how long that took.
func startDaemon(b *testing.B, srvURL string, args ...string) (*exec.Cmd, io.Reader, time.Duration) {
	b.Helper()
	bin := harkBinary(b)
	dir := b.TempDir()
	sock := filepath.Join(dir, "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	cmd := exec.Command(bin, append([]string{"run", "--sim", "--verbose", "--data", filepath.Join(dir, "data")}, args...)...)
	cmd.Env = []string{"OLLAMA_HOST=" + srvURL, "HOME=" + dir, "PATH=" + os.Getenv("PATH"), "NOTIFY_SOCKET=" + sock}
	stdin, _ := cmd.StdinPipe()
	b.Cleanup(func() { stdin.Close() })
	out, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 256)
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		n, err := conn.Read(buf)
		if err != nil {
			cmd.Process.Kill()
			b.Fatalf("no READY=1: %v", err)
		}
		if strings.Contains(string(buf[:n]), "READY=1") {
			return cmd, out, time.Since(start)
		}
	}
}

func stopDaemon(b *testing.B, cmd *exec.Cmd, out io.Reader) {
	cmd.Process.Signal(syscall.SIGTERM)
	go io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		b.Errorf("hark exited with %v", err)
	}
}

// BenchmarkStartToReady measures process start to READY=1 on the notify
// socket: the store opened, the model client and the pipeline armed.
func BenchmarkStartToReady(b *testing.B) {
	srv := ollamatest.New(testModel)
	defer srv.Close()
	var total time.Duration
	for b.Loop() {
		cmd, out, ready := startDaemon(b, srv.URL)
		total += ready
		b.StopTimer()
		stopDaemon(b, cmd, out)
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-ready")
}

var memLine = regexp.MustCompile(`msg=memory heap_alloc_bytes=(\d+) heap_sys_bytes=(\d+) go_sys_bytes=(\d+) rss_bytes=(\d+)`)

// BenchmarkIdleMemory measures the Go heap and the resident set of `hark run
// --sim` sitting idle for two seconds after it is ready: typed input only,
// and (in a build with whisper.cpp) with the whisper test model loaded.
func BenchmarkIdleMemory(b *testing.B) {
	srv := ollamatest.New(testModel)
	defer srv.Close()
	b.Run("typed", func(b *testing.B) { idleMemory(b, srv.URL) })
	b.Run("whisper-tiny", func(b *testing.B) {
		if !whisper.Built() {
			b.Skip("built without whisper.cpp (-tags whisper)")
		}
		model := sharedtest.Path(b, "models/for-tests-ggml-tiny.en.bin")
		cfg := filepath.Join(b.TempDir(), "hark.toml")
		os.WriteFile(cfg, []byte("[whisper]\nmodel = \""+model+"\"\n"), 0o644)
		idleMemory(b, srv.URL, "--config", cfg)
	})
}

func idleMemory(b *testing.B, srvURL string, args ...string) {
	var heap, rss float64
	for b.Loop() {
		b.StopTimer()
		cmd, out, _ := startDaemon(b, srvURL, args...)
		time.Sleep(2 * time.Second)
		cmd.Process.Signal(syscall.SIGUSR1)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := memLine.FindStringSubmatch(sc.Text()); m != nil {
				h, _ := strconv.ParseFloat(m[1], 64)
				r, _ := strconv.ParseFloat(m[4], 64)
				heap += h
				rss += r
				break
			}
		}
		stopDaemon(b, cmd, out)
		b.StartTimer()
	}
	b.ReportMetric(heap/float64(b.N)/(1<<20), "MiB-heap")
	b.ReportMetric(rss/float64(b.N)/(1<<20), "MiB-rss")
}
