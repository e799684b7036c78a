package listener

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
)

// TestPipe: an HTTP server on a Pipe answers a client that dials it, in a
// synctest bubble; once closed, dialing fails with net.ErrClosed, and a
// dial given up by its caller returns its context's error.
func TestPipe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewPipe(nil)
		if p.Addr().String() != "in process" {
			t.Errorf("Addr = %v", p.Addr())
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello "+r.URL.Path) })}
		served := make(chan error, 1)
		go func() { served <- srv.Serve(p) }()
		tr := &http.Transport{DialContext: p.DialContext}
		resp, err := (&http.Client{Transport: tr}).Get("http://box/kitchen")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "hello /kitchen" {
			t.Errorf("answered %q", b)
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := NewPipe(nil).DialContext(ctx, "tcp", ""); !errors.Is(err, context.Canceled) {
			t.Errorf("a dial given up: %v, want context.Canceled", err)
		}
		tr.CloseIdleConnections()
		srv.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
		if _, err := p.DialContext(t.Context(), "tcp", ""); !errors.Is(err, net.ErrClosed) {
			t.Errorf("a dial after Close: %v, want net.ErrClosed", err)
		}
		if _, err := p.Accept(); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("Accept after Close: %v", err)
		}
	})
}
