package web

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/harkbox/hark/device/probe"
	"github.com/harkbox/hark/reply/ollamatest"
)

// modelServer is an Ollama test server with two models, whose model
// answers the test question.
func modelServer(t *testing.T) *ollamatest.Server {
	t.Helper()
	srv := ollamatest.New(ollamatest.Model{Name: "llama3.2:3b", Family: "llama", ParameterSize: "3.2B"},
		ollamatest.Model{Name: "qwen3:1.7b", Family: "qwen3", ParameterSize: "1.7B"})
	t.Cleanup(srv.Close)
	srv.Respond(func(ollamatest.ChatRequest) ollamatest.Reply {
		return ollamatest.Reply{Content: "Hello, household: I am ready to help."}
	})
	return srv
}

// TestWelcomeModelStep: POST /setup/model with a host answers with the
// server's models, or an error that names the host; an address that is
// not one is refused by its field (400); with a model chosen the test
// question is asked and both are kept.
func TestWelcomeModelStep(t *testing.T) {
	r := newRig(t)
	r.srv.o.API.Probe = probe.Models{}
	b := r.setUp()
	srv := modelServer(t)
	host := strings.TrimPrefix(srv.URL, "http://")

	w := b.post("/setup/model", url.Values{"host": {host}})
	body := w.Body.String()
	if w.Code != http.StatusOK || !strings.Contains(body, `value="llama3.2:3b"`) || !strings.Contains(body, `value="qwen3:1.7b"`) ||
		!strings.Contains(body, "2 models on "+srv.URL) {
		t.Errorf("the models of %s: %d\n%s", host, w.Code, body)
	}

	w = b.post("/setup/model", url.Values{"host": {"not a host::"}})
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `id="e-host"`) || !strings.Contains(w.Body.String(), "is not a host name or an IP address") {
		t.Errorf("an address that is not one: %d\n%s", w.Code, w.Body.String())
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	w = b.post("/setup/model", url.Values{"host": {dead}})
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "No model server answers at http://"+dead) {
		t.Errorf("a host where nothing answers: %d\n%s", w.Code, w.Body.String())
	}
	if _, kept := r.settings.saved["ollama.host"]; kept {
		t.Error("an address was kept before a model answered")
	}

	w = b.post("/setup/model", url.Values{"host": {host}, "model": {"qwen3:1.7b"}})
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "Hello, household: I am ready to help.") {
		t.Errorf("the test question: %d\n%s", w.Code, w.Body.String())
	}
	if r.settings.saved["ollama.host"] != host || r.settings.saved["ollama.model"] != "qwen3:1.7b" {
		t.Errorf("kept %v, want the host and the model", r.settings.saved)
	}
}

// TestWelcomeSteps: each step keeps its settings through the settings'
// checks (a refused one stands by its field), skip keeps nothing, and Home
// Assistant is kept only when it accepted the token.
func TestWelcomeSteps(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	if w := b.do("GET", "/setup/name", nil); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "Step 1 of") {
		t.Fatalf("the first step: %d\n%s", w.Code, w.Body.String())
	}
	for _, tc := range []struct {
		path string
		form url.Values
		next string
		want map[string]string
	}{
		{"/setup/name", url.Values{"assistant.name": {"Friday"}}, "/setup/room", map[string]string{"assistant.name": "Friday"}},
		{"/setup/room", url.Values{"skip": {"1"}, "assistant.room": {"attic"}}, "/setup/time", map[string]string{"assistant.room": ""}},
		{"/setup/place", url.Values{"assistant.place": {"Porto"}}, "/setup/language", map[string]string{"assistant.place": "Porto", "weather.location": "Porto"}},
		{"/setup/language", url.Values{"whisper.language": {"de"}}, "/setup/model", map[string]string{"whisper.language": "de", "tts.voice": "de"}},
	} {
		w := b.post(tc.path, tc.form)
		if w.Code != http.StatusSeeOther || w.Header().Get("Location") != tc.next {
			t.Errorf("%s: %d to %s, want on to %s\n%s", tc.path, w.Code, w.Header().Get("Location"), tc.next, w.Body.String())
		}
		for k, v := range tc.want {
			if r.settings.saved[k] != v {
				t.Errorf("%s kept %s = %q, want %q", tc.path, k, r.settings.saved[k], v)
			}
		}
	}
	// the simulation has no speaker to test: the step after Home Assistant is the end
	w := b.post("/setup/home", url.Values{"address": {"http://ha.lan:8123"}, "token": {"bad-token"}})
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "refused the token") || strings.Contains(w.Body.String(), "bad-token") {
		t.Errorf("a refused token: %d\n%s", w.Code, w.Body.String())
	}
	w = b.post("/setup/home", url.Values{"address": {"http://ha.lan:8123"}, "token": {"good-token"}})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/setup/done" {
		t.Errorf("an accepted token: %d %s", w.Code, w.Header().Get("Location"))
	}
	if done := b.do("GET", "/setup/done", nil).Body.String(); !strings.Contains(done, "Friday") || !strings.Contains(done, "Start using it") {
		t.Errorf("the last step:\n%s", done)
	}
	if w := b.post("/setup/done", nil); w.Code != http.StatusOK || r.settings.restarts != 1 {
		t.Errorf("finishing: %d, %d restarts", w.Code, r.settings.restarts)
	}
	if w := b.do("GET", "/setup/nowhere", nil); w.Code != http.StatusNotFound {
		t.Errorf("a step that is not one: %d", w.Code)
	}
}

