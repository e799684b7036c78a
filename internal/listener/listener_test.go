package listener

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/internal/selfsigned"
)

// TestCapped: an address holds at most its share of connections; one
// closed makes room for another.
func TestCapped(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := Capped(l, 2, 100)
	defer c.Close()
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			conn, err := c.Accept()
			if err != nil {
				return
			}
			accepted <- conn
		}
	}()
	var dialed []net.Conn
	for range 3 {
		d, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		dialed = append(dialed, d)
	}
	first, second := <-accepted, <-accepted
	dialed[2].SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := dialed[2].Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the third connection: %v, want it closed", err)
	}
	second.Close()
	_ = first
	d, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	select {
	case <-accepted:
	case <-time.After(5 * time.Second):
		t.Error("no room made by a closed connection")
	}
}

// TestCappedInAll: many addresses together hold at most the listener's
// total; more are closed at once, and one closed makes room again.
func TestCappedInAll(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := Capped(l, 2, 3)
	defer c.Close()
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			conn, err := c.Accept()
			if err != nil {
				return
			}
			accepted <- conn
		}
	}()
	// Each from its own loopback address: none reaches its own share.
	from := func(i int) net.Conn {
		t.Helper()
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(10+i))}}
		conn, err := d.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	var held []net.Conn
	for i := range 3 {
		from(i)
		held = append(held, <-accepted)
	}
	over := from(3)
	over.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := over.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the fourth connection in all: %v, want it closed", err)
	}
	held[0].Close()
	from(4)
	select {
	case <-accepted:
	case <-time.After(5 * time.Second):
		t.Error("no room made by a closed connection")
	}
}

// TestSplit: TLS and plain HTTP on one port; a connection that says
// nothing is not served.
func TestSplit(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tlsL, plain := Split(l)
	defer tlsL.Close()
	cert, _, err := selfsigned.Load(selfsigned.Spec{Dir: t.TempDir(), Name: "test", Subject: "test"})
	if err != nil {
		t.Fatal(err)
	}
	say := func(what string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, what) })
	}
	go http.Serve(tls.NewListener(tlsL, &tls.Config{Certificates: []tls.Certificate{cert}}), say("encrypted"))
	go http.Serve(plain, say("plain"))
	addr := l.Addr().String()
	get := func(c *http.Client, u string) string {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	if got := get(insecure, "https://"+addr+"/"); got != "encrypted" {
		t.Errorf("https: %q", got)
	}
	if got := get(http.DefaultClient, "http://"+addr+"/"); got != "plain" {
		t.Errorf("http: %q", got)
	}
	if !strings.HasPrefix(tlsL.Addr().String(), "127.0.0.1") {
		t.Errorf("address %s", tlsL.Addr())
	}
}
