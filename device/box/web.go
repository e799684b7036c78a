package box

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	stdlog "log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/mdns"
	"github.com/harkbox/hark/device/network"
	"github.com/harkbox/hark/device/web"
	"github.com/harkbox/hark/internal/atomicfile"
	"github.com/harkbox/hark/internal/listener"
	"github.com/harkbox/hark/internal/ratelog"
	"github.com/harkbox/hark/locale"
)

// page is the web page once the daemon serves it; nil before and without.
type page struct {
	listen string
	srv    atomic.Pointer[web.Server]
	// hotspot is the box's own access point, when it may open one.
	hotspot atomic.Pointer[network.Hotspot]
	// named is the page's mDNS responder while it announces the page.
	named atomic.Pointer[mdns.Responder]
}

// rename announces the page under the assistant's new name and room, at
// once, when it is announced at all.
func (p *page) rename(name, room string, log *slog.Logger) {
	if r := p.named.Load(); r != nil {
		if err := r.Rename(instanceName(name, room)); err != nil {
			log.Warn("the page keeps its name on the network", "err", err)
		}
	}
}

// pageServing is how the web page is served: where, encrypted or not.
type pageServing struct {
	cfg     config.Web
	dataDir string
	log     *slog.Logger
	// show, when set, tells the person at the terminal the page's address
	// and its setup code; ready gets the page once it listens.
	show  func(string)
	ready func(*web.Server)
	// instance is the box's name in lists of services on the network;
	// announced, when set, gets the responder that announces it.
	instance  string
	announced func(*mdns.Responder)
	// also are services the page's responder announces beside the page
	// (the center's): one responder claims one host name for all of
	// them. When the page cannot be served they are announced alone.
	also []mdns.Service
	// announce serves a responder until ctx is done; nil: serveMDNS
	// (tests replace it).
	announce func(ctx context.Context, log *slog.Logger, r *mdns.Responder)
	// claimed, when set, gets the host name (without .local) mDNS claims
	// for the page, each time it claims another.
	claimed func(host string)
	// codeFile, when set, keeps the setup code in a file only this user
	// may read, and show names the file instead of the code: show's lines
	// go to a log others may read (the center's output in the journal).
	codeFile string
}

// perAddress bounds the connections one address holds open to the page,
// the captive page or the center, and inAll those of all addresses
// together: a flood from many addresses costs the page, not the box
// (each connection may hold its buffers and up to maxHeader).
const (
	perAddress = 32
	inAll      = 256
)

// maxHeader bounds a request's headers to the page, the captive page and
// the center: a browser's or a node's are a few KiB. Go's default, 1 MiB,
// let each connection of an address's perAddress hold a megabyte or two.
const maxHeader = 16 << 10

