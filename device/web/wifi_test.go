package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/harkbox/hark/device/network"
)

// fixedHotspot is an access point in a state the test sets.
type fixedHotspot struct {
	mu     sync.Mutex
	st     network.HotspotState
	joined []string
}

func (f *fixedHotspot) State() network.HotspotState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st
}

func (f *fixedHotspot) Join(ssid, psk string) error {
	if len(psk) > 0 && len(psk) < 8 {
		return &network.FieldError{Field: "psk", Msg: "the passphrase is too short"}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.joined = append(f.joined, ssid)
	f.st.Joining = ssid
	return nil
}

// TestWifiPage: the Wi-Fi page is there without a login only while the
// access point is open (or a join through it is under way); plain HTTP
// on the HTTPS port serves it rather than redirecting; the captive address
// sends every other address and name to it.
func TestWifiPage(t *testing.T) {
	r := newRig(t)
	hs := &fixedHotspot{}
	r.srv.o.Hotspot = hs
	b := r.browser()
	if w := b.do("GET", "/wifi", nil); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/network" {
		t.Errorf("with the access point closed: %d %s", w.Code, w.Header().Get("Location"))
	}
	hs.st = network.HotspotState{Open: true, SSID: "Hark-4821", Seen: []network.Seen{{SSID: "Home", Signal: -48, Secure: true}, {SSID: "Café guest", Signal: -83}}}
	w := b.do("GET", "/wifi", nil)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `value="Home" checked`) || !strings.Contains(w.Body.String(), "Café guest") {
		t.Errorf("the Wi-Fi page: %d\n%s", w.Code, w.Body.String())
	}
	if w := b.do("POST", "/wifi", url.Values{"ssid": {"Home"}, "psk": {"short"}}); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "The passphrase is too short.") {
		t.Errorf("a short passphrase: %d\n%s", w.Code, w.Body.String())
	}
	if w := b.do("POST", "/wifi", url.Values{"ssid": {"other"}, "other": {"Attic"}, "psk": {"long enough"}}); w.Code != http.StatusSeeOther || hs.joined[0] != "Attic" {
		t.Errorf("another network: %d, joined %q", w.Code, hs.joined)
	}
	if body := b.do("GET", "/wifi", nil).Body.String(); !strings.Contains(body, "Joining “Attic”") {
		t.Errorf("while joining:\n%s", body)
	}

	plain := r.srv.PlainHandler()
	for path, want := range map[string]int{"/wifi": http.StatusOK, "/static/style.css": http.StatusOK, "/memory": http.StatusMovedPermanently} {
		req := httptest.NewRequest("GET", "http://192.168.4.1:8080"+path, nil)
		req.RemoteAddr = "192.168.4.23:40000"
		req.Host = "localhost:8080"
		rec := httptest.NewRecorder()
		plain.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("plain HTTP %s: %d, want %d", path, rec.Code, want)
		}
	}

	captive := r.srv.CaptiveHandler("192.168.4.1")
	for _, tc := range []struct{ host, path, want string }{
		{"connectivitycheck.gstatic.com", "/generate_204", "http://192.168.4.1/wifi"},
		{"captive.apple.com", "/hotspot-detect.html", "http://192.168.4.1/wifi"},
		{"192.168.4.1", "/", "http://192.168.4.1/wifi"},
	} {
		req := httptest.NewRequest("GET", "http://"+tc.host+tc.path, nil)
		req.RemoteAddr, req.Host = "192.168.4.23:40000", tc.host
		rec := httptest.NewRecorder()
		captive.ServeHTTP(rec, req)
		if rec.Code != http.StatusFound || rec.Header().Get("Location") != tc.want {
			t.Errorf("captive %s%s: %d %s", tc.host, tc.path, rec.Code, rec.Header().Get("Location"))
		}
	}
	req := httptest.NewRequest("GET", "http://192.168.4.1/wifi", nil)
	req.RemoteAddr, req.Host = "192.168.4.23:40000", "192.168.4.1"
	rec := httptest.NewRecorder()
	captive.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Security-Policy") == "" {
		t.Errorf("the captive address's page: %d %v", rec.Code, rec.Header())
	}
	req = httptest.NewRequest("POST", "http://192.168.4.1/wifi", strings.NewReader("ssid=Home&psk=correct+horse"))
	req.RemoteAddr, req.Host = "192.168.4.23:40000", "192.168.4.1"
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://evil.example")
	rec = httptest.NewRecorder()
	captive.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("a form from another site on the captive address: %d", rec.Code)
	}
}

