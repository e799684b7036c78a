package redact

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// Addresses hides the passwords of addresses and nothing else: a log's
// e-mail addresses, numbers and ids are no one's secrets.
func TestAddressesHidesOnlyPasswords(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"http://admin:hunter2@host:11434", "http://admin:[SECRET_1]@host:11434"},
		{`parse "http://u:pw@bad host/": invalid character`, `parse "http://u:[SECRET_1]@bad host/": invalid character`},
		{"mail bob@example.com, call +49 30 1234567", "mail bob@example.com, call +49 30 1234567"},
		{"sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
		{"http://ollama@host:11434 at 10:30@home", "http://ollama@host:11434 at 10:30@home"},
		// A credential in an address's query is its password too; the
		// query's other parameters, and a search's words, stay.
		{`GET "http://mcp.lan/sse?api_key=f00ba7&v=2": EOF`, `GET "http://mcp.lan/sse?api_key=[SECRET_1]&v=2": EOF`},
		{"https://u.lan/m.json?v=2&password=hunter2 answered 404", "https://u.lan/m.json?v=2&password=[SECRET_1] answered 404"},
		{"https://search.lan/search?q=weather+in+paris&format=json", "https://search.lan/search?q=weather+in+paris&format=json"},
	} {
		if got := Addresses(tt.in); got != tt.want {
			t.Errorf("Addresses(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

type addr string

func (a addr) LogValue() slog.Value { return slog.StringValue(string(a)) }

// A log's lines keep no password of an address: not in the message, a
// string, an error (what an HTTP client or url.Parse returns), a value
// that prints itself, a group or the attributes given to With.
func TestLogHandlerHidesAddressPasswords(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(NewLogHandler(slog.NewTextHandler(&out, nil)))

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer srv.Close()
	target := strings.Replace(srv.URL, "://", "://hark:pw1-manifest@", 1) + "/m.json"
	resp, err := srv.Client().Get(target)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	answered := fmt.Errorf("update manifest: %s answered %s", target, resp.Status)
	typed := strings.Replace("http://hark:pw2-parse@bad_host/", "_", " ", 1) // a typo: a space in the host
	_, parsed := url.Parse(typed)
	srv.Close()
	_, refused := srv.Client().Get(strings.Replace(srv.URL, "://", "://hark:pw3-client@", 1))
	if refused == nil {
		t.Fatal("a closed server answered")
	}
	u, _ := url.Parse("https://hark:pw4-stringer@center.lan:8443/")

	log.With("center", "https://node:pw5-with@center.lan").WithGroup("mcp").Warn("reaching http://u:pw6-message@x.lan failed",
		"err", answered, "parse", parsed, "client", refused, "url", u, "addr", addr("mqtt://u:pw7-valuer@broker"),
		slog.Group("home", "base", "http://ha:pw8-group@ha.lan:8123"), "mail", "bob@example.com", "n", 3,
		"query", fmt.Errorf("get %s: EOF", "https://mcp.lan/sse?access_token=pw9-query&v=2"))
	got := out.String()
	for i := 1; i <= 9; i++ {
		if strings.Contains(got, fmt.Sprintf("pw%d-", i)) {
			t.Errorf("password %d logged:\n%s", i, got)
		}
	}
	for _, want := range []string{"hark:[SECRET_1]@127.0.0.1", "404 Not Found", "bad host", "center.lan:8443", "ha:[SECRET_1]@ha.lan", "mail=bob@example.com", "mcp.n=3", "center=https://node:[SECRET_1]@center.lan"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
}
