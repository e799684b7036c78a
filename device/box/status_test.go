package box

import (
	"context"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/llm"
)

// TestStatusShowsWhichModelAnswers: hark status lists the chain's servers
// as links: which one answers, which stand by, which are down.
func TestStatusShowsWhichModelAnswers(t *testing.T) {
	srv, _ := modelServer(t)
	dead := deadPort(t)
	var eps []*llm.Client
	for _, h := range []string{"http://" + dead, srv.URL} {
		u, _ := url.Parse(h)
		c, _ := llm.New(llm.Options{Host: u, Model: "llama3.2:3b"})
		eps = append(eps, c)
	}
	chain, _ := llm.NewChain(llm.ChainOptions{Endpoints: eps})
	chain.CheckNow(t.Context())
	b := &Box{brain: &brain{chain: chain}, answerer: engineAnswerer{}}
	s := health.New(health.Options{Storage: func(context.Context) error { return nil }, State: "idle", Ready: true, Links: b.links}).Status(t.Context())
	if len(s.Links) != 2 || s.Links[0].OK || !strings.Contains(s.Links[0].Detail, "down since") || !s.Links[1].OK {
		t.Errorf("links %+v: want the first down and the second up", s.Links)
	}
	if ok, why := s.Healthy(); !ok {
		t.Errorf("a model server down failed the self-test: %s", why)
	}
}

// deadPort is a local address nothing listens on.
func deadPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestCenterAddressWithoutPassword: a node whose center's address carries
// a password (a proxy's, in front of the center) names the center without
// it, in the status's links and in what hark ask --json shows.
func TestCenterAddressWithoutPassword(t *testing.T) {
	cfg, res := configure(t, "[center]\nurl = \"http://node:pw-of-the-center@"+deadPort(t)+"\"\nkey = \"n1:k1\"\ninsecure_http = true\n[reply]\nplanner = false\n",
		map[string]string{"OLLAMA_HOST": "http://127.0.0.1:9"})
	b, err := Open(cfg, res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := health.New(health.Options{Storage: func(context.Context) error { return nil }, State: "idle", Ready: true, Links: b.links}).Status(t.Context())
	var center string
	for _, l := range s.Links {
		if l.Name == "center" {
			center = l.Detail
		}
	}
	if center == "" || strings.Contains(center, "pw-of-the-center") || !strings.Contains(center, "node:") {
		t.Errorf("the center's link %q: want its address without the password", center)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	got, _, _ := b.answerer.answer(ctx, reply.Query{Text: "hello"}, func(string) {})
	if r, ok := got.(nodeResult); !ok || strings.Contains(r.Center, "pw-of-the-center") || !strings.Contains(r.Center, "node:") {
		t.Errorf("the answer %+v: want the center named without the password", got)
	}
}