// TestBrowserCaptivePage walks the Wi-Fi page in Chromium over the
// simulation's stand-in network, as a phone joined to the box's own
// access point: a wrong password is refused and the access point opens
// again with the reason; the right one joins "Home", and the page says
// where the speaker is; screenshots at a phone's and a desktop's width.
func TestBrowserCaptivePage(t *testing.T) {
	r := newRig(t)
	sim := network.Simulated(t.TempDir(), true)
	var mu sync.Mutex
	var said []string
	hs, err := network.NewHotspot(network.HotspotOptions{Link: sim, AP: sim, Own: network.AP{SSID: "Hark-4821", Passphrase: "3841927650"},
		Say: func(_ context.Context, s string) { mu.Lock(); said = append(said, s); mu.Unlock() },
		Joined: func(ssid string, a netip.Addr) string {
			return "I'm on " + ssid + " now. To set me up, open http://" + a.String() + ":8080 in your browser."
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go hs.Run(ctx)
	r.srv.o.Hotspot = hs
	srv := httptest.NewServer(r.h)
	t.Cleanup(srv.Close)
	c := startChrome(t, srv.URL)
	for deadline := time.Now().Add(5 * time.Second); !hs.State().Open; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the simulation's access point did not open")
		}
	}
	c.open("/wifi")
	if h := c.text("main h1"); h != "Connect the speaker to your Wi-Fi" {
		t.Fatalf("the Wi-Fi page's heading is %q", h)
	}
	if n := eval[int](c, `document.querySelectorAll('#networks input[name="ssid"]').length`); n != len(network.SimInReach)+1 {
		t.Errorf("%d choices, want the %d networks in reach and another", n, len(network.SimInReach))
	}
	c.phone()
	c.noSideways("/wifi")
	c.screenshot("wifi-phone")
	c.desktop()
	c.screenshot("wifi-desktop")
	c.step("type a wrong password", chromedp.SendKeys(chromedp.ID("psk"), "wrong horse battery"))
	c.click("join", `form[action="/wifi"] button`)
	c.waitFor("the refusal", `(() => { const e = document.getElementById("wifi-state"); return !!e && e.classList.contains("error") && document.readyState === "complete"; })()`, 15*time.Second)
	if e := c.text("#wifi-state"); !strings.Contains(e, "did not take that passphrase") {
		t.Errorf("after a wrong password the page says %q", e)
	}
	c.step("type the right password", chromedp.SendKeys(chromedp.ID("psk"), "correct horse battery"))
	c.click("join", `form[action="/wifi"] button`)
	c.waitFor("the join", `(() => { const e = document.getElementById("wifi-state"); return !!e && e.textContent.includes("The speaker is on") && document.readyState === "complete"; })()`, 15*time.Second)
	if s := c.text("#wifi-state"); !strings.Contains(s, "“Home” at 192.168.1.57") || !strings.Contains(s, "http://192.168.1.57:8080") {
		t.Errorf("after joining the page says %q", s)
	}
	c.screenshot("wifi-joined-phone")
	mu.Lock()
	defer mu.Unlock()
	if last := said[len(said)-1]; !strings.Contains(last, "I'm on Home now") {
		t.Errorf("the speaker said %q last", said)
	}
}
