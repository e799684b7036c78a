package box

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"github.com/coreos/go-systemd/v22/activation"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/network"
	"github.com/harkbox/hark/device/web"
	"github.com/harkbox/hark/internal/atomicfile"
	"github.com/harkbox/hark/internal/listener"
	"github.com/harkbox/hark/locale"
)

// hotspotFile keeps the box's own access point's name and password, so
// that they stay the same from one start to the next (a factory reset
// makes new ones).
const hotspotFile = "hotspot.json"

// radio is the box's network as its hotspot drives it: network.Box on a
// board, network.Sim in simulation.
type radio interface {
	network.Link
	network.AccessPoint
	Networks(ctx context.Context) ([]string, error)
}

// ownAP is the box's own access point: Hark-NNNN, four digits from its
// identity, and a password of ten digits, made once and kept.
func ownAP(dataDir, id string) (network.AP, error) {
	path := filepath.Join(dataDir, hotspotFile)
	var ap network.AP
	if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &ap) == nil && ap.SSID != "" && len(ap.Passphrase) >= 8 {
		ap.Address = network.DefaultAPAddress
		return ap, nil
	}
	n := 0
	for _, c := range id {
		n = (n*16 + int(c-'0')%16) % 10000
	}
	p, err := rand.Int(rand.Reader, big.NewInt(1e10))
	if err != nil {
		return ap, err
	}
	ap = network.AP{SSID: fmt.Sprintf("Hark-%04d", n), Passphrase: fmt.Sprintf("%010d", p), Address: network.DefaultAPAddress}
	b, _ := json.Marshal(struct{ SSID, Passphrase string }{ap.SSID, ap.Passphrase})
	if err := atomicfile.Write(path, b, 0o600); err != nil {
		return ap, fmt.Errorf("box: keep the access point's password: %w", err)
	}
	return ap, nil
}

// hotspot is the box's own access point when the box may open one: on a
// board with Wi-Fi, or in a simulation that plays a box on no network;
// nil otherwise.
func (r *running) hotspot(n web.Network, page func(netip.Addr) string) *network.Hotspot {
	cfg := r.b.cfg
	rd, ok := n.(radio)
	if !ok || !cfg.WiFi.Hotspot || (cfg.Board == "sim" && !cfg.Sim.NoNetwork) {
		return nil
	}
	if box, isBoard := n.(*network.Box); isBoard && box.WiFi == nil {
		return nil
	}
	id, _, err := ensureIdentity(cfg.DataDir)
	if err != nil {
		r.log.Warn("no access point of its own", "err", err)
		return nil
	}
	own, err := ownAP(cfg.DataDir, id)
	if err != nil {
		r.log.Warn("no access point of its own", "err", err)
		return nil
	}
	lang := r.b.Lang()
	h, err := network.NewHotspot(network.HotspotOptions{Link: rd, AP: rd, Own: own, Grace: cfg.WiFi.Grace.Duration, Lang: lang,
		Known: func(ctx context.Context) int { l, _ := rd.Networks(ctx); return len(l) },
		Say: func(ctx context.Context, text string) {
			if r.notice != nil {
				r.notice("hark: " + text) // the simulation's screen shows what the speaker says
			}
			r.say(ctx, text)
		},
		Joined: func(ssid string, addr netip.Addr) string {
			return lang.T("I'm on %s now. To set me up, open %s in your browser.", ssid, page(addr))
		},
		Log: r.log})
	if err != nil {
		r.log.Warn("no access point of its own", "err", err)
		return nil
	}
	return h
}

// sayHotspot says the box's own access point's name and password while it
// is open, and reports whether it did: what a double press says first.
func sayHotspot(ctx context.Context, h *network.Hotspot, lang locale.Lang, say func(context.Context, string)) bool {
	if h == nil || !h.State().Open {
		return false
	}
	own := h.Own()
	say(ctx, lang.T("My own Wi-Fi is called %s. Its password is %s.", network.Spoken(own.SSID), network.Spoken(own.Passphrase)))
	return true
}

// serveCaptive serves the access point's captive address on the socket
// systemd made for it (hark-captive.socket, named "captive": port 80 of
// the access point's address), until ctx is done. Without that socket (the
// simulation, a system without the image's units) the Wi-Fi page is on
// the web page's own address only.
func serveCaptive(ctx context.Context, srv *web.Server, box string, log *slog.Logger) {
	ls, err := activation.ListenersWithNames()
	if err != nil || len(ls["captive"]) == 0 {
		return
	}
	serveCaptiveOn(ctx, ls["captive"], srv, box, log)
}

// serveCaptiveOn serves the captive page on ls until ctx is done, each
// listener bounded as the page's is: a phone on the access point is a
// stranger until it has set the box up.
func serveCaptiveOn(ctx context.Context, ls []net.Listener, srv *web.Server, box string, log *slog.Logger) {
	hs := &http.Server{Handler: srv.CaptiveHandler(box), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: time.Minute,
		MaxHeaderBytes: maxHeader, ErrorLog: serverLog(log)}
	context.AfterFunc(ctx, func() { hs.Close() })
	for _, l := range ls {
		go func(l net.Listener) {
			if err := hs.Serve(listener.Capped(l, perAddress, inAll)); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Warn("the access point's captive page stopped", "err", err)
			}
		}(l)
	}
}

// joinedPage is the address of the page on a network the box joined at
// addr, as it is said: by address (it works where NAME.local does not),
// without the scheme (a browser finds it, and is sent on to HTTPS).
func joinedPage(cfg config.Web, addr netip.Addr) string {
	_, port, err := net.SplitHostPort(cfg.Listen)
	if err != nil || cfg.Listen == "" {
		return addr.String()
	}
	return net.JoinHostPort(addr.String(), port)
}
