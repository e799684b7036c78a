package box

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/harkbox/hark/device/box/config"
)

// TestCertificateCoversTheClaimedName: when mDNS claims hark-2.local for
// the page (another machine has hark.local), the page's certificate is
// issued again, with the same key, for that name too, and the listener
// already open serves it: a browser opening https://hark-2.local finds
// no name mismatch, and the page shows the new fingerprint.
func TestCertificateCoversTheClaimedName(t *testing.T) {
	dir := t.TempDir()
	ps := pageServing{cfg: config.Web{Listen: ":0", TLS: "on", MDNS: true}, dataDir: dir, log: slog.New(slog.DiscardHandler)}
	cert, fp, err := ps.certificate()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "the page") }),
		ErrorLog: log.New(io.Discard, "", 0)}
	go hs.Serve(tls.NewListener(l, cert.config()))
	t.Cleanup(func() { hs.Close() })

	crt := filepath.Join(dir, "web", "web.crt")
	// open is a browser that trusts the certificate kept on disk opening
	// the page by name.
	open := func(name string) (*x509.Certificate, error) {
		pem, err := os.ReadFile(crt)
		if err != nil {
			t.Fatal(err)
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		c, err := tls.Dial("tcp", l.Addr().String(), &tls.Config{ServerName: name, RootCAs: pool})
		if err != nil {
			return nil, err
		}
		defer c.Close()
		return c.ConnectionState().PeerCertificates[0], nil
	}
	host, _ := os.Hostname()
	before, err := open(host + ".local")
	if err != nil {
		t.Fatalf("by the machine's name: %v", err)
	}

	var page toldPage
	claimed := hostLabel() + "-2"
	ps.named(&page, hostLabel(), 8080, cert)(claimed)
	after, err := open(claimed + ".local")
	if err != nil {
		t.Fatalf("by the claimed name: %v", err)
	}
	if _, err := open(host + ".local"); err != nil {
		t.Errorf("by the machine's name, after: %v", err)
	}
	if !bytes.Equal(before.RawSubjectPublicKeyInfo, after.RawSubjectPublicKeyInfo) {
		t.Error("the certificate issued again has another key")
	}
	if page.fp == "" || page.fp == fp {
		t.Errorf("the page shows the fingerprint %q, want the new certificate's (the old was %q)", page.fp, fp)
	}

	// A name the certificate covers issues none.
	ps.named(&page, hostLabel(), 8080, cert)(claimed)
	again, err := open(claimed + ".local")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Raw, after.Raw) {
		t.Error("a name already covered issued another certificate")
	}
}
