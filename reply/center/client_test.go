package center

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestClientBoundsWhatItReads: what answers as the center on a plain
// HTTP LAN (insecure_http) may be any machine that took its address, and
// may answer without end: a JSON answer, or a streamed line, that never
// ends. A node on a board with 512 MB must not read it all: it gives up
// past a bound far above any real answer, and says so.
func TestClientBoundsWhatItReads(t *testing.T) {
	const endless = 64 << 20
	for _, tt := range []struct {
		name, ctype, head string
		stream            bool
	}{
		{"a JSON answer", "application/json", `{"stop_reason":"complete","assistant_message":"`, false},
		{"a streamed line", NDJSON, `{"sentence":"`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var wrote atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.ctype)
				w.Write([]byte(tt.head))
				chunk := bytes.Repeat([]byte("a"), 64<<10)
				for wrote.Load() < endless {
					if _, err := w.Write(chunk); err != nil {
						return
					}
					wrote.Add(int64(len(chunk)))
				}
			}))
			defer srv.Close()
			c, err := NewClient(ClientOptions{URL: srv.URL, Credential: "kitchen:key", Insecure: true})
			if err != nil {
				t.Fatal(err)
			}
			var said func(string)
			if tt.stream {
				said = func(string) {}
			}
			_, err = c.Command(t.Context(), CommandRequest{VoiceCommand: "hello", ConversationID: "kitchen-1"}, said)
			if err == nil || !strings.Contains(err.Error(), "bytes") {
				t.Errorf("an endless answer: %v; want an error naming the bound", err)
			}
			if n := wrote.Load(); n >= endless {
				t.Errorf("the node read %d MiB of an endless answer; want it to stop at the bound", n>>20)
			}
		})
	}
}
