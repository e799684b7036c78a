package egress

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

// TestInternalAddressesAreRefused: a client through the policy reaches no
// address of the box or its network, by any spelling, nor by a redirect;
// a host or network the configuration names is reached.
func TestInternalAddressesAreRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "the box's own page") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	bounce := httptest.NewServer(http.RedirectHandler("http://127.0.0.1:"+port+"/", http.StatusFound))
	defer bounce.Close()
	c := Policy{}.Client(5 * time.Second)
	for _, u := range []string{
		"http://127.0.0.1:" + port + "/", "http://localhost:" + port + "/", "http://0.0.0.0:" + port + "/",
		"http://[::ffff:127.0.0.1]:" + port + "/", "http://[::1]:" + port + "/", "http://2130706433:" + port + "/",
		bounce.URL,
	} {
		resp, err := c.Get(u)
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s: fetched, want refused", u)
			continue
		}
		if !errors.Is(err, ErrRefused) && !isUnreachable(err) {
			t.Errorf("%s: %v, want refused", u, err)
		}
	}
	allowed, err := Parse([]string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := allowed.Client(5 * time.Second).Get(srv.URL)
	if err != nil {
		t.Fatalf("a named host: %v", err)
	}
	resp.Body.Close()
	nets, _ := Parse([]string{"127.0.0.0/8"})
	if resp, err := nets.Client(5 * time.Second).Get("http://localhost:" + port + "/"); err != nil {
		t.Errorf("a named network: %v", err)
	} else {
		resp.Body.Close()
	}
}

// isUnreachable is a dial that failed before connecting (0.0.0.0 on some
// kernels): refused either way.
func isUnreachable(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func TestPermits(t *testing.T) {
	for _, tc := range []struct {
		ip   string
		want bool
	}{
		{"93.184.216.34", true}, {"2606:2800:220:1::1", true},
		{"127.0.0.1", false}, {"10.1.2.3", false}, {"172.16.0.1", false}, {"192.168.1.1", false}, {"169.254.169.254", false},
		{"100.64.0.1", false}, {"0.0.0.0", false}, {"::", false}, {"::1", false}, {"fe80::1", false}, {"fd00::1", false},
		{"::ffff:192.168.1.1", false}, {"224.0.0.1", false}, {"ff02::1", false},
	} {
		if got := (Policy{}).Permits(netip.MustParseAddr(tc.ip)); got != tc.want {
			t.Errorf("Permits(%s) = %v, want %v", tc.ip, got, tc.want)
		}
	}
	if _, err := Parse([]string{"192.168.1.0/33"}); err == nil {
		t.Error("a bad network was taken")
	}
	p := Policy{}.WithHostsOf("http://user@searx.lan:8080/search", "https://[fd00::5]/x")
	if !p.named("searx.lan") || !p.named("fd00::5") {
		t.Errorf("hosts %v: want the URLs' hosts", p.Hosts)
	}
}
