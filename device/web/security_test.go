package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/harkbox/hark/internal/sandboxtest"
)

// countingStore counts the reads of the password: one per guess checked.
type countingStore struct {
	Store
	reads atomic.Int64
}

func (c *countingStore) Get(ctx context.Context, k string, v any) (bool, error) {
	if k == passwordKey {
		c.reads.Add(1)
	}
	return c.Store.Get(ctx, k, v)
}

// TestParallelGuessesAreLockedOut: guesses sent together from one address
// are counted before any is checked, so no more than maxFailures are
// checked, and the right password after them is refused too.
func TestParallelGuessesAreLockedOut(t *testing.T) {
	r := newRig(t)
	r.setUp()
	cs := &countingStore{Store: r.srv.access.store}
	r.srv.access.mu.Lock()
	r.srv.access.store = cs
	r.srv.access.mu.Unlock()
	var wg sync.WaitGroup
	var refused atomic.Int64
	for i := range 100 {
		wg.Go(func() {
			b := r.browser()
			if w := b.do("POST", "/login", url.Values{"password": {fmt.Sprintf("guess %d", i)}}); w.Code == http.StatusTooManyRequests {
				refused.Add(1)
			}
		})
	}
	wg.Wait()
	if n := cs.reads.Load(); n > maxFailures {
		t.Errorf("%d guesses checked of 100 sent together, want at most %d", n, maxFailures)
	}
	if refused.Load() < 100-maxFailures {
		t.Errorf("%d of 100 refused as locked out, want at least %d", refused.Load(), 100-maxFailures)
	}
	if w := r.browser().do("POST", "/login", url.Values{"password": {"correct horse"}}); w.Code != http.StatusTooManyRequests {
		t.Errorf("the right password after the flood: %d, want the lock-out", w.Code)
	}
}

// TestLockOutByIPv6Prefix: one host holds a whole /64, so its addresses
// share one lock-out.
func TestLockOutByIPv6Prefix(t *testing.T) {
	r := newRig(t)
	r.setUp()
	r.srv.o.AnyAddress = true
	for i := range maxFailures {
		b := r.browser()
		b.from = fmt.Sprintf("[2001:db8:1:2::%x]:4000", i+1)
		b.do("POST", "/login", url.Values{"password": {"wrong"}})
	}
	b := r.browser()
	b.from = "[2001:db8:1:2:ffff::1]:4000"
	if w := b.do("POST", "/login", url.Values{"password": {"correct horse"}}); w.Code != http.StatusTooManyRequests {
		t.Errorf("another address of the same /64: %d, want the lock-out", w.Code)
	}
	b.from = "[2001:db8:1:3::1]:4000"
	if w := b.do("POST", "/login", url.Values{"password": {"correct horse"}}); w.Code != http.StatusSeeOther {
		t.Errorf("the next /64: %d, want a login", w.Code)
	}
}

// TestGuessesAreBoundedAndLimitedOverall: guesses from ever new addresses
// are limited overall, and the addresses remembered are bounded.
func TestGuessesAreBoundedAndLimitedOverall(t *testing.T) {
	r := newRig(t)
	g := &r.srv.access.guesses
	busy := 0
	for i := range maxSources + 500 {
		if _, err := g.try(fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)); err == errBusy {
			busy++
		}
	}
	if busy < maxSources+500-globalBurst {
		t.Errorf("%d of %d guesses at once refused overall, want all but the burst of %d", busy, maxSources+500, globalBurst)
	}
	if n := len(g.sources); n > maxSources {
		t.Errorf("%d addresses remembered, want at most %d", n, maxSources)
	}
}

// countingBody counts what the handler read of a request's body.
type countingBody struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
func (c *countingBody) Close() error { return nil }

// TestUnauthenticatedBodiesAreBounded: a huge form to the login or setup
// page is read no further than a form needs, and a file there is refused
// unread.
func TestUnauthenticatedBodiesAreBounded(t *testing.T) {
	r := newRig(t)
	for _, path := range []string{"/setup", "/login"} {
		huge := "password=" + strings.Repeat("x", 150<<20)
		body := &countingBody{r: strings.NewReader(huge)}
		req := httptest.NewRequest("POST", path, nil)
		req.Body, req.RemoteAddr = body, "192.168.1.20:5000"
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := httptest.NewRecorder()
		r.h.ServeHTTP(w, req)
		if n := body.n.Load(); n > formLimit+(64<<10) {
			t.Errorf("%s read %d bytes of a 150 MiB form, want at most about %d", path, n, formLimit)
		}
		body = &countingBody{r: strings.NewReader("--x\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\n" + strings.Repeat("y", 10<<20))}
		req = httptest.NewRequest("POST", path, nil)
		req.Body, req.RemoteAddr = body, "192.168.1.20:5000"
		req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
		w = httptest.NewRecorder()
		r.h.ServeHTTP(w, req)
		if w.Code != http.StatusUnsupportedMediaType || body.n.Load() != 0 {
			t.Errorf("%s with a file: %d after reading %d bytes, want 415 unread", path, w.Code, body.n.Load())
		}
	}
}

