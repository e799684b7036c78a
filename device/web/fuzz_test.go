package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// formPaths are the page's form targets a signed-in browser may post to;
// {x} is the fuzzed path segment. /logout and /logout-all are left out:
// they end the session the fuzzer posts with.
var formPaths = []string{
	"/timers", "/timers/{x}/cancel", "/memory/{x}/forget", "/conversations/{x}/delete", "/conversations/delete",
	"/secrets", "/secrets/{x}/clear", "/commands/{x}/setup", "/commands/{x}/setup/answer",
	"/settings", "/settings/restart", "/updates/check", "/updates/install", "/updates/upload", "/updates/rollback",
	"/talk", "/alerts/stop", "/network/wifi", "/network/forget", "/setup/{x}", "/account/password",
	"/setup", "/login", wifiPath,
}

// FuzzForms posts whatever a browser might send to every form of the page,
// with the session's own form token, so the fuzzer reaches the handlers
// rather than the token check: the page answers each with a status that
// names the problem or redirects, never an internal error or a panic.
func FuzzForms(f *testing.F) {
	for i := range formPaths {
		for _, seed := range []struct{ seg, body string }{
			{"c1", "label=tea&minutes=5"},
			{"f1", "name=GITHUB_TOKEN&value=abc"},
			{"..%2f..", "key=audio.volume&value=200"},
			{"name", "ssid=%ff%fe&password=" + strings.Repeat("x", 70)},
			{"", "%zz&&=="},
			{"\x00", "text=" + url.QueryEscape("<script>alert(1)</script>")},
		} {
			f.Add(i, seed.seg, seed.body)
		}
	}
	r := newRig(f)
	b := r.setUp()
	token := b.csrf("/account")
	f.Fuzz(func(t *testing.T, which int, seg, body string) {
		if which < 0 || which >= len(formPaths) {
			return
		}
		path := strings.ReplaceAll(formPaths[which], "{x}", url.PathEscape(seg))
		req := httptest.NewRequest(http.MethodPost, "http://example.com"+path, strings.NewReader(body+"&csrf="+url.QueryEscape(token)))
		req.RemoteAddr = b.from
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: b.cookie})
		w := httptest.NewRecorder()
		r.h.ServeHTTP(w, req)
		if w.Code == http.StatusInternalServerError || w.Code == 0 {
			t.Errorf("POST %s %q: %d %s", path, body, w.Code, w.Body.String())
		}
	})
}
