package control

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

type fakeBox struct {
	mu       sync.Mutex
	idle     chan struct{}
	updating []Update
	waiting  chan struct{}
}

func (b *fakeBox) Status(context.Context) Status {
	return Status{State: "speaking", Ready: true, Version: "1.2.3", Checks: []Check{{Name: "storage", OK: true}, {Name: "speech-to-text", OK: false, Detail: "no model"}}}
}

func (b *fakeBox) WaitIdle(ctx context.Context) error {
	b.waiting <- struct{}{}
	select {
	case <-b.idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *fakeBox) SetUpdating(active bool, pct int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.updating = append(b.updating, Update{active, pct})
}

func serve(t *testing.T, b Box) string {
	return serveAPI(t, API{Box: b})
}

func serveAPI(t testing.TB, a API) string {
	return serveAt(t, filepath.Join(t.TempDir(), "run", "control.sock"), a)
}

func serveAt(t testing.TB, path string, a API) string {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, path, Handler(a), slog.New(slog.DiscardHandler)) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	c := Dial(path)
	for range 200 { // until it listens
		if _, err := c.Status(t.Context()); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return path
}

func TestStatusAndUpdating(t *testing.T) {
	b := &fakeBox{idle: make(chan struct{}), waiting: make(chan struct{}, 1)}
	c := Dial(serve(t, b))
	s, err := c.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if s.State != "speaking" || !s.Ready || s.Version != "1.2.3" || len(s.Checks) != 2 {
		t.Fatalf("status %+v", s)
	}
	if ok, why := s.Healthy(); ok || why != "speech-to-text: no model" {
		t.Errorf("healthy %v %q; want the failed check named", ok, why)
	}
	if err := c.SetUpdating(t.Context(), true, 42); err != nil {
		t.Fatal(err)
	}
	if err := c.SetUpdating(t.Context(), false, 100); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.updating) != 2 || b.updating[0] != (Update{true, 42}) || b.updating[1].Active {
		t.Errorf("updating %v", b.updating)
	}
}

func TestWaitIdleWaitsForTheBox(t *testing.T) {
	b := &fakeBox{idle: make(chan struct{}), waiting: make(chan struct{}, 1)}
	c := Dial(serve(t, b))
	done := make(chan error, 1)
	go func() { done <- c.WaitIdle(t.Context()) }()
	<-b.waiting
	select {
	case err := <-done:
		t.Fatalf("WaitIdle returned %v while the box was busy", err)
	default:
	}
	close(b.idle)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestNoDaemon(t *testing.T) {
	c := Dial(filepath.Join(t.TempDir(), "control.sock"))
	if _, err := c.Status(t.Context()); !errors.Is(err, ErrNotRunning) {
		t.Errorf("status without a daemon: %v, want ErrNotRunning", err)
	}
	if err := c.WaitIdle(t.Context()); err != nil {
		t.Errorf("WaitIdle without a daemon: %v; nothing is talking, so it is idle", err)
	}
}

func TestCanAnswer(t *testing.T) {
	ok := []Check{{Name: "storage", OK: true}, {Name: "microphone", OK: true}, {Name: "speech-to-text", OK: true}}
	for _, tc := range []struct {
		name string
		s    Status
		can  string
		want string
	}{
		{"stopped", Status{State: "stopped"}, "no", "not running"},
		{"starting", Status{State: "idle"}, "no", "still starting"},
		{"all well", Status{Ready: true, Checks: ok, Links: []Check{{Name: "model server", OK: true, Detail: "http://gpu.lan:11434, Ollama 0.17.4"}}}, "yes", "Yes"},
		{"model down", Status{Ready: true, Checks: ok, Links: []Check{{Name: "model server", Detail: "http://gpu.lan:11434, unreachable: dial tcp: connection refused"}}},
			"partly", "cannot reach its model server (http://gpu.lan:11434)"},
		{"one of a chain up", Status{Ready: true, Checks: ok, Links: []Check{{Name: "model http://a:1", Detail: "x, down"}, {Name: "model http://b:1", OK: true}}}, "yes", "Yes"},
		{"center down", Status{Ready: true, Checks: ok, Links: []Check{{Name: "center", Detail: "https://c.lan:8765, unreachable since 10:00"}}}, "partly", "command center (https://c.lan:8765)"},
		{"deaf", Status{Ready: true, Checks: []Check{{Name: "microphone", Detail: "no device"}}}, "no", "cannot hear you"},
	} {
		a := tc.s.CanAnswer()
		if a.Can != tc.can || !strings.Contains(a.Sentence, tc.want) {
			t.Errorf("%s: got %s %q, want %s saying %q", tc.name, a.Can, a.Sentence, tc.can, tc.want)
		}
		if a.Can != "yes" && a.Todo == "" {
			t.Errorf("%s: no word on what to do", tc.name)
		}
	}
}

// TestSocketBoundsHeadersAndIdleConnections: a program of the daemon's
// group is a client like any other; the socket's server bounds what one
// connection holds: a request's headers (a few KiB, not Go's default MiB)
// and a connection left idle after its request.
func TestSocketBoundsHeadersAndIdleConnections(t *testing.T) {
	was := socketIdle
	socketIdle = 300 * time.Millisecond
	defer func() { socketIdle = was }()
	path := serve(t, &fakeBox{})
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /api/v1/status HTTP/1.1\r\nHost: x\r\nX-Pad: %s\r\n\r\n", strings.Repeat("p", 64<<10))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a request with 64 KiB of headers: %d; want 431", resp.StatusCode)
	}

	idle, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	br := bufio.NewReader(idle)
	fmt.Fprint(idle, "GET /api/v1/status HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, err = http.ReadResponse(br, nil); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Errorf("a connection idle after its request: %v; want it closed by the server (EOF)", err)
	}
}
