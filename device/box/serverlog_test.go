package box

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/device/sim"
	"github.com/harkbox/hark/device/web"
	"github.com/harkbox/hark/storage"
)

// records keeps the log's records.
type records struct {
	mu   sync.Mutex
	seen []slog.Record
}

func (h *records) Enabled(context.Context, slog.Level) bool { return true }
func (h *records) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen = append(h.seen, r.Clone())
	return nil
}
func (h *records) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *records) WithGroup(string) slog.Handler      { return h }

func (h *records) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.seen)
}

// TestServerComplaintsDoNotFloodTheLog: a stranger on the LAN that opens
// 200 connections to the page and sends each a broken TLS handshake
// wrote 200 lines to the log (the journal on the SD card, and the logs
// page, whose tail the flood pushed out): the server's own complaints
// are now written once every few seconds at most.
func TestServerComplaintsDoNotFloodTheLog(t *testing.T) {
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := free.Addr().String()
	free.Close()
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	logged := &records{}
	pages := make(chan *web.Server, 1)
	ps := pageServing{cfg: config.Web{Listen: addr, TLS: "on"}, dataDir: t.TempDir(), log: slog.New(logged), ready: func(s *web.Server) { pages <- s }}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		ps.serve(ctx, web.Options{API: control.API{Box: health.New(health.Options{Version: "test", State: "running", Log: slog.New(slog.DiscardHandler)})}, Store: db.Settings()})
	}()
	defer func() {
		cancel()
		<-done
	}()
	<-pages
	time.Sleep(100 * time.Millisecond)
	before := logged.count()
	for range 200 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte{0x16, 3, 1, 0, 5, 1, 2, 3, 4, 5}) // a handshake record that is none
		c.Close()
	}
	time.Sleep(500 * time.Millisecond)
	if got := logged.count() - before; got > 2 || got == 0 {
		t.Errorf("200 broken handshakes wrote %d lines to the log; want one or two", got)
	}
}

// TestDaemonLogHidesAddressPasswords: an error that quotes an address
// with its password (url.Parse's, for one typed with a space in its host;
// one that names the server that answered 404) reaches neither the log
// file, nor the lines kept for the API and the page, nor the journal of a
// board.
func TestDaemonLogHidesAddressPasswords(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	manifest := strings.Replace(srv.URL, "://", "://hark:pw-of-the-updates@", 1) + "/manifest.json"
	resp, err := srv.Client().Get(manifest)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	answered := fmt.Errorf("%s answered %s", manifest, resp.Status)
	_, parsed := url.Parse(strings.Replace(manifest, "127.0.0.1", "127.0.0 .1", 1))
	if parsed == nil || !strings.Contains(parsed.Error(), "pw-of-the-updates") {
		t.Fatalf("url.Parse: %v, want an error that quotes the address", parsed)
	}
	for _, board := range []string{"sim", "usb"} {
		cfg, _ := configure(t, "", map[string]string{"OLLAMA_HOST": "http://127.0.0.1:9"})
		cfg.Board = board
		var stderr strings.Builder
		tail := control.NewLogTail(10)
		log, closeLog, err := daemonLogger(cfg, RunOptions{Stderr: &stderr}, sim.NewScreen(io.Discard, false), tail, new(slog.LevelVar), nil)
		if err != nil {
			t.Fatal(err)
		}
		log.Warn("update check failed", "err", answered, "parse", parsed, "manifest", manifest)
		closeLog()
		file, _ := os.ReadFile(filepath.Join(cfg.DataDir, "hark.log"))
		for where, text := range map[string]string{"file": string(file), "tail": strings.Join(tail.Tail(10), "\n"), "stderr": stderr.String()} {
			if strings.Contains(text, "pw-of-the-updates") {
				t.Errorf("%s: the %s shows the password:\n%s", board, where, text)
			}
		}
		if got := strings.Join(tail.Tail(10), "\n"); !strings.Contains(got, "hark:[SECRET_1]@127.0.0.1") || !strings.Contains(got, "404 Not Found") {
			t.Errorf("%s: the log lost what went wrong:\n%s", board, got)
		}
	}
}