// serve serves the page until ctx is done: over HTTPS with the box's own
// certificate unless [web] tls says otherwise (plain HTTP on the same port
// is sent on to HTTPS), with bounded reads, idle connections and
// connections per address. An address in use costs the page, not the box.
func (ps pageServing) serve(ctx context.Context, o web.Options) {
	log := ps.log
	listen := ps.cfg.Listen
	if listen == "" {
		return
	}
	announce := ps.announce
	if announce == nil {
		announce = serveMDNS
	}
	// alone announces the services beside the page without it, when the
	// page cannot be served.
	alone := func() {
		if len(ps.also) > 0 {
			announce(ctx, log, &mdns.Responder{Host: hostLabel(), Services: ps.also, Log: log})
		}
	}
	encrypt := ps.encrypted()
	var cert *pageCert
	if encrypt {
		c, fp, err := ps.certificate()
		if err != nil {
			log.Error("no web page: its certificate", "err", err)
			alone()
			return
		}
		cert, o.Fingerprint = c, fp
	}
	o.Names = ps.cfg.Names
	srv, err := web.New(ctx, o)
	if err != nil {
		log.Error("no web page", "err", err)
		alone()
		return
	}
	l, err := net.Listen("tcp", listen)
	if err != nil {
		log.Warn("no web page: its address is taken or not this machine's ([web] listen)", "listen", listen, "err", err)
		if ps.show != nil {
			ps.show(listenProblem(listen, err))
		}
		alone()
		return
	}
	l = listener.Capped(l, perAddress, inAll)
	if ps.ready != nil {
		ps.ready(srv)
	}
	url := pageURL(listen, l.Addr(), encrypt)
	log.Info("web page", "url", url, "certificate", o.Fingerprint)
	if ps.show != nil {
		ps.show("web page: " + url)
		if code, pending := srv.SetupCode(); pending {
			switch {
			case ps.codeFile == "":
				ps.show(fmt.Sprintf("      its first visit asks for the code %s", code))
			case os.MkdirAll(filepath.Dir(ps.codeFile), 0o700) == nil && atomicfile.Write(ps.codeFile, []byte(code+"\n"), 0o600) == nil:
				ps.show(fmt.Sprintf("      its first visit asks for the code in %s", ps.codeFile))
			default:
				ps.show(fmt.Sprintf("      its setup code could not be kept in %s", ps.codeFile))
			}
		}
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	if pageAnnounced(ps.cfg) {
		typ := "_http._tcp"
		if encrypt {
			typ = "_https._tcp"
		}
		instance := ps.instance
		if instance == "" {
			instance = "Hark"
		}
		r := &mdns.Responder{Host: hostLabel(), Services: append([]mdns.Service{{Instance: instance, Type: typ, Port: portOf(l.Addr()), Text: []string{"path=/"}}}, ps.also...), Log: log}
		r.Claimed = aside(ctx, &wg, ps.named(srv, r.Host, portOf(l.Addr()), cert))
		if ps.announced != nil {
			ps.announced(r)
		}
		wg.Go(func() { announce(ctx, log, r) })
	}
	serve := func(l net.Listener, h http.Handler) {
		// ReadTimeout bounds a whole request; an update bundle's upload
		// lifts it and is cut off only once it stalls (see web's
		// updatesUpload).
		hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: time.Minute,
			MaxHeaderBytes: maxHeader, ErrorLog: serverLog(log)}
		wg.Go(func() {
			<-ctx.Done()
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			hs.Shutdown(sctx)
		})
		if err := hs.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) && ctx.Err() == nil {
			log.Warn("web page stopped", "err", err)
		}
	}
	if !encrypt {
		serve(l, srv.Handler())
		return
	}
	tlsL, plain := listener.Split(l)
	wg.Go(func() { serve(plain, srv.PlainHandler()) })
	serve(tls.NewListener(tlsL, cert.config()), srv.Handler())
}

// serverLog is where an HTTP server's own complaints go (a TLS handshake
// that failed, a connection that broke): anyone who can connect makes one
// a connection, so one is written every complaintEvery at most, the next
// saying how many were held back.
func serverLog(log *slog.Logger) *stdlog.Logger {
	return slog.NewLogLogger(heldBack{log.Handler(), ratelog.New(complaintEvery)}, slog.LevelWarn)
}

const complaintEvery = 10 * time.Second

// heldBack is a log handler whose records go through lim, all as one kind.
type heldBack struct {
	slog.Handler
	lim *ratelog.Limiter
}

func (h heldBack) Handle(ctx context.Context, r slog.Record) error {
	ok, held := h.lim.Allow("server")
	if !ok {
		return nil
	}
	if held > 0 {
		r.AddAttrs(slog.Int("held_back", held))
	}
	return h.Handler.Handle(ctx, r)
}

func (h heldBack) WithAttrs(as []slog.Attr) slog.Handler {
	return heldBack{h.Handler.WithAttrs(as), h.lim}
}

func (h heldBack) WithGroup(name string) slog.Handler {
	return heldBack{h.Handler.WithGroup(name), h.lim}
}

// namedPage is the page as named is told of a name: it answers to it,
// and shows the certificate's new fingerprint when the name was not
// covered.
type namedPage interface {
	AddName(name string)
	SetFingerprint(fp string)
}

// pageAnnounced reports whether the page of cfg is announced on the
// network (mDNS): it is served, on an address other machines can reach,
// and [web] mdns is on.
func pageAnnounced(cfg config.Web) bool {
	return cfg.Listen != "" && cfg.MDNS && reachable(cfg.Listen)
}

