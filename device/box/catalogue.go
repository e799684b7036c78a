package box

import (
	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	ha "github.com/harkbox/hark/reply/command/home"
	"github.com/harkbox/hark/reply/command/lookup"
	"github.com/harkbox/hark/reply/command/weather"
)

// place is where a command runs; a command may run in several.
type place uint8

const (
	// onBox: a speaker runs it, and a node runs it offline.
	onBox place = 1 << iota
	// forCenter: a node offers it to its center as a client tool, and
	// runs it when the center calls it (it acts on the speaker itself or
	// on its schedule).
	forCenter
	// onCenter: the center runs it itself, for every node.
	onCenter
)

// catalogue says where each command runs: the one list of it. A command
// that is built but missing here fails TestCatalogueNamesEveryCommand.
var catalogue = where{
	"set_timer":           onBox | forCenter,
	"check_timers":        onBox | forCenter,
	"cancel_timer":        onBox | forCenter,
	"pause_timer":         onBox | forCenter,
	"adjust_timer":        onBox | forCenter,
	"set_alarm":           onBox | forCenter,
	"set_reminder":        onBox | forCenter,
	"list_reminders":      onBox | forCenter,
	"cancel_reminder":     onBox | forCenter,
	"snooze":              onBox | forCenter, // the alarm rings on the speaker
	"control_volume":      onBox | forCenter,
	"device_status":       onBox | forCenter,
	"stop":                onBox | forCenter,
	"get_current_time":    onBox | onCenter,
	"calculate":           onBox | onCenter,
	"convert_measurement": onBox | onCenter,
	"remember":            onBox | onCenter,
	"forget":              onBox | onCenter,
	"search_memory":       onBox | onCenter,
	"get_weather":         onBox | onCenter,
	"home_control":        onBox | onCenter,
	"home_state":          onBox | onCenter,
	// The offline path's own (hidden from the model): Home Assistant's
	// intents as the service calls and questions they make.
	"home_service": onBox,
	"home_query":   onBox,
	// "what can you do", "thank you", "hello" and "who are you" without
	// the model, on the box and on a node (hidden from the model too).
	"help":       onBox,
	"thanks":     onBox,
	"greet":      onBox,
	"introduce":  onBox,
	"web_search": onBox | onCenter,
	"wikipedia":  onBox | onCenter,
	"fetch_page": onBox | onCenter,
}

type where map[string]place

// parts are what the commands act on; a part may be nil where a command
// that needs it is not built (hark transcribe only wants their keywords).
type parts struct {
	builtin builtin.Deps
	weather *weather.Client
	home    weather.Home
	house   *ha.Client
	lookup  lookup.Options
}

// all builds every command in pre-route order: the specific built-ins,
// then the weather, the house and the web lookups, with stop last so that
// "cancel the timer" is not a stop.
func all(p parts) []*command.Command {
	cmds := builtin.All(p.builtin)
	stop := cmds[len(cmds)-1]
	out := append(cmds[:len(cmds)-1:len(cmds)-1], weather.Command(p.weather, p.home), ha.Control(p.house), ha.State(p.house), ha.Service(p.house), ha.Query(p.house))
	out = append(out, lookup.Commands(p.lookup)...)
	return append(out, stop)
}

// commands are the commands of all(p) that run at pl.
func (w where) commands(pl place, p parts) []*command.Command {
	var out []*command.Command
	for _, c := range all(p) {
		if w[c.Name]&pl != 0 {
			out = append(out, c)
		}
	}
	return out
}

// names are the names of the commands that run at pl.
func (w where) names(pl place) []string {
	var out []string
	for _, c := range all(parts{}) {
		if w[c.Name]&pl != 0 {
			out = append(out, c.Name)
		}
	}
	return out
}

// lookupOptions are the web lookups the configuration turns on.
func lookupOptions(cfg *config.Loaded, secrets command.Secrets) lookup.Options {
	return lookup.Options{SearXNG: cfg.Lookup.SearXNG, Brave: cfg.Lookup.BraveSearch, Secrets: secrets,
		Wikipedia: cfg.Lookup.Wikipedia, FetchPages: cfg.Lookup.FetchPages}
}