// TestNoOpenRedirect: the page a login goes on to is always one of its
// own, however the address is written.
func TestNoOpenRedirect(t *testing.T) {
	for _, n := range []string{`/\evil.example`, `//evil.example`, `http://evil.example`, `/\/evil.example`,
		"/\t/evil.example", `https:evil.example`, ``, `evil.example`} {
		if got := localPath(n); got != "/" {
			t.Errorf("localPath(%q) = %q, want /", n, got)
		}
	}
	for _, n := range []string{"/timers", "/memory?x=1"} {
		if got := localPath(n); got != n {
			t.Errorf("localPath(%q) = %q, want it kept", n, got)
		}
	}
	r := newRig(t)
	r.setUp()
	anon := r.browser()
	w := anon.do("GET", "/%5Cevil.example", nil)
	if loc := w.Header().Get("Location"); loc != "/login" {
		t.Errorf("an anonymous GET /%%5Cevil.example goes to %q, want /login without a next", loc)
	}
	w = anon.do("POST", "/login?next="+url.QueryEscape(`/\evil.example`), url.Values{"password": {"correct horse"}})
	if loc := w.Header().Get("Location"); w.Code != http.StatusSeeOther || loc != "/" {
		t.Errorf("a login with next=/\\evil.example: %d to %q, want /", w.Code, loc)
	}
}

// TestLongPasswordIsAFieldError: bcrypt takes 72 bytes; a longer password
// is a sentence by its field, not a server error.
func TestLongPasswordIsAFieldError(t *testing.T) {
	r := newRig(t)
	code, _ := r.srv.SetupCode()
	long := strings.Repeat("é", 40) // 80 bytes
	w := r.browser().do("POST", "/setup", url.Values{"code": {code}, "password": {long}, "confirm": {long}})
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "72 bytes") {
		t.Errorf("a password of 80 bytes at setup: %d %q", w.Code, w.Body.String())
	}
	b := r.setUp()
	w = b.post("/account/password", url.Values{"old": {"correct horse"}, "password": {long}, "confirm": {long}})
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "72 bytes") {
		t.Errorf("a new password of 80 bytes: %d", w.Code)
	}
	if w := r.browser().do("POST", "/login", url.Values{"password": {long}}); w.Code != http.StatusForbidden {
		t.Errorf("a login with 80 bytes: %d, want a wrong password", w.Code)
	}
}

// TestStaticListsNoFiles: the static files are served, their directory is
// not listed.
func TestStaticListsNoFiles(t *testing.T) {
	r := newRig(t)
	if w := r.browser().do("GET", "/static/", nil); w.Code != http.StatusNotFound {
		t.Errorf("GET /static/: %d %q, want 404", w.Code, w.Body.String())
	}
}

// TestOwnAddressInHarkServiceSandbox: the page answers to the box's own
// addresses, which it reads over AF_NETLINK. Under hark.service's
// RestrictAddressFamilies=, a box at 192.168.1.57 serves the page opened
// by that address, as it says to once it joined a network, rather than
// refusing it as another site's (421).
func TestOwnAddressInHarkServiceSandbox(t *testing.T) {
	fams := sandboxtest.Families(t, "../../systemd/hark.service")
	sandboxtest.Run(t, func(t *testing.T) {
		for _, args := range [][]string{{"link", "set", "lo", "up"}, {"addr", "add", "192.168.1.57/24", "dev", "lo"}} {
			if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
				t.Skipf("ip %s: %v %s", strings.Join(args, " "), err, out)
			}
		}
		sandboxtest.Restrict(t, fams)
		r := newRig(t)
		req := httptest.NewRequest("GET", "http://192.168.1.57:8080/", nil)
		req.RemoteAddr = "192.168.1.20:50000"
		w := httptest.NewRecorder()
		r.h.ServeHTTP(w, req)
		if w.Code == http.StatusMisdirectedRequest {
			t.Errorf("RestrictAddressFamilies=%s: GET http://192.168.1.57:8080/ on the box at that address: %d %s", strings.Join(fams, " "), w.Code, strings.TrimSpace(w.Body.String()))
		}
	})
}

