package box

import (
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/device/web"
	"github.com/harkbox/hark/storage"
)

// TestCaptivePageIsCapped: the access point's captive page, where every
// phone is a stranger, bounds the connections one address holds open as
// the page does: the one past its share is closed at once, and the
// captive page still answers.
func TestCaptivePageIsCapped(t *testing.T) {
	ctx := t.Context()
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	status := health.New(health.Options{Version: "test", State: "running", Log: slog.New(slog.DiscardHandler)})
	srv, err := web.New(ctx, web.Options{API: control.API{Box: status}, Store: db.Settings()})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveCaptiveOn(ctx, []net.Listener{l}, srv, "192.168.4.1", slog.New(slog.DiscardHandler))
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for range perAddress {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	// The server has accepted the share once the one past it is closed:
	// accepting is in order.
	over, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	over.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := over.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the connection past the address's share: %v, want it closed", err)
	}
	held[0].Close()
	held = held[1:]
	// The server notices the close as it reads; until then the address
	// is still at its share.
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := statusWithHeaders(l.Addr().String(), 100)
		if err == nil && got < 500 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the captive page after one connection closed: %d, %v", got, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
