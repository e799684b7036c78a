package web

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/harkbox/hark/device/network"
)

// Network is the box's network as the network page shows and changes it;
// *network.Box is a board's, *network.Sim the simulation's. Its methods
// may be called concurrently, by several browsers.
type Network interface {
	// Addresses lists the interfaces' addresses, loopback left out.
	Addresses(ctx context.Context) ([]network.Address, error)
	// Networks lists the names (SSIDs) of the Wi-Fi networks configured;
	// never their passphrases.
	Networks(ctx context.Context) ([]string, error)
	// AddWiFi adds a Wi-Fi network, or replaces the one of that name, and
	// applies it. A name or passphrase it refuses is a *network.FieldError;
	// a network saved but not applied wraps network.ErrNotApplied.
	AddWiFi(ctx context.Context, ssid, psk string) error
	// Simulated reports that nothing on the computer's network changes:
	// the Wi-Fi networks are a stand-in.
	Simulated() bool
}

// Scanner is a Network that can list the Wi-Fi networks in reach, an
// optional capability (*network.Box and *network.Sim have it).
type Scanner interface {
	Scan(ctx context.Context) ([]network.Seen, error)
}

// Forgetter is a Network that can forget a Wi-Fi network it keeps, an
// optional capability (*network.Box and *network.Sim have it).
type Forgetter interface {
	Forget(ctx context.Context, ssid string) error
}

// networkRoutes are the network page's: its addresses and Wi-Fi networks,
// and a form to add one. A nil n is a daemon that does not offer them.
func (s *Server) networkRoutes(handle func(string, pageHandler), n Network) {
	handle("GET /network", func(w http.ResponseWriter, r *request) {
		if n == nil {
			s.unserved(w, r, "Network", "network")
			return
		}
		s.showNetwork(w, r, n, s.page(r, "Network", "network"), http.StatusOK)
	})
	handle("POST /network/wifi", func(w http.ResponseWriter, r *request) {
		if n == nil {
			s.unserved(w, r, "Network", "network")
			return
		}
		s.networkAddWiFi(w, r, n)
	})
	handle("POST /network/forget", func(w http.ResponseWriter, r *request) {
		f, ok := n.(Forgetter)
		if !ok {
			s.unserved(w, r, "Network", "network")
			return
		}
		ssid := r.PostFormValue("ssid")
		if err := f.Forget(r.Context(), ssid); err != nil {
			s.back(w, r, "/network", networkSentence(err))
			return
		}
		s.log.Info("Wi-Fi network forgotten", "ssid", ssid, "from", r.RemoteAddr)
		s.back(w, r, "/network", "The Wi-Fi network “"+ssid+"” is forgotten.")
	})
}

// showNetwork lists the addresses and the Wi-Fi networks.
func (s *Server) showNetwork(w http.ResponseWriter, r *request, n Network, v view, code int) {
	addrs, err := n.Addresses(r.Context())
	if err != nil {
		v.Error, code = networkSentence(err), http.StatusInternalServerError
	}
	nets, err := n.Networks(r.Context())
	if err != nil {
		v.Error, code = strings.TrimSpace(v.Error+" "+networkSentence(err)), http.StatusInternalServerError
	}
	var seen []network.Seen
	if sc, ok := n.(Scanner); ok && r.URL.Query().Has("scan") {
		if seen, err = sc.Scan(r.Context()); err != nil {
			v.Error = strings.TrimSpace(v.Error + " " + networkSentence(err))
		}
	}
	_, canScan := n.(Scanner)
	_, canForget := n.(Forgetter)
	v.Data = struct {
		Addresses          []network.Address
		Networks           []string
		Simulated          bool
		Seen               []network.Seen
		Scanned            bool
		CanScan, CanForget bool
	}{addrs, nets, n.Simulated(), seen, r.URL.Query().Has("scan"), canScan, canForget}
	s.render(w, code, "network", v)
}

func (s *Server) networkAddWiFi(w http.ResponseWriter, r *request, n Network) {
	ssid, psk := r.PostFormValue("ssid"), r.PostFormValue("psk")
	v := s.page(r, "Network", "network")
	v.Form["ssid"] = ssid // never the passphrase
	err := n.AddWiFi(r.Context(), ssid, psk)
	var fe *network.FieldError
	switch {
	case err == nil:
		flash := "The Wi-Fi network “" + ssid + "” is saved and applied."
		if n.Simulated() {
			flash = "The Wi-Fi network “" + ssid + "” is saved in the simulation's stand-in list; nothing on this computer changed."
		}
		s.log.Info("Wi-Fi network added", "ssid", ssid, "from", r.RemoteAddr)
		s.back(w, r, "/network", flash)
		return
	case errors.As(err, &fe) && (fe.Field == "ssid" || fe.Field == "psk"):
		v.Field[fe.Field] = sentence(errors.New(fe.Msg))
		s.showNetwork(w, r, n, v, http.StatusBadRequest)
	case errors.Is(err, network.ErrNotApplied):
		s.log.Warn("Wi-Fi network saved but not applied", "ssid", ssid, "err", err)
		v.Error = networkSentence(err)
		s.showNetwork(w, r, n, v, http.StatusInternalServerError)
	default:
		s.log.Error("Wi-Fi network not saved", "ssid", ssid, "err", err)
		v.Error = networkSentence(err)
		s.showNetwork(w, r, n, v, http.StatusInternalServerError)
	}
}

// networkSentence is a network error as the page shows it.
func networkSentence(err error) string {
	return sentence(errors.New(strings.TrimPrefix(err.Error(), "network: ")))
}
