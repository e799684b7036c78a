package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/harkbox/hark/device/network"
)

var (
	_ Network = (*network.Box)(nil)
	_ Network = (*network.Sim)(nil)
)

// fixedAddresses is a Network whose addresses are known, over a real one.
type fixedAddresses struct {
	Network
	addrs []network.Address
}

func (f fixedAddresses) Addresses(context.Context) ([]network.Address, error) { return f.addrs, nil }

var testAddresses = []network.Address{{Interface: "wlan0", Address: "192.168.1.42/24", Up: true}, {Interface: "eth0", Up: false}}

// networkRig is the page with the network routes in front of the others,
// until they are wired into routes.
func networkRig(t *testing.T, n Network) *rig {
	r := newRig(t)
	mux := http.NewServeMux()
	r.srv.networkRoutes(func(p string, h pageHandler) { mux.Handle(p, r.srv.authed(h)) }, n)
	netw, rest := r.srv.guard(mux), r.h
	r.h = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/network" || strings.HasPrefix(req.URL.Path, "/network/") {
			netw.ServeHTTP(w, req)
			return
		}
		rest.ServeHTTP(w, req)
	})
	return r
}

// boxNetwork is a board's network over a file in a temporary directory,
// applied by apply.
func boxNetwork(t *testing.T, apply func(context.Context) error) (Network, *network.WiFi) {
	wifi := &network.WiFi{Path: filepath.Join(t.TempDir(), "wpa_supplicant.conf"), Apply: apply}
	return fixedAddresses{&network.Box{WiFi: wifi}, testAddresses}, wifi
}

func TestNetworkNeedsALogin(t *testing.T) {
	n, wifi := boxNetwork(t, nil)
	r := networkRig(t, n)
	anon := r.browser()
	if w := anon.do("GET", "/network", nil); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/login?next=%2Fnetwork" {
		t.Errorf("before setup: %d %s", w.Code, w.Header().Get("Location"))
	}
	r.setUp()
	if w := anon.do("GET", "/network", nil); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/login?next=%2Fnetwork" {
		t.Errorf("after setup: %d %s", w.Code, w.Header().Get("Location"))
	}
	if w := anon.do("POST", "/network/wifi", url.Values{"ssid": {"Evil"}, "psk": {"12345678"}}); w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), "/login") {
		t.Errorf("an anonymous form: %d %s", w.Code, w.Header().Get("Location"))
	}
	if w := anon.do("GET", "/network", nil); w.Header().Get("X-Frame-Options") != "DENY" {
		t.Errorf("headers %v", w.Header())
	}
	if got, _ := wifi.Networks(); len(got) != 0 {
		t.Errorf("an anonymous form added %q", got)
	}
}

func TestNetworkFormNeedsTheSessionsToken(t *testing.T) {
	n, wifi := boxNetwork(t, nil)
	r := networkRig(t, n)
	b := r.setUp()
	for _, token := range []string{"", "forged"} {
		if w := b.do("POST", "/network/wifi", url.Values{"csrf": {token}, "ssid": {"Evil"}, "psk": {"12345678"}}); w.Code != http.StatusForbidden {
			t.Errorf("token %q: %d", token, w.Code)
		}
	}
	if got, _ := wifi.Networks(); len(got) != 0 {
		t.Errorf("a forged form added %q", got)
	}
}

func TestNetworkPage(t *testing.T) {
	var applied int
	n, wifi := boxNetwork(t, func(context.Context) error { applied++; return nil })
	r := networkRig(t, n)
	b := r.setUp()
	w := b.do("GET", "/network", nil)
	body := w.Body.String()
	for _, want := range []string{"192.168.1.42/24", "<strong>eth0</strong>: no address", "No Wi-Fi network is set up.",
		`name="csrf"`, `<label for="ssid">`, `<input id="psk" name="psk" type="password" autocomplete="off">`} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /network: %d, want %q in\n%s", w.Code, want, body)
		}
	}
	if strings.Contains(body, "simulation") {
		t.Error("a board's page says it is the simulation")
	}
	const pass = "pass-Phrase-7f3e"
	var bodies []string
	for _, tc := range []struct {
		name, ssid, psk, field, want string
	}{
		{"no name", "", pass, "ssid", "Type the network&#39;s name (its SSID)."},
		{"a long name", strings.Repeat("n", 33), pass, "ssid", "A network&#39;s name is at most 32 bytes long; this one has 33"},
		{"a control character", "Home\tNet", pass, "ssid", "control character"},
		{"a short passphrase", "Home", "short", "psk", "The passphrase is too short: it has 5 characters"},
		{"a 64-digit key not hex", "Home", strings.Repeat("z", 64), "psk", "hexadecimal"},
		{"an accent", "Home", pass + "é", "psk", "no accents, emoji"},
	} {
		w := b.post("/network/wifi", url.Values{"ssid": {tc.ssid}, "psk": {tc.psk}})
		body := w.Body.String()
		bodies = append(bodies, body)
		if w.Code != http.StatusBadRequest || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d, want %q in\n%s", tc.name, w.Code, tc.want, body)
		}
		if !strings.Contains(body, `aria-invalid="true" aria-describedby="`+tc.field+`-error"`) || !strings.Contains(body, `<span class="field-error" id="`+tc.field+`-error">`) {
			t.Errorf("%s: the error is not by the %s field:\n%s", tc.name, tc.field, body)
		}
		if strings.Count(body, `aria-invalid="true"`) != 1 {
			t.Errorf("%s: more than one field is marked", tc.name)
		}
		if tc.field == "psk" && !strings.Contains(body, `value="Home"`) {
			t.Errorf("%s: the name typed is not kept", tc.name)
		}
	}
	if got, _ := wifi.Networks(); len(got) != 0 || applied != 0 {
		t.Errorf("refused networks saved %q, applied %d times", got, applied)
	}

	w = b.post("/network/wifi", url.Values{"ssid": {"Home"}, "psk": {pass}})
	bodies = append(bodies, w.Body.String())
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/network" {
		t.Fatalf("add: %d %s", w.Code, w.Body.String())
	}
	body = b.do("GET", "/network", nil).Body.String()
	bodies = append(bodies, body)
	if !strings.Contains(body, "The Wi-Fi network “Home” is saved and applied.") || !strings.Contains(body, "<li><span>Home</span></li>") {
		t.Errorf("after adding:\n%s", body)
	}
	if got, _ := wifi.Networks(); !slices.Equal(got, []string{"Home"}) || applied != 1 {
		t.Errorf("saved %q, applied %d times", got, applied)
	}
	for _, body := range bodies {
		if strings.Contains(body, pass) {
			t.Fatalf("the passphrase was rendered:\n%s", body)
		}
	}
}

