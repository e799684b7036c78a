package box

import (
	"context"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/device/mdns"
)

// TestCenterAndPageShareOneName: the center announces _hark._tcp and its
// web page _https._tcp on the network. Both go out from one responder,
// which claims one host name for both: two responders would each probe
// the name, and after a conflict could settle on two names (the page at
// hark-2.local, the center's service pointing at hark-3.local). When the
// page cannot listen, the center is announced all the same.
func TestCenterAndPageShareOneName(t *testing.T) {
	taken, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, tc := range []struct {
		web  string
		want []string
	}{
		{"0.0.0.0:0", []string{"_hark._tcp", "_https._tcp"}},
		{taken.Addr().String(), []string{"_hark._tcp"}},
	} {
		t.Run(tc.web, func(t *testing.T) {
			srv, _ := modelServer(t)
			cfg, res := configure(t, "[center]\nlisten = \"0.0.0.0:0\"\n[web]\nlisten = \""+tc.web+"\"\nmdns = true\n[reply]\nplanner = false\n",
				map[string]string{"OLLAMA_HOST": srv.URL})
			c, err := OpenCenter(cfg, res, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.watch = func(ctx context.Context) { <-ctx.Done() }
			var mu sync.Mutex
			var announced [][]string
			got := func() [][]string {
				mu.Lock()
				defer mu.Unlock()
				return slices.Clone(announced)
			}
			c.announce = func(ctx context.Context, _ *slog.Logger, r *mdns.Responder) {
				var types []string
				for _, s := range r.Services {
					types = append(types, s.Type)
				}
				slices.Sort(types)
				mu.Lock()
				announced = append(announced, types)
				mu.Unlock()
				<-ctx.Done()
			}
			ctx, stop := context.WithCancel(t.Context())
			served := make(chan error, 1)
			go func() { served <- c.Serve(ctx, true, nil) }()
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if a := got(); len(a) >= 2 || slices.ContainsFunc(a, func(types []string) bool { return slices.Equal(types, tc.want) }) {
					break
				}
			}
			time.Sleep(200 * time.Millisecond) // a second responder, were there one, would have started
			stop()
			if err := <-served; err != nil {
				t.Fatal(err)
			}
			if a := got(); len(a) != 1 || !slices.Equal(a[0], tc.want) {
				t.Errorf("announced by responders %v, want one responder with %s", a, strings.Join(tc.want, " and "))
			}
		})
	}
}
