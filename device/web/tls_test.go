package web

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// Over HTTPS the setup page shows the certificate's fingerprint, as a
// browser's certificate viewer writes it, so the first visitor can tell
// the box's certificate from an impostor's; and the session cookie is
// Secure, so a browser never sends it over plain HTTP.
func TestSetupShowsTheFingerprintAndTheCookieIsSecure(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tls    bool
		secure bool
	}{{"https", true, true}, {"plain http", false, false}} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			r.srv.o.Fingerprint = "sha256:0a1b2c3d4e5f"
			code, _ := r.srv.SetupCode()
			get := httptest.NewRequest("GET", "/setup", nil)
			get.RemoteAddr = r.browser().from
			page := httptest.NewRecorder()
			r.h.ServeHTTP(page, get)
			if got, want := page.Body.String(), "0A:1B:2C:3D:4E:5F"; !strings.Contains(got, want) {
				t.Errorf("the setup page does not show the fingerprint %s:\n%s", want, got)
			}
			form := url.Values{"code": {code}, "password": {"correct horse"}, "confirm": {"correct horse"}}
			req := httptest.NewRequest("POST", "/setup", strings.NewReader(form.Encode()))
			req.RemoteAddr = r.browser().from
			if tc.tls {
				req.TLS = &tls.ConnectionState{}
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			w := httptest.NewRecorder()
			r.h.ServeHTTP(w, req)
			if w.Code != http.StatusSeeOther {
				t.Fatalf("setup over %s: %d %s", tc.name, w.Code, w.Body.String())
			}
			c := w.Result().Cookies()
			if len(c) != 1 {
				t.Fatalf("got %d cookies, want 1", len(c))
			}
			if c[0].Secure != tc.secure || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode {
				t.Errorf("cookie over %s: Secure %v HttpOnly %v SameSite %v, want Secure %v, HttpOnly, Strict", tc.name, c[0].Secure, c[0].HttpOnly, c[0].SameSite, tc.secure)
			}
		})
	}
}
