package center

import (
	"crypto/tls"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestPinnedCertificate: a node talks to the center over TLS when the
// certificate's fingerprint is the pinned one, and refuses a center whose
// certificate is not.
func TestPinnedCertificate(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	cert, fp, err := Certificate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(c.srv.Handler())
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	defer srv.Close()
	cred, _ := c.keys.Add(t.Context(), "cellar")
	good, err := NewClient(ClientOptions{URL: srv.URL, Credential: cred, Fingerprint: fp})
	if err != nil {
		t.Fatal(err)
	}
	if err := good.Ping(t.Context()); err != nil {
		t.Fatalf("the pinned center: %v", err)
	}
	_, other, _ := Certificate(t.TempDir())
	bad, _ := NewClient(ClientOptions{URL: srv.URL, Credential: cred, Fingerprint: other})
	if err := bad.Ping(t.Context()); err == nil || !strings.Contains(err.Error(), "not the pinned one") {
		t.Errorf("another certificate: %v, want it refused", err)
	}
	if _, err := NewClient(ClientOptions{URL: "http://center:8765", Credential: cred}); err == nil || !strings.Contains(err.Error(), "insecure_http") {
		t.Errorf("plain HTTP without being allowed: %v", err)
	}
	if _, err := NewClient(ClientOptions{URL: srv.URL, Credential: cred}); err == nil || !strings.Contains(err.Error(), "fingerprint") {
		t.Errorf("HTTPS without a pin: %v", err)
	}
}
