package probe

import (
	"errors"
	"net"
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
