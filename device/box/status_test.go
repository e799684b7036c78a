package box

import (
	"context"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/harkbox/hark/device/health"
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
