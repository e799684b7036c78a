package llm

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

const nginx404 = `<html>
<head><title>404 Not Found</title></head>
<body>
<center><h1>404 Not Found</h1></center>
<hr><center>nginx/1.24.0</center>
</body>
</html>
`

const nginxWelcome = `<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
<style>html { color-scheme: light dark; }</style>
</head>
<body><h1>Welcome to nginx!</h1><p>If you see this page, the nginx web server is successfully installed.</p></body>
</html>
`

// notOllamaServers are servers at the model server's address that answer
// something other than Ollama, each with what its error must name.
var notOllamaServers = []struct {
	name    string
	handler http.HandlerFunc
	want    string // in the error, after "is not answering as Ollama does"
}{
	{"nginx 404 page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, nginx404)
	}, `404 Not Found with an HTML page ("404 Not Found")`},
	{"nginx welcome page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, nginxWelcome)
	}, `200 OK with an HTML page ("Welcome to nginx!")`},
	{"proxy's 502 page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body></body></html>\r\n")
	}, `502 Bad Gateway with an HTML page ("502 Bad Gateway")`},
	{"another app's 404", http.NotFound, `404 Not Found with text ("404 page not found")`},
	{"another app's JSON 404", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"detail":"Not Found"}`)
	}, `404 Not Found with JSON that is not Ollama's ("{\"detail\":\"Not Found\"}")`},
	{"200 with text", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "OK\n")
	}, `200 OK with text ("OK")`},
	{"200 with other JSON", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"status":"ok","uptime":12}`+"\n")
	}, `200 OK with JSON that is not Ollama's ("{\"status\":\"ok\",\"uptime\":12}")`},
	{"200 cut mid-JSON", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"model":"llama3.2:1b","created_at":"2025-07-0`)
	}, `200 OK with JSON that is not Ollama's ("{\"model\":\"llama3.2:1b\",\"created_at\":\"2025-07-0")`},
	{"200 empty", func(w http.ResponseWriter, r *http.Request) {}, `200 OK with an empty body`},
	{"control characters", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, "denied\x1b[31m\x00 by\tpolicy "+strings.Repeat("and more ", 40))
	}, `403 Forbidden with text ("denied[31m by policy and more and more and more and more and more and more and…")`},
}

// TestChatNotOllama: a server at the model server's address that answers
// as something else (a web server's page, another app's 404, a body that
// is not Ollama's JSON) is named as such, with a short excerpt that has
// no markup and no control characters, and counts as no model server to
// reach (ErrUnreachable), which the box says as "I can't reach my
// language model".
func TestChatNotOllama(t *testing.T) {
	for _, tt := range notOllamaServers {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			u, _ := url.Parse(srv.URL)
			c, err := New(Options{Host: u, Model: "llama3.2:1b"})
			if err != nil {
				t.Fatal(err)
			}
			var said strings.Builder
			_, err = c.Chat(t.Context(), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}, func(ch Chunk) error {
				said.WriteString(ch.Content)
				return nil
			})
			checkNotOllama(t, "Chat", err, "llm: chat: the server at "+srv.URL+" is not answering as Ollama does: it answered "+tt.want)
			if said.Len() > 0 {
				t.Errorf("streamed %q from a server that is not Ollama", said.String())
			}
		})
	}
}

// TestShowVersionNotOllama: the official client's calls name such a
// server the same way, one whose success's JSON is not Ollama's (or is
// empty) too: it tells nothing of what Ollama always tells of a model or
// of its loaded models, and would pass for a model or a list of nothing.
func TestShowVersionNotOllama(t *testing.T) {
	for _, tt := range notOllamaServers {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			u, _ := url.Parse(srv.URL)
			c, _ := New(Options{Host: u, Model: "llama3.2:1b"})
			_, err := c.Version(t.Context())
			checkNotOllama(t, "Version", err, "llm: version: the server at "+srv.URL+" is not answering as Ollama does")
			_, err = c.Show(t.Context(), "")
			checkNotOllama(t, "Show", err, "llm: show llama3.2:1b: the server at "+srv.URL+" is not answering as Ollama does")
			_, err = c.Running(t.Context())
			checkNotOllama(t, "Running", err, "llm: list loaded models: the server at "+srv.URL+" is not answering as Ollama does")
		})
	}
}

func checkNotOllama(t *testing.T, op string, err error, want string) {
	t.Helper()
	if !errors.Is(err, ErrNotOllama) || !errors.Is(err, ErrUnreachable) {
		t.Errorf("%s: err = %v, want ErrNotOllama and ErrUnreachable", op, err)
	}
	if err == nil {
		return
	}
	if msg := err.Error(); !strings.HasPrefix(msg, want) {
		t.Errorf("%s: err = %q\nwant it to start %q", op, msg, want)
	}
	if msg := err.Error(); strings.ContainsAny(msg, "<>\n\r\x00\x1b") || len(msg) > 300 {
		t.Errorf("%s: err = %q: want one short line without markup or control characters", op, msg)
	}
}

// TestChatCutMidLine: an Ollama answer whose connection breaks in the
// middle of a line is a cut answer, what came before it kept; the broken
// line is not the error's text.
func TestChatCutMidLine(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(w, `{"model":"llama3.2:1b","created_at":"2025-07-04T10:00:00Z","message":{"role":"assistant","content":"Once upon"},"done":false}`+"\n")
		io.WriteString(w, `{"model":"llama3.2:1b","created_at":"2025-07-04T10:00:00Z","message":{"role":"assistant","content":" a ti`)
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	c, _ := New(Options{Host: u, Model: "llama3.2:1b"})
	resp, err := c.Chat(t.Context(), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}, func(Chunk) error { return nil })
	if !errors.Is(err, ErrStreamCut) || strings.Contains(err.Error(), "{") {
		t.Errorf("err = %v, want ErrStreamCut without the broken line", err)
	}
	if resp.Message.Content != "Once upon" {
		t.Errorf("content = %q, want what came before the cut", resp.Message.Content)
	}
}
