package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pageBox is `hark run --sim` serving its page on a port of its own, over
// the Ollama test server, with more configuration after [web].
type pageBox struct {
	getenv         func(string) string
	dir, cfg, addr string
	s              *session
}

func startPageBox(t *testing.T, more string) *pageBox {
	t.Helper()
	srv, _ := modelServer(t)
	p := &pageBox{dir: t.TempDir(), addr: freePort(t)}
	p.getenv = vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": p.dir})
	p.cfg = writeConfig(t, fmt.Sprintf("[tts]\nengine = \"off\"\n[web]\nlisten = %q\n%s", p.addr, more))
	p.s = startRun(t, p.getenv, "--sim", "--data", p.dir, "--config", p.cfg)
	p.s.out.waitFor(t, "[leds] ○ idle", 1)
	waitListening(t, p.addr)
	return p
}

// cli runs a hark command on the box's data directory and configuration.
func (p *pageBox) cli(t *testing.T, args ...string) string {
	t.Helper()
	return runIn(t, p.getenv, "", append(args, "--data", p.dir, "--config", p.cfg)...)
}

// TestWebPageContract: the daemon serves the page on [web] listen; `hark
// web code --data D` prints the setup code last; the first-visit form
// posts code and password to /setup, the login form password to /login;
// an anonymous request for another page is sent to /login.
func TestWebPageContract(t *testing.T) {
	p := startPageBox(t, "")
	getenv, dir, cfg, addr, s := p.getenv, p.dir, p.cfg, p.addr, p.s
	out := p.cli(t, "web", "code")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	code := lines[len(lines)-1]
	if len(code) != 8 || strings.Trim(code, "0123456789") != "" {
		t.Fatalf("hark web code printed %q", out)
	}
	if !strings.Contains(s.out.String(), "web page: http://"+addr+"\n") {
		t.Errorf("the simulation does not print the page's address as web page: http://%s:\n%s", addr, s.out.String())
	}
	if !strings.Contains(s.out.String(), "its first visit asks for the code "+code) {
		t.Errorf("the simulation does not show the page's address and code:\n%s", s.out.String())
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	base := "http://" + addr
	resp, err := noRedirect.Get(base + "/timers")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Errorf("anonymous before setup: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, err = noRedirect.PostForm(base+"/setup", url.Values{"code": {code}, "password": {"kitchen radio"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("setup: %d", resp.StatusCode)
	}
	resp, _ = noRedirect.Get(base + "/timers")
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Errorf("anonymous after setup: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, _ = noRedirect.PostForm(base+"/login", url.Values{"password": {"kitchen radio"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	// a timer set through the page is the daemon's own
	req, _ := http.NewRequest("GET", base+"/timers", nil)
	req.AddCookie(resp.Cookies()[0])
	page, err := noRedirect.Do(req)
	if err != nil || page.StatusCode != http.StatusOK {
		t.Fatalf("timers page: %v %v", page, err)
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("no form token on the timers page:\n%s", body)
	}
	req, _ = http.NewRequest("POST", base+"/timers", strings.NewReader(url.Values{"csrf": {string(m[1])}, "kind": {"timer"}, "name": {"pizza"}, "minutes": {"12"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(resp.Cookies()[0])
	if set, err := noRedirect.Do(req); err != nil || set.StatusCode != http.StatusSeeOther {
		t.Fatalf("set a timer on the page: %v %v", set, err)
	}
	if out := runIn(t, getenv, "", "timers", "--data", dir, "--config", cfg); !strings.Contains(out, "pizza") {
		t.Errorf("hark timers does not list the page's timer: %q", out)
	}
	if out := runIn(t, getenv, "", "web", "code", "--data", dir, "--config", cfg); !strings.Contains(out, "the web page is set up") {
		t.Errorf("hark web code after setup: %q", out)
	}

	// A setting kept on the page applies when the daemon starts again.
	post := func(path string, form url.Values) *http.Response {
		t.Helper()
		form.Set("csrf", string(m[1]))
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(resp.Cookies()[0])
		r, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return r
	}
	if r := post("/settings", url.Values{"assistant.name": {"Friday"}, "audio.volume": {"140"}}); r.StatusCode != http.StatusBadRequest {
		t.Errorf("a volume of 140: %d", r.StatusCode)
	}
	if out := runIn(t, getenv, "", "config", "--data", dir, "--config", cfg); !strings.Contains(out, "Friday") || regexp.MustCompile(`volume = 140\b`).MatchString(out) {
		t.Errorf("hark config after the page kept a name and refused a volume:\n%s", out)
	}
	if r := post("/settings/restart", url.Values{}); r.StatusCode != http.StatusOK {
		t.Fatalf("restart: %d", r.StatusCode)
	}
	s.out.waitFor(t, "Enter = button", 2) // the box started again
	if out := runIn(t, getenv, "", "config", "--data", dir, "--config", cfg); !regexp.MustCompile(`name = 'Friday'\s+# settings `).MatchString(out) {
		t.Errorf("hark config after the restart:\n%s", out)
	}
	if out := runIn(t, getenv, "", "status", "--data", dir, "--config", cfg); !strings.HasPrefix(out, "running") {
		t.Errorf("after the restart: %q", out)
	}
	waitListening(t, addr)
	req, _ = http.NewRequest("GET", base+"/settings", nil)
	req.AddCookie(resp.Cookies()[0])
	again, err := noRedirect.Do(req)
	if err != nil || again.StatusCode != http.StatusOK {
		t.Fatalf("the browser is logged out by the restart: %v %v", again, err)
	}
	body, _ = io.ReadAll(again.Body)
	again.Body.Close()
	m = regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(body)
	// the log level, the volume, the follow-up and the name apply at
	// once, without a restart
	if r := post("/settings", url.Values{"log.level": {"debug"}, "audio.volume": {"35"}, "pipeline.follow_up": {"off"}, "assistant.name": {"Ada"}}); r.StatusCode != http.StatusSeeOther {
		t.Errorf("log level, volume, follow-up and name: %d", r.StatusCode)
	}
	req, _ = http.NewRequest("GET", base+"/settings", nil)
	req.AddCookie(resp.Cookies()[0])
	page, _ = noRedirect.Do(req)
	body, _ = io.ReadAll(page.Body)
	page.Body.Close()
	if !strings.Contains(string(body), "In use now: ") || strings.Contains(string(body), "Kept for when Hark starts again") {
		t.Errorf("the settings applied at once:\n%s", body)
	}
	for _, l := range []string{"how much goes in the log", "volume", "listen again after answering", "its name"} {
		if !strings.Contains(string(body), l) {
			t.Errorf("%q is not said to be in use now", l)
		}
	}
}

// TestWebPageDefaultsAndTakenPort: without [web] listen the simulation
// serves the page on 127.0.0.1:8080 in plain HTTP, and prints its address;
// a port another program holds is named on the terminal with the fix.
func TestWebPageDefaultsAndTakenPort(t *testing.T) {
	srv, _ := modelServer(t)
	dir := t.TempDir()
	getenv := vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": dir})
	out := runIn(t, getenv, "", "config", "--data", dir)
	if !regexp.MustCompile(`listen = '127\.0\.0\.1:8080'`).MatchString(out) {
		t.Errorf("hark config in simulation does not listen on 127.0.0.1:8080:\n%s", out)
	}

	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	cfg := writeConfig(t, fmt.Sprintf("[tts]\nengine = \"off\"\n[web]\nlisten = %q\n", addr))
	s := startRun(t, getenv, "--sim", "--data", dir, "--config", cfg)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	s.out.waitFor(t, "web page: "+addr+" is taken by another program", 1)
	if !strings.Contains(s.out.String(), "[web] listen = ") {
		t.Errorf("the taken port's line does not say how to choose another:\n%s", s.out.String())
	}
}

// TestWebResetContract: `hark web reset --data D` prints a new setup code
// as its last line, whether or not the daemon runs, and keeps the facts
// and timers: without a daemon the store keeps the code, which the page
// asks for when the daemon starts; with one, the page asks for it at once
// and the old password no longer opens it.
func TestWebResetContract(t *testing.T) {
	srv, _ := modelServer(t)
	dir := t.TempDir()
	getenv := vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": dir})
	addr := freePort(t)
	cfg := writeConfig(t, fmt.Sprintf("[tts]\nengine = \"off\"\n[web]\nlisten = %q\n", addr))
	cli := func(args ...string) string {
		t.Helper()
		return runIn(t, getenv, "", append(args, "--data", dir, "--config", cfg)...)
	}
	lastLine := func(out string) string {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		code := lines[len(lines)-1]
		if len(code) != 8 || strings.Trim(code, "0123456789") != "" {
			t.Fatalf("hark web reset printed %q, want a code of 8 digits last", out)
		}
		return code
	}
	cli("ask", "remember that the spare key is under the blue pot")
	cli("ask", "set a soup timer for 20 minutes")
	code := lastLine(cli("web", "reset"))
	if again := lastLine(cli("web", "code")); again != code {
		t.Errorf("hark web code without a daemon prints %s, the reset printed %s", again, code)
	}
	kept := func() {
		t.Helper()
		if out := cli("memory"); !strings.Contains(out, "blue pot") {
			t.Errorf("the fact is lost after the reset:\n%s", out)
		}
		if out := cli("timers"); !strings.Contains(out, "soup") {
			t.Errorf("the timer is lost after the reset:\n%s", out)
		}
	}
	kept()

	s := startRun(t, getenv, "--sim", "--data", dir, "--config", cfg)
	s.out.waitFor(t, "its first visit asks for the code "+code, 1)
	waitListening(t, addr)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	base := "http://" + addr
	post := func(path string, form url.Values) int {
		t.Helper()
		resp, err := noRedirect.PostForm(base+path, form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := post("/setup", url.Values{"code": {code}, "password": {"kitchen radio"}, "confirm": {"kitchen radio"}}); c != http.StatusSeeOther {
		t.Fatalf("setup with the reset's code: %d", c)
	}
	again := lastLine(cli("web", "reset"))
	if again == code {
		t.Error("the reset through the daemon printed the same code")
	}
	if c := post("/login", url.Values{"password": {"kitchen radio"}}); c == http.StatusSeeOther {
		t.Error("the old password still logs in after the reset")
	}
	if c := post("/setup", url.Values{"code": {again}, "password": {"new kitchen radio"}, "confirm": {"new kitchen radio"}}); c != http.StatusSeeOther {
		t.Errorf("setup with the new code: %d", c)
	}
	kept()
}

// TestWelcomeModelContract: on the running daemon's page, after the
// password, POST /setup/model with host answers with the server's models
// (from /api/tags), or an error that names the host; an address that is
// not one is refused by its field with 400.
func TestWelcomeModelContract(t *testing.T) {
	p := startPageBox(t, "")
	lines := strings.Split(strings.TrimSpace(p.cli(t, "web", "code")), "\n")
	base := "http://" + p.addr
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.PostForm(base+"/setup", url.Values{"code": {lines[len(lines)-1]}, "password": {"kitchen radio"}, "confirm": {"kitchen radio"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/setup/name" {
		t.Fatalf("setup: %d to %s, want the welcome", resp.StatusCode, resp.Header.Get("Location"))
	}
	cookie := resp.Cookies()[0]
	req, _ := http.NewRequest("GET", base+"/setup/model", nil)
	req.AddCookie(cookie)
	page, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(body)
	if page.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("GET /setup/model: %d\n%s", page.StatusCode, body)
	}
	post := func(host string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", base+"/setup/model", strings.NewReader(url.Values{"csrf": {string(m[1])}, "host": {host}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(cookie)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post(strings.TrimPrefix(p.getenv("OLLAMA_HOST"), "http://")); code != http.StatusOK || !strings.Contains(body, `value="`+testModel.Name+`"`) {
		t.Errorf("the test server's models: %d\n%s", code, body)
	}
	dead := deadPort(t)
	if code, body := post(dead); code != http.StatusOK || !strings.Contains(body, "http://"+dead) {
		t.Errorf("a host where nothing answers: %d, want its name in the page\n%s", code, body)
	}
	if code, body := post("not a host::"); code != http.StatusBadRequest || !strings.Contains(body, `class="field-error"`) {
		t.Errorf("an address that is not one: %d\n%s", code, body)
	}
}

// TestFirstWiFiInSimulation: a simulation that plays a box on no network
// opens its own Wi-Fi (pretended) and says so; the Wi-Fi page, plain HTTP
// on the page's address, lists the stand-in networks and joins "Home";
// the speaker then says where its page is; the access point's hostapd and
// dnsmasq files are written for a look.
func TestFirstWiFiInSimulation(t *testing.T) {
	p := startPageBox(t, "[sim]\nno_network = true\n")
	dir, addr, s := p.dir, p.addr, p.s
	s.out.waitFor(t, "I have no network. Join my own Wi-Fi, Hark ", 1)
	resp, err := http.Get("http://" + addr + "/wifi")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `value="Home"`) {
		t.Fatalf("the Wi-Fi page: %d\n%s", resp.StatusCode, body)
	}
	for _, f := range []string{"hostapd.conf", "dnsmasq.conf"} {
		if b, err := os.ReadFile(filepath.Join(dir, "ap", f)); err != nil || !strings.Contains(string(b), "wlan0") {
			t.Errorf("%s: %v\n%s", f, err, b)
		}
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = noRedirect.PostForm("http://"+addr+"/wifi", url.Values{"ssid": {"Home"}, "psk": {"correct horse battery"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("join: %d", resp.StatusCode)
	}
	s.out.waitFor(t, "I'm on Home now. To set me up, open 192.168.1.57:"+strings.Split(addr, ":")[1]+" in your browser.", 1)
}
