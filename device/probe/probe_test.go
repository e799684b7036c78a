package probe

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/reply/ollamatest"
)

func TestModels(t *testing.T) {
	srv := ollamatest.New(ollamatest.Model{Name: "llama3.2:3b", Family: "llama", ParameterSize: "3.2B"}, ollamatest.Model{Name: "qwen3:1.7b", Family: "qwen3", ParameterSize: "1.7B"})
	defer srv.Close()
	srv.Enqueue(ollamatest.Reply{Content: "Hello, everyone at home!"})
	host := strings.TrimPrefix(srv.URL, "http://")
	ms, err := Models{}.Models(t.Context(), host)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms.Models {
		names = append(names, m.Name+" "+m.ParameterSize)
	}
	if got, want := strings.Join(names, ", "), "llama3.2:3b 3.2B, qwen3:1.7b 1.7B"; got != want || ms.Host != srv.URL || ms.Version != ollamatest.Version {
		t.Errorf("got %s at %s (%s), want %s at %s", got, ms.Host, ms.Version, want, srv.URL)
	}
	tr, err := Models{}.Try(t.Context(), host, "qwen3:1.7b")
	if err != nil || tr.Answer != "Hello, everyone at home!" || tr.Question != Question {
		t.Errorf("Try: %+v %v", tr, err)
	}
	if chats := srv.Chats(); len(chats) != 1 || chats[0].Model != "qwen3:1.7b" {
		t.Errorf("the test question went to %+v", chats)
	}
	if _, err := (Models{}).Try(t.Context(), host, "mistral:7b"); !errors.Is(err, control.ErrNotFound) || !strings.Contains(err.Error(), "ollama pull mistral:7b") {
		t.Errorf("a model the server lacks: %v", err)
	}
}

func TestModelsRefusesAndNames(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	for _, tc := range []struct {
		host string
		is   error
		want string
	}{
		{"not a host::", control.ErrInvalid, "is not a host name or an IP address"},
		{"", control.ErrInvalid, "type the model server's address"},
		{"box.lan:99999", control.ErrInvalid, "invalid port"},
		{dead, control.ErrUnavailable, "no model server answers at http://" + dead},
	} {
		_, err := Models{}.Models(t.Context(), tc.host)
		if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Models(%q) = %v, want %v saying %q", tc.host, err, tc.is, tc.want)
		}
	}
}

// A thinking model's trial is asked not to reason, so its 60 tokens go on
// the answer; reasoning written inline is no part of the answer, and an
// answer that is reasoning only is an error saying so.
func TestTryThinkingModel(t *testing.T) {
	srv := ollamatest.New(ollamatest.Model{Name: "qwen3:1.7b", Capabilities: []string{"completion", "tools", "thinking"}},
		ollamatest.Model{Name: "r1:1.5b", Capabilities: []string{"completion"}})
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")

	srv.Enqueue(ollamatest.Reply{Content: "Hello there, everyone!"})
	tr, err := Models{}.Try(t.Context(), host, "qwen3:1.7b")
	if err != nil || tr.Answer != "Hello there, everyone!" {
		t.Errorf("Try: %+v %v", tr, err)
	}
	chats := srv.Chats()
	if len(chats) != 1 || string(chats[0].Think) != "false" {
		t.Errorf("a thinking model's trial was asked with think %q, want false", chats[0].Think)
	}

	srv.Enqueue(ollamatest.Reply{Content: "<think>They want a greeting.</think>\nHi, household!"})
	tr, err = Models{}.Try(t.Context(), host, "r1:1.5b")
	if err != nil || tr.Answer != "Hi, household!" {
		t.Errorf("inline reasoning: %+v %v", tr, err)
	}
	if chats := srv.Chats(); string(chats[len(chats)-1].Think) != "" {
		t.Errorf("a model that cannot think was asked with think %q", chats[len(chats)-1].Think)
	}

	srv.Enqueue(ollamatest.Reply{Content: "<think>The user set me up, so I should greet them warmly and"})
	tr, err = Models{}.Try(t.Context(), host, "r1:1.5b")
	if !errors.Is(err, control.ErrUnavailable) || !strings.Contains(err.Error(), "only reasoned") || tr.Answer != "" {
		t.Errorf("reasoning only: %+v %v", tr, err)
	}
}

// TestNotOllamaIsNamed: the welcome's address is some other web server's
// (a router's page, nginx): listing and trying say that the server there
// is not answering as Ollama does, without its page in the words.
func TestNotOllamaIsNamed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
	}{
		{"nginx 404", http.StatusNotFound, "<html><head><title>404 Not Found</title></head><body><center><h1>404 Not Found</h1></center><hr><center>nginx</center></body></html>"},
		{"a router's page", http.StatusOK, "<!DOCTYPE html><html><head><title>Router login</title></head><body>Log in</body></html>"},
		{"another API", http.StatusOK, `{"status":"ok","items":3}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			host := strings.TrimPrefix(srv.URL, "http://")
			_, err := Models{}.Models(t.Context(), host)
			_, terr := Models{}.Try(t.Context(), host, "qwen3:1.7b")
			for what, err := range map[string]error{"listing": err, "trying": terr} {
				if !errors.Is(err, control.ErrUnavailable) || !strings.Contains(err.Error(), "not answering as Ollama does") ||
					strings.Contains(err.Error(), "<") || strings.Contains(err.Error(), "start Ollama there") {
					t.Errorf("%s: %v; want it to say the server at %s is not Ollama's, without its page", what, err, srv.URL)
				}
			}
		})
	}
}

// TestServerFailureInItsWords: an Ollama server that fails the listing
// is named as a model server that answered, with its own words.
func TestServerFailureInItsWords(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":"the models directory is not readable"}`)
	}))
	defer srv.Close()
	_, err := Models{}.Models(t.Context(), strings.TrimPrefix(srv.URL, "http://"))
	if !errors.Is(err, control.ErrUnavailable) || !strings.Contains(err.Error(), "answered 500") ||
		!strings.Contains(err.Error(), "the models directory is not readable") || strings.Contains(err.Error(), "no model server answers") {
		t.Errorf("a failing server: %v", err)
	}
}
