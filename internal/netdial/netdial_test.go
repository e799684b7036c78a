package netdial

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/internal/netfault"
)

// A resolver that never answers: the dial fails within the lookup's
// budget, as a DNS error naming the host, not a timeout of the server.
func TestSilentResolverIsNamed(t *testing.T) {
	dial := Dialer(Options{Lookup: 300 * time.Millisecond, Resolver: netfault.SilentResolver(t)})
	began := time.Now()
	_, err := dial(t.Context(), "tcp", "ollama.home.arpa:11434")
	var de *net.DNSError
	if !errors.As(err, &de) || de.Name != "ollama.home.arpa" || !strings.Contains(err.Error(), "resolver") {
		t.Errorf("dial = %v; want a DNS error naming the host", err)
	}
	if took := time.Since(began); took > 3*time.Second {
		t.Errorf("took %v; want the 300 ms lookup budget", took)
	}
}

// Reset closes with a TCP reset: the peer reads ECONNRESET, not EOF.
func TestResetClosesWithAReset(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, tc := range []struct {
		reset bool
		want  string
	}{{false, "EOF"}, {true, "reset"}} {
		c, err := Dialer(Options{Reset: tc.reset})(t.Context(), "tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		peer, _ := ln.Accept()
		c.Write([]byte("x"))
		c.Close()
		peer.SetReadDeadline(time.Now().Add(2 * time.Second))
		buf := make([]byte, 8)
		var rerr error
		for rerr == nil {
			_, rerr = peer.Read(buf)
		}
		peer.Close()
		if !strings.Contains(rerr.Error(), tc.want) {
			t.Errorf("Reset %v: the peer read %v; want %s", tc.reset, rerr, tc.want)
		}
	}
}
