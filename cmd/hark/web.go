package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/network"
	"github.com/harkbox/hark/device/web"
)

// serveWeb serves the web page on [web] listen until ctx is done, over
// the same API the socket serves. An address in use costs the page, not
// the box.
func (a *app) serveWeb(ctx context.Context, api control.API) {
	cfg := a.cfg.Web
	o := web.Options{API: api, Store: a.db.Settings(), Network: a.network(), Sessions: a.sessions, Version: version,
		AnyAddress: cfg.AnyAddress, IdleExpiry: cfg.IdleExpiry.Duration, Log: a.log}
	servePage(ctx, a.log, cfg.Listen, o, a.notice, func(p *web.Server) { a.web.Store(p) })
}

// servePage serves the web page on listen until ctx is done: the box's,
// or the center's for the household. show, when set, tells the person at
// the terminal the page's address and its setup code; ready gets the page
// once it listens.
func servePage(ctx context.Context, log *slog.Logger, listen string, o web.Options, show func(string), ready func(*web.Server)) {
	if listen == "" {
		return
	}
	page, err := web.New(ctx, o)
	if err != nil {
		log.Error("no web page", "err", err)
		return
	}
	l, err := net.Listen("tcp", listen)
	if err != nil {
		log.Warn("no web page: its address is taken or not this machine's ([web] listen)", "listen", listen, "err", err)
		return
	}
	if ready != nil {
		ready(page)
	}
	url := "http://" + l.Addr().String()
	if host, port, _ := net.SplitHostPort(listen); host == "" {
		url = "http://localhost:" + port
	}
	log.Info("web page", "url", url)
	if code, pending := page.SetupCode(); pending && show != nil {
		show(fmt.Sprintf("web page: %s; its first visit asks for the code %s", url, code))
	}
	hs := &http.Server{Handler: page.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if err := hs.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("web page stopped", "err", err)
	}
}

// wifiConf is where a board keeps its Wi-Fi networks: on the data
// partition, linked from /etc/wpa_supplicant by the image.
const wifiConf = "/data/network/wpa_supplicant-wlan0.conf"

// network is the box's network for the web page: the real one on a board,
// a stand-in in the data directory in simulation.
func (a *app) network() web.Network {
	if a.cfg.Board == "sim" {
		return network.Simulated(a.cfg.DataDir)
	}
	if err := os.MkdirAll(filepath.Dir(wifiConf), 0o700); err != nil {
		a.log.Warn("no Wi-Fi settings on the web page", "err", err)
		return &network.Box{}
	}
	return &network.Box{WiFi: &network.WiFi{Path: wifiConf, Apply: applyWiFi, Log: a.log}}
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

// sayWebCode says the web page's setup code, digit by digit, while the page
// waits for its first visit; it reports whether it did.
func (a *app) sayWebCode(ctx context.Context, say func(context.Context, string)) bool {
	page := a.web.Load()
	if page == nil {
		return false
	}
	code, pending := page.SetupCode()
	if !pending {
		return false
	}
	say(ctx, a.lang().T("The web page's setup code is %s.", strings.Join(strings.Split(code, ""), " ")))
	return true
}

// webAPI is the web page as the API shows it.
type webAPI struct{ a *app }

func (w webAPI) Code(context.Context) (control.WebCode, error) {
	page := w.a.web.Load()
	if page == nil {
		return control.WebCode{}, fmt.Errorf("%w: the web page is not running ([web] listen is %q)", control.ErrUnavailable, w.a.cfg.Web.Listen)
	}
	code, pending := page.SetupCode()
	return control.WebCode{Pending: pending, Code: code}, nil
}

// cmdWeb prints the web page's one-time setup code.
func cmdWeb(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("web", e, g)
	if err := parse(e, fs, args); err != nil {
		return err
	}
	if rest := fs.Args(); len(rest) != 1 || rest[0] != "code" {
		return usageError(e, fs, "")
	}
	c, done, err := connect(ctx, e, g, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer done()
	wc, err := c.WebCode(ctx)
	switch {
	case errors.Is(err, control.ErrUnavailable):
		return fmt.Errorf("the web page runs with the daemon: start it (hark run) and ask again (%w)", err)
	case err != nil:
		return err
	case !wc.Pending:
		fmt.Fprintln(e.stdout, "the web page is set up: log in with its password")
		return nil
	}
	fmt.Fprintln(e.stdout, "the web page's first visit asks for this code:")
	fmt.Fprintln(e.stdout, wc.Code)
	return nil
}