// TestBrowserWelcome walks the welcome in Chromium as a person would, the
// model step against the Ollama test server: the browser's time zone
// filled in, the models listed, one picked and the test question
// answered; screenshots of the model step at a phone's and a desktop's
// width.
func TestBrowserWelcome(t *testing.T) {
	r := newRig(t)
	r.srv.o.API.Probe = probe.Models{}
	srv := httptest.NewServer(r.h)
	t.Cleanup(srv.Close)
	c := startChrome(t, srv.URL)
	models := modelServer(t)
	host := strings.TrimPrefix(models.URL, "http://")

	c.open("/")
	code, _ := r.srv.SetupCode()
	c.step("fill in the setup form",
		chromedp.SendKeys(chromedp.ID("code"), code),
		chromedp.SendKeys(chromedp.ID("password"), "correct horse"),
		chromedp.SendKeys(chromedp.ID("confirm"), "correct horse"))
	c.click("set up", `form[action="/setup"] button[type="submit"]`)
	if h := c.text("main h1"); h != "What shall it be called?" {
		t.Fatalf("after the password the page is %q, want the welcome's first step", h)
	}
	c.step("name it", chromedp.Clear(chromedp.ID("name")), chromedp.SendKeys(chromedp.ID("name"), "Friday"))
	c.click("keep the name", `form[action="/setup/name"] button:not([name])`)
	c.click("skip the room", `form[action="/setup/room"] button[name="skip"]`)
	if zone := eval[string](c, `document.getElementById("zone").value`); zone == "" {
		t.Error("the browser's time zone is not filled in")
	}
	c.step("pick a time zone", chromedp.Clear(chromedp.ID("zone")), chromedp.SendKeys(chromedp.ID("zone"), "Europe/Lisbon"))
	c.click("keep the time zone", `form[action="/setup/time"] button:not([name])`)
	c.step("say where", chromedp.SendKeys(chromedp.ID("place"), "Lisbon, Portugal"))
	c.click("keep the place", `form[action="/setup/place"] button:not([name])`)
	c.step("choose French", chromedp.Click(chromedp.CSS(`input[name="whisper.language"][value="fr"]`)))
	c.click("keep the language", `form[action="/setup/language"] button:not([name])`)

	if h := c.text("main h1"); h != "Where does it think?" {
		t.Fatalf("the page is %q, want the model step", h)
	}
	c.step("type a wrong address", chromedp.Clear(chromedp.ID("host")), chromedp.SendKeys(chromedp.ID("host"), "not a host::"))
	if code := c.clickFor("look", "#look"); code != http.StatusBadRequest {
		t.Errorf("a wrong address: the page answered %d, want 400", code)
	}
	if e := c.text("#e-host"); !strings.Contains(e, "is not a host name or an IP address") {
		t.Errorf("a wrong address says %q", e)
	}
	c.step("type the server's address", chromedp.Clear(chromedp.ID("host")), chromedp.SendKeys(chromedp.ID("host"), host))
	c.click("look for models", "#look")
	if l := c.text("#models legend"); !strings.HasPrefix(l, "2 models on "+models.URL) {
		t.Errorf("the models are listed as %q", l)
	}
	c.step("pick qwen", chromedp.Click(chromedp.CSS(`input[name="model"][value="qwen3:1.7b"]`)))
	c.phone()
	c.noSideways("the model step")
	c.screenshot("welcome-model-phone")
	c.desktop()
	c.screenshot("welcome-model-desktop")
	c.click("try it", "#try")
	if a := c.text("#trial"); !strings.Contains(a, "Hello, household: I am ready to help.") {
		t.Errorf("the test question's answer shows as %q", a)
	}
	if r.settings.saved["ollama.model"] != "qwen3:1.7b" || r.settings.saved["ollama.host"] != host {
		t.Errorf("kept %v", r.settings.saved)
	}
	c.click("go on", `a.button[href="/setup/home"]`)
	c.click("skip Home Assistant", `form[action="/setup/home"] button[name="skip"]`)
	if main := c.text("main"); !strings.Contains(main, "Friday") || !strings.Contains(main, "Europe/Lisbon") || !strings.Contains(main, "qwen3:1.7b") {
		t.Errorf("the last step shows:\n%s", main)
	}
	c.screenshot("welcome-done-desktop")
	c.click("start using it", `form[action="/setup/done"] button`)
	if r.settings.restarts != 1 || r.settings.running["assistant.name"] != "Friday" {
		t.Errorf("after finishing: %d restarts, name %q", r.settings.restarts, r.settings.running["assistant.name"])
	}
}
