package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/harkbox/hark/device/control"
)

// What rings is shown on every page, with a Stop, and the timers count
// down live: the event stream sends the alerts whenever they change, and
// static/live.js redraws the banner and the timers page's list.

// ringing is what rings now: nil when nothing does or the daemon has no
// alerts.
func (s *Server) ringing(ctx context.Context) []control.Alert {
	if s.o.API.Alerts == nil {
		return nil
	}
	list, err := s.o.API.Alerts.List(ctx, true)
	if err != nil {
		return nil
	}
	return ringingOf(list)
}

func ringingOf(list []control.Alert) []control.Alert {
	var out []control.Alert
	for _, a := range list {
		if a.Ringing {
			out = append(out, a)
		}
	}
	return out
}

func (s *Server) alertRoutes(handle func(string, pageHandler)) {
	handle("POST /alerts/stop", s.alertsStop)
}

// alertsStop silences what rings and goes back to the page the Stop was
// pressed on.
func (s *Server) alertsStop(w http.ResponseWriter, r *request) {
	back := localPath(r.PostFormValue("back"))
	if s.o.API.Alerts == nil {
		s.unserved(w, r, "Timers", "timers")
		return
	}
	stopped, err := s.o.API.Alerts.Stop(r.Context())
	switch {
	case err != nil:
		s.back(w, r, back, sentence(err))
	case stopped:
		s.log.Info("alerts stopped from the web page", "from", r.RemoteAddr)
		s.back(w, r, back, "Stopped.")
	default:
		s.back(w, r, back, "Nothing was ringing.")
	}
}

// alertWords names an alert for a person: "the tea timer", "the alarm
// “wake up”", "the reminder to water the plants".
func alertWords(a control.Alert) string {
	switch {
	case a.Kind == "timer" && a.Name != "":
		return "the " + a.Name + " timer"
	case a.Kind == "reminder" && a.Name != "":
		return "the reminder “" + a.Name + "”"
	case a.Name != "":
		return "the " + a.Kind + " “" + a.Name + "”"
	}
	return "the " + a.Kind
}

// ringingSentence says what rings: "The tea timer is ringing."
func ringingSentence(as []control.Alert) string {
	if len(as) == 0 {
		return ""
	}
	var names []string
	for _, a := range as {
		names = append(names, alertWords(a))
	}
	verb := " is ringing."
	if len(names) > 1 {
		verb = " are ringing."
	}
	s := strings.Join(names, " and ") + verb
	return strings.ToUpper(s[:1]) + s[1:]
}

// left says how long until t, as a countdown reads: "4:59", "1:02:03",
// "2 days 3 h" for what is far away, "now" for what is due.
func left(t, now time.Time) string {
	d := t.Sub(now).Round(time.Second)
	switch {
	case d <= 0:
		return "now"
	case d >= 48*time.Hour:
		return fmt.Sprintf("%d days %d h", d/(24*time.Hour), d%(24*time.Hour)/time.Hour)
	case d >= time.Hour:
		return fmt.Sprintf("%d:%02d:%02d", d/time.Hour, d%time.Hour/time.Minute, d%time.Minute/time.Second)
	}
	return fmt.Sprintf("%d:%02d", d/time.Minute, d%time.Minute/time.Second)
}

// liveAlert is an alert as the event stream sends it.
type liveAlert struct {
	control.Alert
	Words string `json:"words"`
	When  string `json:"when"`
}

// alertsEvent is the alerts as the event stream sends them.
func (s *Server) alertsEvent(ctx context.Context) []byte {
	if s.o.API.Alerts == nil {
		return nil
	}
	list, err := s.o.API.Alerts.List(ctx, true)
	if err != nil {
		return nil
	}
	out := make([]liveAlert, 0, len(list))
	for _, a := range list {
		out = append(out, liveAlert{Alert: a, Words: alertWords(a), When: funcs["when"].(func(time.Time) string)(a.Due)})
	}
	b, _ := json.Marshal(struct {
		Alerts  []liveAlert `json:"alerts"`
		Ringing string      `json:"ringing"`
	}{out, ringingSentence(ringingOf(list))})
	return b
}