// named is what the page does when mDNS claims the host name host
// (without .local) for it: the page answers to it, its certificate cert
// (nil when the page is plain) covers it, claimed is told, and when it is
// not the name wanted (another machine in the house has that one) the
// log and the terminal give the page's address by it. It takes as long as
// issuing a certificate: serve runs it aside, not in mDNS's loop.
func (ps pageServing) named(page namedPage, wanted string, port uint16, cert *pageCert) func(host string) {
	return func(host string) {
		page.AddName(host + ".local")
		if cert != nil {
			fp, changed, err := cert.cover(host + ".local")
			switch {
			case err != nil:
				ps.log.Warn("the page's certificate does not cover its name on the network", "name", host+".local", "err", err)
			case changed:
				page.SetFingerprint(fp)
				ps.log.Info("the page's certificate was issued again for its name on the network", "name", host+".local", "certificate", fp)
			}
		}
		if ps.claimed != nil {
			ps.claimed(host)
		}
		if host == wanted {
			return
		}
		scheme := "http"
		if ps.encrypted() {
			scheme = "https"
		}
		url := scheme + "://" + net.JoinHostPort(host+".local", strconv.Itoa(int(port)))
		ps.log.Info("web page", "url", url, "taken", wanted+".local")
		if ps.show != nil {
			ps.show(fmt.Sprintf("web page: %s (another machine on the network is %s.local)", url, wanted))
		}
	}
}

// aside is a function that hands each host name it is given to do, on a
// goroutine of wg's, and returns at once: mDNS's Claimed, which must not
// block its responder, while the page's certificate is issued again. The
// names are done one after another, in the order given, until ctx is
// done; the one under way then ends (wg waits for it), those after it are
// dropped.
func aside(ctx context.Context, wg *sync.WaitGroup, do func(host string)) func(host string) {
	var mu sync.Mutex
	var queue []string
	wake := make(chan struct{}, 1)
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-wake:
			}
			for ctx.Err() == nil {
				mu.Lock()
				if len(queue) == 0 {
					mu.Unlock()
					break
				}
				host := queue[0]
				queue = queue[1:]
				mu.Unlock()
				do(host)
			}
		}
	})
	return func(host string) {
		mu.Lock()
		queue = append(queue, host)
		mu.Unlock()
		select {
		case wake <- struct{}{}:
		default: // the goroutine is woken already, and takes this one too
		}
	}
}

