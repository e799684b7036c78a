package web

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/internal/memfile"
	"github.com/harkbox/hark/pipeline/pcm"
)

// talker answers typed questions sentence by sentence, keeps the turns
// and has a voice, as the daemon does.
type talker struct {
	mu     sync.Mutex
	turns  []control.Turn
	voiced []string
	pause  time.Duration
}

func (k *talker) Ask(ctx context.Context, q control.Question, say func(string)) (any, error) {
	if q.Text == "fail" {
		say("I can't reach my language model.")
		return nil, control.WithHint(errors.New("llm: unreachable"), "start Ollama at gpu.lan")
	}
	for _, s := range []string{"It will be sunny.", "Take a hat."} {
		time.Sleep(k.pause)
		say(s)
	}
	k.mu.Lock()
	k.turns = append(k.turns, control.Turn{ID: "typed-1", At: time.Now(), Source: "typed", Heard: q.Text, Said: "It will be sunny. Take a hat.", FirstToken: 180, Total: 420})
	k.mu.Unlock()
	return map[string]string{"reply": "It will be sunny. Take a hat."}, nil
}

func (k *talker) Turns(context.Context) ([]control.Turn, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]control.Turn(nil), k.turns...), nil
}

func (k *talker) WAV(_ context.Context, text, _ string) ([]byte, error) {
	k.mu.Lock()
	k.voiced = append(k.voiced, text)
	k.mu.Unlock()
	var w memfile.File
	pcm.WriteWAV(&w, pcm.Buffer{Rate: 16000, Channels: 1, Samples: make([]float32, 1600)}, 16)
	return w.Bytes(), nil
}

func talkRig(t *testing.T) (*rig, *talker) {
	r := newRig(t)
	k := &talker{turns: []control.Turn{{ID: "voice-1", At: time.Now(), Source: "voice", Heard: "what time is it", Said: "It's nine.", Cut: true,
		Endpoint: 900, Transcribe: 350, FirstToken: 0, FirstAudio: 700}}}
	r.srv.o.API.Asker, r.srv.o.API.Turns, r.srv.o.API.Voice = k, k, k
	return r, k
}

// TestTalk: a typed question is answered on the page without script, or
// as a stream of sentences for the page's script; a failure shows what to
// do; the last turns and their stages are listed and charted.
func TestTalk(t *testing.T) {
	r, k := talkRig(t)
	b := r.setUp()
	page := b.do("GET", "/talk", nil).Body.String()
	if !strings.Contains(page, "what time is it") || !strings.Contains(page, "listening 900 ms · transcribing 350 ms · first sound 700 ms") ||
		!strings.Contains(page, `class="s-endpoint"`) || !strings.Contains(page, "(cut short)") {
		t.Errorf("the talk page does not show the last turn and its stages:\n%s", page)
	}
	w := b.post("/talk", url.Values{"q": {"will it rain tomorrow"}})
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "It will be sunny. Take a hat.") {
		t.Errorf("the answer without script: %d\n%s", w.Code, w.Body.String())
	}
	if w := b.post("/talk", url.Values{"q": {"fail"}}); !strings.Contains(w.Body.String(), "start Ollama at gpu.lan") {
		t.Errorf("a failed answer does not say what to do:\n%s", w.Body.String())
	}
	if w := b.post("/talk", url.Values{"q": {"  "}}); w.Code != http.StatusBadRequest {
		t.Errorf("an empty question: %d", w.Code)
	}

	form := url.Values{"q": {"will it rain"}, "csrf": {b.csrf("/talk")}}
	req := httptest.NewRequest("POST", "/talk", strings.NewReader(form.Encode()))
	req.RemoteAddr = b.from
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/x-ndjson")
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: b.cookie})
	rec := httptest.NewRecorder()
	r.h.ServeHTTP(rec, req)
	var lines []string
	for sc := bufio.NewScanner(bytes.NewReader(rec.Body.Bytes())); sc.Scan(); {
		lines = append(lines, sc.Text())
	}
	want := []string{`{"sentence":"It will be sunny."}`, `{"sentence":"Take a hat."}`, `{"done":true}`}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") || rec.Header().Get("Content-Type") != "application/x-ndjson" {
		t.Errorf("the stream:\n%s\nwant\n%s", rec.Body.String(), strings.Join(want, "\n"))
	}
	if w := b.do("GET", "/talk/voice?text="+url.QueryEscape("Take a hat."), nil); w.Code != http.StatusOK || w.Header().Get("Content-Type") != "audio/wav" ||
		len(k.voiced) != 1 {
		t.Errorf("the voice: %d %s, %v", w.Code, w.Header().Get("Content-Type"), k.voiced)
	}
}

// TestBrowserTalk: in Chromium, a question typed in the talk box is
// answered sentence by sentence in the page, each sentence fetched in the
// box's voice; the turn appears in the list and the chart without a
// reload; screenshots at a phone's and a desktop's width.
func TestBrowserTalk(t *testing.T) {
	r, k := talkRig(t)
	k.pause = 300 * time.Millisecond
	srv := httptest.NewServer(r.h)
	t.Cleanup(srv.Close)
	c := startChrome(t, srv.URL)
	r.setUp()
	login(c, r)
	c.click("go to the talk page", `nav a[href="/talk"]`)
	c.step("mark the document", chromedp.Evaluate[chromedp.Void](`window.harkNotReloaded = true`))
	if n := eval[int](c, `document.querySelectorAll("#turns li").length`); n != 1 {
		t.Errorf("%d turns listed, want the one spoken", n)
	}
	c.step("ask", chromedp.SendKeys(chromedp.ID("q"), "will it rain tomorrow"), chromedp.Click(chromedp.CSS(`#talk-form button`)))
	c.step("wait for the first sentence", chromedp.Poll[chromedp.Void](`document.getElementById("reply-a").textContent === "It will be sunny."`,
		chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(10*time.Second)))
	c.step("wait for the whole answer", chromedp.Poll[chromedp.Void](`document.getElementById("reply-a").textContent === "It will be sunny. Take a hat."`,
		chromedp.WithPollingTimeout(10*time.Second)))
	c.step("wait for the new turn", chromedp.Poll[chromedp.Void](`document.querySelectorAll("#turns li").length === 2 && document.querySelectorAll("#chart g").length === 2`,
		chromedp.WithPollingTimeout(15*time.Second)))
	if first := c.text("#turns li"); !strings.Contains(first, "will it rain tomorrow") || !strings.Contains(first, "first word 180 ms") {
		t.Errorf("the newest turn shows %q", first)
	}
	if !eval[bool](c, `window.harkNotReloaded === true`) {
		t.Error("the page was reloaded")
	}
	c.step("wait for the voice", chromedp.Poll[chromedp.Void](`performance.getEntriesByType("resource").filter(e => e.name.includes("/talk/voice")).length >= 1`,
		chromedp.WithPollingTimeout(10*time.Second)))
	k.mu.Lock()
	voiced := append([]string(nil), k.voiced...)
	k.mu.Unlock()
	if len(voiced) == 0 || voiced[0] != "It will be sunny." {
		t.Errorf("the voice was asked for %q", voiced)
	}
	c.phone()
	c.noSideways("/talk")
	c.screenshot("talk-phone")
	c.desktop()
	c.screenshot("talk-desktop")
}
