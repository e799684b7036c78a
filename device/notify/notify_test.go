package notify

import (
	"context"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/voice"
)

// notifySocket is a real unix datagram socket standing in for systemd's
// notify socket, named in NOTIFY_SOCKET for the test.
func notifySocket(t *testing.T) *net.UnixConn {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	t.Setenv("NOTIFY_SOCKET", sock)
	return conn
}

// A real unix datagram socket stands in for systemd's notify socket.
func TestReadyThenStatus(t *testing.T) {
	conn := notifySocket(t)

	p, err := pipeline.New(pipeline.Options{Microphone: nopMic{}, Transcriber: nopTranscriber{}, Replier: pipeline.ReplierFunc(func(context.Context, pipeline.Query, func(string)) (pipeline.Outcome, error) {
		return pipeline.Outcome{}, nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	feed := p.Subscribe(8)
	ctx, cancel := context.WithCancel(t.Context())
	// Both loops end before the test does: a Run left going would tell the
	// next test's socket that it stops.
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { Run(ctx, feed, nil, slog.New(slog.DiscardHandler)) })
	events := make(chan pipeline.Event)
	wg.Go(func() { p.Run(ctx, events) })

	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 512)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(buf[:n]); got != "READY=1\nSTATUS=idle" {
		t.Errorf("first message %q, want READY=1 and the idle status", got)
	}
	events <- pipeline.Press
	n, err = conn.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(buf[:n]); !strings.HasPrefix(got, "STATUS=") || strings.Contains(got, "READY") {
		t.Errorf("second message %q, want a status only", got)
	}
	cancel()
	for {
		n, err = conn.Read(buf)
		if err != nil {
			t.Fatal("no STOPPING=1 after shutdown")
		}
		if string(buf[:n]) == "STOPPING=1" {
			break
		}
	}
}

// TestStatusCarriesTheDetail: the status line carries the box's detail,
// and is sent again when the detail changes between states.
func TestStatusCarriesTheDetail(t *testing.T) {
	conn := notifySocket(t)
	defer func(r time.Duration) { refresh = r }(refresh)
	refresh = 20 * time.Millisecond
	p, err := pipeline.New(pipeline.Options{Microphone: nopMic{}, Transcriber: nopTranscriber{}, Replier: pipeline.ReplierFunc(func(context.Context, pipeline.Query, func(string)) (pipeline.Outcome, error) {
		return pipeline.Outcome{}, nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	feed := p.Subscribe(8)
	var detail atomic.Value
	detail.Store("model llama3.2:3b loading for 2 s")
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { Run(ctx, feed, func() string { return detail.Load().(string) }, slog.New(slog.DiscardHandler)) })
	wg.Go(func() { p.Run(ctx, make(chan pipeline.Event)) })
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 512)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(buf[:n]); got != "READY=1\nSTATUS=idle; model llama3.2:3b loading for 2 s" {
		t.Errorf("first message %q", got)
	}
	detail.Store("model llama3.2:3b ready (load 13.2 s, system prompt 6.8 s)")
	n, err = conn.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(buf[:n]); got != "STATUS=idle; model llama3.2:3b ready (load 13.2 s, system prompt 6.8 s)" {
		t.Errorf("after the detail changed: %q", got)
	}
}

type nopMic struct{}

func (nopMic) Record(ctx context.Context, l voice.Listen) (voice.Utterance, error) {
	<-ctx.Done()
	return voice.Utterance{}, ctx.Err()
}

type nopTranscriber struct{}

func (nopTranscriber) Transcribe(context.Context, voice.Utterance) (voice.Transcript, error) {
	return voice.Transcript{}, voice.ErrNoSpeech
}

// Pings go out while the audio loop is alive, and stop when it stalls.
func TestWatchdogPingsOnlyWhileAlive(t *testing.T) {
	conn := notifySocket(t)
	t.Setenv("WATCHDOG_USEC", "30000") // 30 ms: a ping every 10 ms
	var alive atomic.Bool
	alive.Store(true)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { Watchdog(ctx, alive.Load, slog.New(slog.DiscardHandler)); close(done) }()
	buf := make([]byte, 64)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for range 3 {
		n, err := conn.Read(buf)
		if err != nil || string(buf[:n]) != "WATCHDOG=1" {
			t.Fatalf("while alive: %q, %v; want WATCHDOG=1", buf[:n], err)
		}
	}
	alive.Store(false)
	time.Sleep(15 * time.Millisecond) // a ping already on its way may arrive
	for {
		conn.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
		if _, err := conn.Read(buf); err != nil {
			break
		}
	}
	conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := conn.Read(buf); err == nil {
		t.Errorf("stalled loop: got %q; want no pings", buf[:n])
	}
	cancel()
	<-done
}
