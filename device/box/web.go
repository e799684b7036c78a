package box

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
	"sync/atomic"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/network"
	"github.com/harkbox/hark/device/web"
	"github.com/harkbox/hark/locale"
)

// page is the web page once the daemon serves it; nil before and without.
type page struct {
	listen string
	srv    atomic.Pointer[web.Server]
}

// servePage serves the web page on listen until ctx is done: the box's,
// or the center's for the household. show, when set, tells the person at
// the terminal the page's address and its setup code; ready gets the page
// once it listens. An address in use costs the page, not the box.
func servePage(ctx context.Context, log *slog.Logger, listen string, o web.Options, show func(string), ready func(*web.Server)) {
	if listen == "" {
		return
	}
	srv, err := web.New(ctx, o)
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
		ready(srv)
	}
	url := "http://" + l.Addr().String()
	if host, port, _ := net.SplitHostPort(listen); host == "" {
		url = "http://localhost:" + port
	}
	log.Info("web page", "url", url)
	if code, pending := srv.SetupCode(); pending && show != nil {
		show(fmt.Sprintf("web page: %s; its first visit asks for the code %s", url, code))
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second,
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

// boxNetwork is the box's network for the web page: the real one on a
// board, a stand-in in the data directory in simulation.
func boxNetwork(sim bool, dataDir string, log *slog.Logger) web.Network {
	if sim {
		return network.Simulated(dataDir)
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
	say(ctx, lang.T("The web page's setup code is %s.", strings.Join(strings.Split(code, ""), " ")))
	return true
}

// webResource is the web page as the API shows it.
type webResource struct{ p *page }

var _ control.Web = webResource{}

func (w webResource) Code(context.Context) (control.WebCode, error) {
	srv := w.p.srv.Load()
	if srv == nil {
		return control.WebCode{}, fmt.Errorf("%w: the web page is not running ([web] listen is %q)", control.ErrUnavailable, w.p.listen)
	}
	code, pending := srv.SetupCode()
	return control.WebCode{Pending: pending, Code: code}, nil
}