func TestNetworkNotApplied(t *testing.T) {
	n, wifi := boxNetwork(t, func(context.Context) error {
		return errors.New("network: wpa_cli -i wlan0 reconfigure: exit status 255: Failed to connect to non-global ctrl_ifname: wlan0")
	})
	r := networkRig(t, n)
	b := r.setUp()
	w := b.post("/network/wifi", url.Values{"ssid": {"Office"}, "psk": {"office-pass-1"}})
	body := w.Body.String()
	if w.Code != http.StatusInternalServerError || !strings.Contains(body, "The Wi-Fi network is saved, but applying it failed: wpa_cli -i wlan0 reconfigure: exit status 255") ||
		!strings.Contains(body, "<li><span>Office</span></li>") || strings.Contains(body, "office-pass-1") {
		t.Errorf("a failed apply: %d\n%s", w.Code, body)
	}
	if got, _ := wifi.Networks(); !slices.Equal(got, []string{"Office"}) {
		t.Errorf("saved %q", got)
	}
}

func TestNetworkSimulated(t *testing.T) {
	dir := t.TempDir()
	r := networkRig(t, fixedAddresses{network.Simulated(dir, false), testAddresses})
	b := r.setUp()
	body := b.do("GET", "/network", nil).Body.String()
	if !strings.Contains(body, "This is the simulation.") || !strings.Contains(body, "Nothing on this computer's network is changed") || !strings.Contains(body, "data directory") {
		t.Errorf("the simulation is not said:\n%s", body)
	}
	if w := b.post("/network/wifi", url.Values{"ssid": {"Cafe"}}); w.Code != http.StatusSeeOther {
		t.Fatalf("an open network: %d %s", w.Code, w.Body.String())
	}
	body = b.do("GET", "/network", nil).Body.String()
	if !strings.Contains(body, "stand-in list; nothing on this computer changed.") || !strings.Contains(body, "<li><span>Cafe</span></li>") {
		t.Errorf("after adding in the simulation:\n%s", body)
	}
	if got, _ := (&network.WiFi{Path: filepath.Join(dir, network.SimFile)}).Networks(); !slices.Equal(got, []string{"Cafe"}) {
		t.Errorf("the stand-in file has %q", got)
	}
}

func TestNetworkUnserved(t *testing.T) {
	r := networkRig(t, nil)
	b := r.setUp()
	if w := b.do("GET", "/network", nil); w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), "does not offer that here") {
		t.Errorf("GET without a network: %d", w.Code)
	}
	if w := b.post("/network/wifi", url.Values{"ssid": {"Home"}, "psk": {"12345678"}}); w.Code != http.StatusNotFound {
		t.Errorf("POST without a network: %d", w.Code)
	}
}

// TestNetworkScanAndForget: the network page lists the networks in reach
// when asked, and forgets a kept one.
func TestNetworkScanAndForget(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	b.post("/network/wifi", url.Values{"ssid": {"Home"}, "psk": {"correct horse battery"}})
	body := b.do("GET", "/network?scan", nil).Body.String()
	if !strings.Contains(body, "Neighbours 5G") || !strings.Contains(body, `aria-label="Forget Home"`) {
		t.Errorf("the network page with a scan:\n%s", body)
	}
	if w := b.post("/network/forget", url.Values{"ssid": {"Home"}}); w.Code != http.StatusSeeOther {
		t.Fatalf("forget: %d", w.Code)
	}
	if body := b.do("GET", "/network", nil).Body.String(); !strings.Contains(body, "The Wi-Fi network “Home” is forgotten.") || strings.Contains(body, `aria-label="Forget Home"`) {
		t.Errorf("after forgetting:\n%s", body)
	}
}