// pageURL is the address a browser opens the page at: the one it listens
// on, or for every interface (":8080") the machine's name.
func pageURL(listen string, at net.Addr, encrypt bool) string {
	scheme := "http"
	if encrypt {
		scheme = "https"
	}
	host, port, _ := net.SplitHostPort(listen)
	switch {
	case host == "" || host == "0.0.0.0" || host == "::":
		name := "localhost"
		if h, err := os.Hostname(); err == nil && h != "" {
			name = h + ".local"
		}
		return scheme + "://" + net.JoinHostPort(name, port)
	case port == "0":
		return scheme + "://" + at.String()
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// listenProblem is the line the terminal shows when the page cannot
// listen: what is wrong and how to put it right.
func listenProblem(listen string, err error) string {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Sprintf("web page: %s is taken by another program; stop that program, or give the page another port in the configuration: [web] listen = %q", listen, nextPort(listen))
	}
	return fmt.Sprintf("web page: cannot listen on %s (%v); set [web] listen to HOST:PORT of this machine, or \"\" to turn the page off", listen, err)
}

// nextPort is listen with the port after its own.
func nextPort(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	n, perr := strconv.Atoi(port)
	if err != nil || perr != nil || n >= 65535 {
		return "127.0.0.1:8081"
	}
	return net.JoinHostPort(host, strconv.Itoa(n+1))
}

// encrypted reports whether the page is served over HTTPS: [web] tls
// "on", or "auto" on an address other machines can reach.
func (ps pageServing) encrypted() bool {
	switch ps.cfg.TLS {
	case "on":
		return true
	case "off":
		return false
	}
	host, _, err := net.SplitHostPort(ps.cfg.Listen)
	if err != nil {
		return true
	}
	if host == "localhost" {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err != nil || !ip.IsLoopback()
}

// wifiConf is where a board keeps its Wi-Fi networks: on the data
// partition, linked from /etc/wpa_supplicant by the image.
const wifiConf = "/data/network/wpa_supplicant-wlan0.conf"

// boxNetwork is the box's network for the web page: the real one on a
// board, a stand-in in the data directory in simulation.
func boxNetwork(sim bool, dataDir string, offline bool, log *slog.Logger) web.Network {
	if sim {
		return network.Simulated(dataDir, offline)
	}
	if err := os.MkdirAll(filepath.Dir(wifiConf), 0o700); err != nil {
		log.Warn("no Wi-Fi settings on the web page", "err", err)
		return &network.Box{}
	}
	return &network.Box{WiFi: &network.WiFi{Path: wifiConf, Apply: applyWiFi, Log: log}}
}

// applyWiFi has wpa_supplicant read its networks again, or starts it when
// the file is new (its unit starts only when the file exists).
func applyWiFi(ctx context.Context) error {
	err := network.WPACLI("wlan0")(ctx)
	if err == nil {
		return nil
	}
	if out, serr := exec.CommandContext(ctx, "systemctl", "restart", "wpa_supplicant@wlan0.service").CombinedOutput(); serr != nil {
		return fmt.Errorf("%w; systemctl restart wpa_supplicant@wlan0: %v %s", err, serr, strings.TrimSpace(string(out)))
	}
	return nil
}

// sayCode says the web page's setup code, digit by digit, while the page
// waits for its first visit; it reports whether it did.
func (p *page) sayCode(ctx context.Context, lang locale.Lang, say func(context.Context, string)) bool {
	srv := p.srv.Load()
	if srv == nil {
		return false
	}
	code, pending := srv.SetupCode()
	if !pending {
		return false
	}
	line := lang.T("The web page's setup code is %s.", strings.Join(strings.Split(code, ""), " "))
	if fp := srv.Fingerprint(); fp != "" {
		// The first four pairs, as the browser shows them: enough to tell
		// the box's page from another.
		pairs := strings.Split(web.Pairs(fp), ":")[:4]
		for i, p := range pairs {
			pairs[i] = strings.Join(strings.Split(p, ""), " ")
		}
		line += " " + lang.T("The web page's certificate fingerprint begins with %s.", strings.Join(pairs, ", "))
	}
	say(ctx, line)
	return true
}

// recover is the button's long double press: the running page forgets
// its password (memory, timers and settings kept, as hark web reset) and
// the new setup code is said, so a household that lost the password gets
// back in with the box alone.
func (p *page) recover(ctx context.Context, lang locale.Lang, say func(context.Context, string), log *slog.Logger) {
	srv := p.srv.Load()
	if srv == nil {
		say(ctx, lang.T("The web page is off, so it has no password to forget."))
		return
	}
	if _, err := srv.Reset(ctx); err != nil {
		log.Error("recovery: the web page's password was not forgotten", "err", err)
		say(ctx, lang.T("Sorry, I could not reset the web page's password."))
		return
	}
	say(ctx, lang.T("The web page's password is forgotten; it asks for a new setup code."))
	p.sayCode(ctx, lang, say)
}

// webResource is the web page as the API shows it: the running page's,
// or, when none runs (a one-shot command), the store's.
type webResource struct {
	p     *page
	store web.Store
}

var _ control.Web = webResource{}

func (w webResource) Code(ctx context.Context) (control.WebCode, error) {
	srv := w.p.srv.Load()
	if srv == nil && w.p.listen != "" && w.store != nil { // no daemon: the code its page will ask for
		code, pending, err := web.Code(ctx, w.store)
		if err != nil {
			return control.WebCode{}, fmt.Errorf("box: the web page's code: %w", err)
		}
		return control.WebCode{Pending: pending, Code: code}, nil
	}
	if srv == nil {
		return control.WebCode{}, fmt.Errorf("%w: the web page is not running ([web] listen is %q)", control.ErrUnavailable, w.p.listen)
	}
	code, pending := srv.SetupCode()
	return control.WebCode{Pending: pending, Code: code}, nil
}

// Reset forgets the page's password: the running page's at once, or the
// store's, which the page reads when the daemon starts.
func (w webResource) Reset(ctx context.Context) (control.WebCode, error) {
	var code string
	var err error
	if srv := w.p.srv.Load(); srv != nil {
		code, err = srv.Reset(ctx)
	} else {
		code, err = web.Reset(ctx, w.store)
	}
	if err != nil {
		return control.WebCode{}, fmt.Errorf("box: reset the web page: %w", err)
	}
	return control.WebCode{Pending: true, Code: code}, nil
}
