package update

import (
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
