package update

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const sum = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

func TestParseManifest(t *testing.T) {
	m, err := ParseManifest([]byte(`{"version":"1.4.2","url":"hark-1.4.2.raucb","size":1234,"sha256":"` + strings.ToUpper(sum) + `","compatible":"hark-rpi4-64"}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.Version != "1.4.2" || m.Size != 1234 || m.SHA256 != sum || m.Compatible != "hark-rpi4-64" {
		t.Errorf("parsed %+v", m)
	}
	for _, c := range []struct{ in, want string }{
		{`{"version":"latest","url":"b","size":1,"sha256":"` + sum + `"}`, `version "latest" is not a release number`},
		{`{"version":"1.0","size":1,"sha256":"` + sum + `"}`, "no bundle url"},
		{`{"version":"1.0","url":"b","size":0,"sha256":"` + sum + `"}`, "size 0"},
		{`{"version":"1.0","url":"b","size":1,"sha256":"abc"}`, `sha256 "abc" is not 64 hex digits`},
		{`{"version":"1.0","url":"b","size":1,"sha256":"` + sum + `","sha":"x"}`, `unknown field "sha"`},
		{`<html>`, "not a manifest"},
		// The version names the downloaded file: a manifest from a server
		// on the LAN must not write anywhere else.
		{`{"version":"1.4.2-x/../../../../etc/cron.d/job","url":"b","size":1,"sha256":"` + sum + `"}`, "is not a release number"},
		{`{"version":"1.4.2-rc1..","url":"b","size":1,"sha256":"` + sum + `"}`, "is not a release number"},
	} {
		if _, err := ParseManifest([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", c.in, err, c.want)
		}
	}
}

func TestFetchManifestResolvesTheBundleURL(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/hark/rpi4/manifest.json" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"version":"2.0.0","url":"hark-2.0.0.raucb","size":10,"sha256":"` + sum + `"}`))
	}))
	defer srv.Close()
	m, err := FetchManifest(t.Context(), srv.Client(), srv.URL+"/hark/rpi4/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if want := srv.URL + "/hark/rpi4/hark-2.0.0.raucb"; m.URL != want {
		t.Errorf("bundle URL %s, want %s", m.URL, want)
	}
	_, err = FetchManifest(t.Context(), srv.Client(), srv.URL+"/nothing.json")
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing manifest: %v, want the 404 named", err)
	}
	srv.Close()
	_, err = FetchManifest(t.Context(), http.DefaultClient, srv.URL+"/hark/rpi4/manifest.json")
	if err == nil || !strings.Contains(err.Error(), "cannot be reached") {
		t.Errorf("dead server: %v", err)
	}
	if _, err := FetchManifest(t.Context(), http.DefaultClient, "updates.lan/manifest.json"); err == nil || !strings.Contains(err.Error(), "not an http(s) URL") {
		t.Errorf("bad URL: %v", err)
	}
}

func TestVersionOrder(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"1.4.2", "1.4.10", -1},
		{"v2.0", "1.99.99", 1},
		{"1.4", "1.4.0", 0},
		{"1.4.0-rc1", "1.4.0", -1},
		{"1.4.0-rc2", "1.4.0-rc1", 1},
		{"0.9.0", "0.10.0", -1},
	} {
		a, err := ParseVersion(c.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ParseVersion(c.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Compare(b); got != c.want {
			t.Errorf("%s vs %s: %d, want %d", c.a, c.b, got, c.want)
		}
	}
	for _, good := range []string{"1.4.0-rc.1", "1.4.0-beta-2", "1.4.0+build.7", "1.4.0-rc.1+20261127"} {
		if _, err := ParseVersion(good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
	for _, bad := range []string{"", "latest", "1..2", "1.x", "1.0-", "1.0-a/b", "1.0-a..b", "1.0-a b"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("%q parsed as a version", bad)
		}
	}
}
