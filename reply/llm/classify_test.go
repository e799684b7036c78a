package llm

import (
	"errors"
	"net/url"
	"testing"
)

// TestServerClosedIdleIsUnreachable: a request sent on a kept-alive
// connection the server closed at that moment (it stopped, or restarted)
// fails with net/http's "server closed idle connection", which is the
// server going away like a reset: a chain tries the next server, and with
// none left says every server failed.
func TestServerClosedIdleIsUnreachable(t *testing.T) {
	// net/http's error for it is unexported: this is its text, as the
	// transport wraps it.
	err := &url.Error{Op: "Post", URL: "http://127.0.0.1:11434/api/chat", Err: errors.New("http: server closed idle connection")}
	if got := (&Client{}).classify("chat", err); !errors.Is(got, ErrUnreachable) {
		t.Errorf("classify = %v, want ErrUnreachable", got)
	}
	other := &url.Error{Op: "Post", URL: "http://127.0.0.1:11434/api/chat", Err: errors.New("http: request body too large")}
	if got := (&Client{}).classify("chat", other); errors.Is(got, ErrUnreachable) {
		t.Errorf("classify(%v) = %v, want it not taken for an unreachable server", other, got)
	}
}
