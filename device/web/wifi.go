package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/harkbox/hark/device/network"
)

// The Wi-Fi page a phone sees when it joins the box's own access point (a
// box on no network opens one): the networks in reach, a passphrase, and
// how the join went. It needs no login: only whoever heard the access
// point's password on the box reaches it. It is served over plain HTTP,
// exempt from the redirect to HTTPS, and on the access point's captive
// address every other address leads to it.

// Hotspot is the box's own access point as its page drives it;
// *network.Hotspot is one.
type Hotspot interface {
	State() network.HotspotState
	// Join checks the name and passphrase (a *network.FieldError) and
	// starts joining in the background.
	Join(ssid, psk string) error
}

// wifiPath is the captive page's address.
const wifiPath = "/wifi"

// wifiShown reports whether the captive page is there: while the access
// point is open, and after, to say how the join went.
func (s *Server) wifiShown() bool {
	if s.o.Hotspot == nil {
		return false
	}
	st := s.o.Hotspot.State()
	return st.Open || st.Joining != "" || st.Joined != ""
}

func (s *Server) wifiPage(w http.ResponseWriter, r *http.Request) {
	if !s.wifiShown() {
		http.Redirect(w, r, "/network", http.StatusSeeOther)
		return
	}
	s.showWifi(w, view{Title: "Connect the speaker to your Wi-Fi", Field: map[string]string{}, Form: map[string]string{}}, http.StatusOK)
}

func (s *Server) showWifi(w http.ResponseWriter, v view, code int) {
	st := s.o.Hotspot.State()
	if st.Joining != "" {
		w.Header().Set("Refresh", "3") // the page sees how it went without script
	}
	v.Data = st
	s.render(w, code, "wifi", v)
}

func (s *Server) wifiJoin(w http.ResponseWriter, r *http.Request) {
	if !s.wifiShown() {
		http.Redirect(w, r, "/network", http.StatusSeeOther)
		return
	}
	ssid := r.PostFormValue("ssid")
	if ssid == "" || ssid == "other" {
		ssid = strings.TrimSpace(r.PostFormValue("other"))
	}
	v := view{Title: "Connect the speaker to your Wi-Fi", Field: map[string]string{}, Form: map[string]string{"ssid": ssid}}
	err := s.o.Hotspot.Join(ssid, r.PostFormValue("psk"))
	var fe *network.FieldError
	switch {
	case err == nil:
		s.log.Info("joining a Wi-Fi network from the captive page", "ssid", ssid, "from", r.RemoteAddr)
		http.Redirect(w, r, wifiPath, http.StatusSeeOther)
	case errors.As(err, &fe):
		v.Field[fe.Field] = sentence(errors.New(fe.Msg))
		s.showWifi(w, v, http.StatusBadRequest)
	default:
		v.Error = networkSentence(err)
		s.showWifi(w, v, http.StatusConflict)
	}
}

// CaptiveHandler serves the access point's captive address (port 80 of
// the box's address on it): the Wi-Fi page, and for any other address or
// name (a phone's check for a captive portal) a redirect to it.
func (s *Server) CaptiveHandler(box string) http.Handler {
	mux := http.NewServeMux()
	s.captiveRoutes(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.o.AnyAddress && !local(r.RemoteAddr) {
			http.Error(w, "This page is served only on the local network.", http.StatusForbidden)
			return
		}
		if r.Host != box || (r.URL.Path != wifiPath && !strings.HasPrefix(r.URL.Path, "/static/")) {
			http.Redirect(w, r, "http://"+box+wifiPath, http.StatusFound)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !s.sameOrigin(r) {
			http.Error(w, "This form came from another site.", http.StatusForbidden)
			return
		}
		s.headers(w)
		r.Body = http.MaxBytesReader(w, r.Body, formLimit)
		mux.ServeHTTP(w, r)
	})
}

// captiveRoutes are the Wi-Fi page's, and the static files it uses.
func (s *Server) captiveRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET "+wifiPath, s.wifiPage)
	mux.HandleFunc("POST "+wifiPath, s.wifiJoin)
	mux.Handle("GET /static/", s.staticHandler())
}
