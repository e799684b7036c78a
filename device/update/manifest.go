// Package update is Hark's over-the-air update agent. It reads a manifest
// from an update server on the LAN, downloads the bundle it names (with
// progress, resuming a broken download, checking size and sha256), hands
// the bundle to RAUC over its D-Bus API, and reboots into the new slot only
// when the speaker is idle. RAUC checks the bundle's signature against the
// box's keyring; the agent refuses what is not for this box or not newer.
package update

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Manifest describes the newest bundle an update server offers, as written
// by the image build beside the bundle (manifest.json).
type Manifest struct {
	Version    string `json:"version"`
	URL        string `json:"url"` // the bundle; relative to the manifest's own URL
	Size       int64  `json:"size"`
	SHA256     string `json:"sha256"`
	Compatible string `json:"compatible,omitempty"`
}

// maxManifest bounds what is read of a manifest: it is a few lines.
const maxManifest = 64 << 10

// FetchManifest reads and checks the manifest at manifestURL. The bundle URL
// it returns is absolute.
func FetchManifest(ctx context.Context, c *http.Client, manifestURL string) (Manifest, error) {
	base, err := url.Parse(manifestURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") {
		return Manifest{}, fmt.Errorf("update manifest: %q is not an http(s) URL", Shown(manifestURL))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, manifestURL, nil)
	if err != nil {
		return Manifest{}, fmt.Errorf("update manifest: %w", err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return Manifest{}, fmt.Errorf("update manifest: the update server cannot be reached: %w", err)
	}
	defer resp.Body.Close()
	manifestURL = Shown(manifestURL) // as the errors below quote it
	if resp.StatusCode != http.StatusOK {
		return Manifest{}, fmt.Errorf("update manifest: %s answered %s", manifestURL, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxManifest+1))
	if err != nil {
		return Manifest{}, fmt.Errorf("update manifest: reading %s: %w", manifestURL, err)
	}
	if len(body) > maxManifest {
		return Manifest{}, fmt.Errorf("update manifest: %s is larger than %d bytes: not a manifest", manifestURL, maxManifest)
	}
	m, err := ParseManifest(body)
	if err != nil {
		return Manifest{}, fmt.Errorf("update manifest %s: %w", manifestURL, err)
	}
	ref, err := url.Parse(m.URL)
	if err != nil {
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err // without the address, which it quotes whole
		}
		return Manifest{}, fmt.Errorf("update manifest %s: bundle url %q: %w", manifestURL, Shown(m.URL), err)
	}
	m.URL = base.ResolveReference(ref).String()
	return m, nil
}

// Shown is an address as an error, the record of an install, or hark
// update's offer quotes it: its password, if it has one, replaced by "xxxxx" (as
// url.URL.Redacted writes it), even when it does not parse; anything else,
// a file's path among them, as it is. Errors are logged, and shown in the
// update status and on the page.
func Shown(address string) string {
	if u, err := url.Parse(address); err == nil {
		if _, ok := u.User.Password(); ok {
			return u.Redacted()
		}
		return address
	}
	start := 0
	if i := strings.Index(address, "://"); i >= 0 {
		start = i + 3
	}
	end := len(address)
	if i := strings.IndexAny(address[start:], "/?#"); i >= 0 {
		end = start + i
	}
	at := strings.LastIndexByte(address[start:end], '@')
	if at < 0 {
		return address
	}
	at += start
	colon := strings.IndexByte(address[start:at], ':')
	if colon < 0 {
		return address
	}
	return address[:start+colon+1] + "xxxxx" + address[at:]
}

// ParseManifest decodes a manifest and checks every field.
func ParseManifest(b []byte) (Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("not a manifest: %w", err)
	}
	var problems []string
	if _, err := ParseVersion(m.Version); err != nil {
		problems = append(problems, err.Error())
	}
	if m.URL == "" {
		problems = append(problems, "no bundle url")
	}
	if m.Size <= 0 {
		problems = append(problems, fmt.Sprintf("size %d is not a bundle size", m.Size))
	}
	if h, err := hex.DecodeString(m.SHA256); err != nil || len(h) != 32 {
		problems = append(problems, fmt.Sprintf("sha256 %q is not 64 hex digits", m.SHA256))
	}
	if len(problems) > 0 {
		return Manifest{}, errors.New(strings.Join(problems, "; "))
	}
	m.SHA256 = strings.ToLower(m.SHA256)
	return m, nil
}