// TestTheNameClaimedOnTheNetworkIsServed: a box that found its name taken
// by another box in the house and claimed hark-2.local instead is opened
// at that name once AddName is told, not before.
func TestTheNameClaimedOnTheNetworkIsServed(t *testing.T) {
	r := newRig(t)
	r.setUp()
	get := func(host string) int {
		req := httptest.NewRequest("GET", "/login", nil)
		req.Host, req.RemoteAddr = host, "192.168.1.20:5000"
		w := httptest.NewRecorder()
		r.h.ServeHTTP(w, req)
		return w.Code
	}
	if code := get("hark-2.local:8080"); code != http.StatusMisdirectedRequest {
		t.Errorf("Host hark-2.local before it was claimed: %d, want 421", code)
	}
	r.srv.AddName("HARK-2.local")
	if code := get("hark-2.local:8080"); code != http.StatusOK && code != http.StatusSeeOther {
		t.Errorf("Host hark-2.local once claimed: %d, want it served", code)
	}
}

// TestOtherNamesAndOriginsAreRefused: a page elsewhere that points its
// name at the box (DNS rebinding) or posts a form to it is refused; the
// box's own names and addresses are served.
func TestOtherNamesAndOriginsAreRefused(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	get := func(host string) int {
		req := httptest.NewRequest("GET", "/login", nil)
		req.Host, req.RemoteAddr = host, "192.168.1.20:5000"
		w := httptest.NewRecorder()
		r.h.ServeHTTP(w, req)
		return w.Code
	}
	for _, host := range []string{"evil.example", "evil.example:8080", "192.0.2.77"} {
		if code := get(host); code != http.StatusMisdirectedRequest {
			t.Errorf("Host %s: %d, want 421", host, code)
		}
	}
	for _, host := range []string{"localhost:8080", "127.0.0.1:8080", "[::1]:8080", "example.com"} {
		if code := get(host); code != http.StatusOK && code != http.StatusSeeOther {
			t.Errorf("Host %s: %d, want it served", host, code)
		}
	}
	form := url.Values{"csrf": {b.csrf("/secrets")}, "name": {"X"}, "value": {"y"}}
	req := httptest.NewRequest("POST", "/secrets", strings.NewReader(form.Encode()))
	req.RemoteAddr = b.from
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://evil.example")
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: b.cookie})
	w := httptest.NewRecorder()
	r.h.ServeHTTP(w, req)
	if w.Code != http.StatusForbidden {
		t.Errorf("a form with Origin evil.example: %d, want 403", w.Code)
	}
	req.Header.Set("Origin", "http://example.com")
	req.Body = io.NopCloser(strings.NewReader(form.Encode()))
	w = httptest.NewRecorder()
	r.h.ServeHTTP(w, req)
	if w.Code != http.StatusSeeOther {
		t.Errorf("a form from the page's own origin: %d, want it taken", w.Code)
	}
}

// TestRefusalsDoNotFloodTheLog: a machine on the network sending request
// after request the page refuses (another site's name, an address outside,
// a form from elsewhere, a stale form token) writes a line now and then,
// not one each: the log on the SD card and the logs page keep room for the
// household's own lines.
func TestRefusalsDoNotFloodTheLog(t *testing.T) {
	r := newRig(t)
	var buf bytes.Buffer
	r.srv.log = slog.New(slog.NewTextHandler(&buf, nil))
	send := func(host, from, method, origin string) {
		req := httptest.NewRequest(method, "/login", nil)
		req.Host, req.RemoteAddr = host, from
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		r.h.ServeHTTP(httptest.NewRecorder(), req)
	}
	for range 200 {
		send("evil.example:8080", "192.168.1.20:5000", "GET", "")
		send("example.com", "203.0.113.9:5000", "GET", "")
		send("example.com", "192.168.1.20:5000", "POST", "https://evil.example")
	}
	if n := strings.Count(buf.String(), "\n"); n > 3 {
		t.Errorf("600 refused requests wrote %d lines; want one of each kind:\n%s", n, head(buf.String(), 10))
	}
}

func head(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
