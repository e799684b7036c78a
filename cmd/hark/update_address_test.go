package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/harkbox/hark/device/update/rauctest"
)

// TestUpdateCheckNamesNoPassword: the update server's address may carry
// a password; the update timer's check prints the bundle it is offered,
// whose address is the manifest's, into the journal: without the
// password.
func TestUpdateCheckNamesNoPassword(t *testing.T) {
	_, bus := rauctest.Booted(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/hark/manifest.json", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"version":"1.3.0","url":"hark-1.3.0.raucb","size":10,"sha256":"%s","compatible":"hark-rpi4-64"}`, strings.Repeat("ab", 32))
	})
	srv := httptest.NewServer(mux) // no bundle: the download fails
	defer srv.Close()
	manifest := strings.Replace(srv.URL, "://", "://hark:pw-of-the-updates@", 1) + "/hark/manifest.json"
	cfg := writeConfig(t, fmt.Sprintf("[update]\nmanifest = %q\nrauc_bus = %q\n", manifest, bus))
	code, out := hark(t, "update", "check", "--install", "--config", cfg, "--data", t.TempDir())
	if code == 0 || !strings.Contains(out, "offered  1.3.0") || strings.Contains(out, "pw-of-the-updates") {
		t.Errorf("check --install: %d, want the offer and the failed download without the password:\n%s", code, out)
	}
}
