package update

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The update server's address may carry a password (update.manifest =
// "https://hark:…@updates.lan/manifest.json"): an error quotes the
// address without it, as the errors reach the log, the update status and
// the page.
func TestErrorsQuoteNoPassword(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	withPassword := strings.Replace(srv.URL, "://", "://hark:pw-of-the-updates@", 1)
	_, fetched := FetchManifest(t.Context(), srv.Client(), withPassword+"/manifest.json")
	d := Downloader{HTTP: srv.Client(), Dir: t.TempDir(), Backoff: time.Millisecond}
	_, downloaded := d.Fetch(t.Context(), Manifest{Version: "2.0.0", URL: withPassword + "/hark-2.0.0.raucb", Size: 10}, nil)
	_, notHTTP := FetchManifest(t.Context(), srv.Client(), "ftp://hark:pw-of-the-updates@updates.lan/manifest.json")
	_, typo := FetchManifest(t.Context(), srv.Client(), strings.Replace("http://hark:pw-of-the-updates@updates_lan/", "_", " ", 1))
	for _, err := range []error{fetched, downloaded, notHTTP, typo} {
		if err == nil {
			t.Fatal("no error")
		}
		if strings.Contains(err.Error(), "pw-of-the-updates") || !strings.Contains(err.Error(), "hark:") {
			t.Errorf("error %q: want the address without its password", err)
		}
	}
	for _, err := range []error{fetched, downloaded} {
		if !strings.Contains(err.Error(), "404") {
			t.Errorf("error %q: want the server's answer", err)
		}
	}
}

// The install kept for the page and the status says where the bundle came
// from: the update server's address without its password.
func TestLastInstallNamesNoPassword(t *testing.T) {
	bundle := []byte("hark 1.4.0")
	sum := sha256.Sum256(bundle)
	mux := http.NewServeMux()
	mux.HandleFunc("/manifest.json", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"version":"1.4.0","url":"hark-1.4.0.raucb","size":%d,"sha256":"%x"}`, len(bundle), sum)
	})
	mux.HandleFunc("/hark-1.4.0.raucb", func(w http.ResponseWriter, r *http.Request) { w.Write(bundle) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	svc := NewService(&Agent{RAUC: &installer{version: "1.4.0"}, Manifest: strings.Replace(srv.URL, "://", "://hark:pw-of-the-updates@", 1) + "/manifest.json",
		Download: Downloader{Dir: t.TempDir(), HTTP: srv.Client()}})
	if _, err := svc.Install(t.Context(), "", nil); err != nil {
		t.Fatal(err)
	}
	if got := svc.LastSentence(time.UTC); strings.Contains(got, "pw-of-the-updates") || !strings.Contains(got, "installed 1.4.0 from http://hark:") {
		t.Errorf("the last install is said %q: want its source without the password", got)
	}
}
