package box

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/device/mdns"
	"github.com/harkbox/hark/device/web"
	"github.com/harkbox/hark/storage"
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

// TestClaimedIssuesTheCertificateAside: mDNS tells the page the name it
// claimed from its responder's loop, which must not wait for the page's
// certificate to be issued again (a key read, a signature, a file
// written). Claimed returns at once; the certificate is issued aside,
// served at once when it is, and the page shows its fingerprint. The box
// stopping waits for an issue under way.
func TestClaimedIssuesTheCertificateAside(t *testing.T) {
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := free.Addr().(*net.TCPAddr).Port
	free.Close()
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dir := t.TempDir()
	responders := make(chan *mdns.Responder, 1)
	pages := make(chan *web.Server, 1)
	entered, release := make(chan string, 1), make(chan struct{})
	var finished bool // set by claimed's caller's goroutine, read after serve returned
	ps := pageServing{cfg: config.Web{Listen: ":" + strconv.Itoa(port), TLS: "on", MDNS: true}, dataDir: dir, log: slog.New(slog.DiscardHandler),
		ready: func(srv *web.Server) { pages <- srv },
		announce: func(ctx context.Context, _ *slog.Logger, r *mdns.Responder) {
			responders <- r
			<-ctx.Done()
		},
		claimed: func(host string) { // told after the certificate was issued: it stands in for a slow issue
			entered <- host
			<-release
			finished = true
		}}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	served := make(chan struct{})
	status := health.New(health.Options{Version: "test", State: "running", Log: slog.New(slog.DiscardHandler)})
	go func() {
		defer close(served)
		ps.serve(ctx, web.Options{API: control.API{Box: status}, Store: db.Settings()})
	}()
	srv, r := <-pages, <-responders
	before := srv.Fingerprint()

	claimed := hostLabel() + "-2"
	returned := make(chan struct{})
	go func() {
		r.Claimed(claimed)
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(5 * time.Second):
		close(release)
		t.Fatal("Claimed waited for the page's certificate to be issued again")
	}
	if got := <-entered; got != claimed {
		t.Errorf("the page was told %q, want %q", got, claimed)
	}
	pem, err := os.ReadFile(filepath.Join(dir, "web", "web.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	c, err := tls.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), &tls.Config{ServerName: claimed + ".local", RootCAs: pool})
	if err != nil {
		t.Errorf("by the claimed name, once issued: %v", err)
	} else {
		c.Close()
	}
	if fp := srv.Fingerprint(); fp == before {
		t.Errorf("the page shows the old fingerprint %q", fp)
	}

	cancel()
	select {
	case <-served:
		t.Error("the page stopped while its certificate was still being issued")
	case <-time.After(200 * time.Millisecond): // a correct serve passes whatever the wait
	}
	close(release)
	<-served
	if !finished {
		t.Error("the page stopped before the issue under way ended")
	}
}

// TestAsideInOrder: names handed aside are done one after another in the
// order given, while the hand returns at once; once ctx is done the one
// under way ends, the wait group waits for it, and the others are dropped.
func TestAsideInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		release := make(chan struct{})
		var done []string
		hand := aside(ctx, &wg, func(host string) {
			<-release
			done = append(done, host)
		})
		for _, h := range []string{"hark-2", "hark-3", "hark-4"} {
			hand(h) // a hand that waited would leave the bubble blocked
		}
		release <- struct{}{}
		release <- struct{}{}
		synctest.Wait()
		if !slices.Equal(done, []string{"hark-2", "hark-3"}) {
			t.Errorf("done %v, want hark-2 then hark-3", done)
		}
		cancel()
		waited := false
		go func() {
			wg.Wait()
			waited = true
		}()
		synctest.Wait()
		if waited {
			t.Error("the wait group did not wait for the name under way")
		}
		close(release)
		synctest.Wait()
		if !waited || !slices.Equal(done, []string{"hark-2", "hark-3", "hark-4"}) {
			t.Errorf("after the stop: waited %v, done %v; want hark-4 ended, and waited for", waited, done)
		}
		hand("hark-5")
		synctest.Wait()
		if len(done) != 3 {
			t.Errorf("a name handed after the stop was done: %v", done)
		}
	})
}

// TestCertificateCoversFewClaimedNames: a machine on the LAN answers for
// every name mDNS claims once it is claimed, and the box steps on to
// hark-2, hark-3, ... for as long as it keeps doing so. The page's
// certificate covers the box's own names and the last few claimed, not
// every name ever claimed: it does not grow on the card and in every
// handshake with each one.
func TestCertificateCoversFewClaimedNames(t *testing.T) {
	dir := t.TempDir()
	ps := pageServing{cfg: config.Web{Listen: ":0", TLS: "on", MDNS: true}, dataDir: dir, log: slog.New(slog.DiscardHandler)}
	cert, _, err := ps.certificate()
	if err != nil {
		t.Fatal(err)
	}
	const claimed = 40
	for i := 2; i <= claimed; i++ {
		if _, _, err := cert.cover("hark-" + strconv.Itoa(i) + ".local"); err != nil {
			t.Fatal(err)
		}
	}
	leaf, err := x509.ParseCertificate(cert.cur.Load().Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	for _, name := range []string{host, host + ".local", "hark-" + strconv.Itoa(claimed) + ".local"} {
		if err := leaf.VerifyHostname(name); err != nil {
			t.Errorf("the certificate after %d names claimed does not cover %s: %v", claimed-1, name, err)
		}
	}
	if n := len(leaf.DNSNames); n > 3+maxClaimedNames {
		t.Errorf("the certificate covers %d names after %d claimed: %q; want its own and the last %d claimed", n, claimed-1, leaf.DNSNames, maxClaimedNames)
	}
}
