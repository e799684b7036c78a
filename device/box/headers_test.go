package box

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHeadersBounded: a stranger on the LAN that sends a request whose
// headers run to 64 KiB, to the center's port or to its page's, is
// refused (431) before they are read whole: with Go's default of 1 MiB,
// each of the 32 connections an address may hold could keep a megabyte
// or two of parsed headers, some 64 MiB an address, which a few
// addresses would take from a small board. Ordinary requests are served.
func TestHeadersBounded(t *testing.T) {
	srv, _ := modelServer(t)
	cfg, res := configure(t, "[center]\nlisten = \"127.0.0.1:0\"\n[web]\nlisten = \"127.0.0.1:0\"\ntls = \"off\"\nmdns = false\n[reply]\nplanner = false\n",
		map[string]string{"OLLAMA_HOST": srv.URL})
	c, err := OpenCenter(cfg, res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.watch = func(ctx context.Context) { <-ctx.Done() }
	at := make(chan string, 2)
	ctx, stop := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() {
		served <- c.Serve(ctx, true, func(line string) {
			for _, prefix := range []string{"serving nodes on http://", "web page: http://"} {
				if addr, ok := strings.CutPrefix(line, prefix); ok {
					at <- strings.Fields(addr)[0]
				}
			}
		})
	}()
	defer func() {
		stop()
		if err := <-served; err != nil {
			t.Error(err)
		}
	}()
	for range 2 {
		var addr string
		select {
		case addr = <-at:
		case <-time.After(10 * time.Second):
			t.Fatal("the center or its page did not say where it listens")
		}
		for _, tc := range []struct {
			header int
			big    bool
		}{{64 << 10, true}, {100, false}} {
			got, err := statusWithHeaders(addr, tc.header)
			if err != nil {
				t.Errorf("%s with %d bytes of headers: %v", addr, tc.header, err)
				continue
			}
			if (got == http.StatusRequestHeaderFieldsTooLarge) != tc.big {
				t.Errorf("%s with %d bytes of headers: %d", addr, tc.header, got)
			}
		}
	}
}

// statusWithHeaders sends a GET to addr with about n bytes of headers and
// returns the status of the answer.
func statusWithHeaders(addr string, n int) (int, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	w := bufio.NewWriter(conn)
	fmt.Fprintf(w, "GET / HTTP/1.1\r\nHost: %s\r\n", addr)
	for i := 0; n > 0; i++ {
		line := fmt.Sprintf("X-Filler-%d: %s\r\n", i, strings.Repeat("a", min(n, 1000)))
		w.WriteString(line)
		n -= len(line)
	}
	w.WriteString("\r\n")
	w.Flush() // a server that stops reading still answers
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
