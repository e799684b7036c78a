package web

import (
	"slices"
	"strconv"

	"github.com/harkbox/hark/device/control"
)

// The settings page in plain words: each setting's group, label, help and
// control, written for the page (the configuration's keys and the example
// file's comments are for whoever edits the file).

// field is how the page shows one setting.
type field struct {
	Group string
	Label string
	Help  string
	// Kind is the control: "text", "switch", "slider", "choice" (one of
	// Choices), "zone" (a time zone, with the list), "url".
	Kind        string
	Min, Max    int
	Unit        string
	Choices     []choice
	Placeholder string
	Suggest     []string // offered while typing
	control.Setting
	Error string
}

// choice is one value of a setting with a fixed few, in words.
type choice struct{ Value, Label string }

// Groups, in the page's order.
var groups = []struct{ ID, Title string }{
	{"name", "Its name and where it is"},
	{"sound", "Sound"},
	{"listening", "Listening and the button"},
	{"weather", "Weather"},
	{"model", "The model server"},
	{"lookup", "Looking things up on the web"},
	{"care", "Updates and the log"},
}

var onOff = []choice{{"true", "On"}, {"false", "Off"}}

// fields are the page's words for each setting the daemon offers; one
// missing here is shown under "Other" by its key.
var fields = map[string]field{
	"assistant.name":      {Group: "name", Label: "Its name", Help: "What it calls itself when it answers. A short name it can say clearly works best.", Kind: "text"},
	"assistant.room":      {Group: "name", Label: "The room it is in", Help: "Such as kitchen. The model is told where it stands, and two speakers are told apart by it.", Kind: "text", Suggest: []string{"kitchen", "living room", "bedroom", "hall", "study"}},
	"assistant.place":     {Group: "name", Label: "Town or city", Help: "For answers that depend on where you are, such as Lisbon, Portugal. Leave it empty not to say.", Kind: "text", Placeholder: "Lisbon, Portugal"},
	"assistant.time_zone": {Group: "name", Label: "Time zone", Help: "For telling the time and ringing alarms at the right hour. Empty uses the box's own clock setting.", Kind: "zone"},
	"whisper.language": {Group: "name", Label: "Language", Help: "The language it listens for and answers in.", Kind: "choice",
		Choices: []choice{{"auto", "Whatever language it hears"}, {"en", "English"}, {"de", "German"}, {"fr", "French"}, {"es", "Spanish"}}},

	"audio.volume":          {Group: "sound", Label: "Volume", Help: "How loud it speaks and rings. Saying “louder” or “volume 30” changes it too.", Kind: "slider", Min: 0, Max: 100, Unit: "%"},
	"tts.voice":             {Group: "sound", Label: "Voice", Help: "The voice it speaks in, by language and accent: en, en-gb, en-us, de, fr-fr, es…", Kind: "text", Suggest: []string{"en", "en-gb", "en-us", "de", "fr-fr", "es"}},
	"tts.rate":              {Group: "sound", Label: "Speaking speed", Help: "Words a minute; 175 is an ordinary pace.", Kind: "slider", Min: 80, Max: 450, Unit: " words a minute"},
	"audio.earcons":         {Group: "sound", Label: "Short sounds", Help: "Soft notes that tell you it heard you; turning this off silences all of them.", Kind: "switch", Choices: onOff},
	"audio.earcon_start":    {Group: "sound", Label: "A sound when it starts listening", Kind: "switch", Choices: onOff},
	"audio.earcon_end":      {Group: "sound", Label: "A sound when it has heard you", Kind: "switch", Choices: onOff},
	"audio.earcon_error":    {Group: "sound", Label: "A sound when something went wrong", Kind: "switch", Choices: onOff},
	"audio.earcon_thinking": {Group: "sound", Label: "A quiet pulse while it thinks", Kind: "switch", Choices: onOff},

	"listen.mode": {Group: "listening", Label: "How you talk to it", Kind: "choice",
		Choices: []choice{{"tap", "Press once, then talk: it stops listening when you stop"}, {"hold", "Hold the button while you talk"}}},
	"pipeline.follow_up": {Group: "listening", Label: "Listen again after answering", Kind: "choice",
		Choices: []choice{{"when-asked", "When it asks you something"}, {"always", "After every answer"}, {"off", "Never: press the button each time"}}},
	"button.double_action": {Group: "listening", Label: "Pressing the button twice quickly", Kind: "choice",
		Choices: []choice{{"mute", "Turns the microphone off, or on again"}, {"stop", "Stops whatever it is doing"}, {"none", "Does nothing"}}},

	"weather.location": {Group: "weather", Label: "Place for the weather", Help: "The town whose forecast it gives when you do not say one.", Kind: "text", Placeholder: "Lisbon, Portugal"},
	"weather.units": {Group: "weather", Label: "Units", Kind: "choice",
		Choices: []choice{{"metric", "Celsius and kilometres an hour"}, {"imperial", "Fahrenheit and miles an hour"}}},

	"ollama.host":  {Group: "model", Label: "Address", Help: "The computer that runs Ollama, such as gpu.lan or 192.168.1.30:11434. The welcome's model step checks it and lists its models.", Kind: "text", Placeholder: "gpu.lan"},
	"ollama.model": {Group: "model", Label: "Model", Help: "The model that answers, as the server names it (llama3.2:3b).", Kind: "text"},

	"lookup.searxng":     {Group: "lookup", Label: "SearXNG search address", Help: "A SearXNG server to search the web with; empty for none.", Kind: "url", Placeholder: "http://searx.lan:8888"},
	"lookup.wikipedia":   {Group: "lookup", Label: "Wikipedia address", Help: "Where it looks things up in Wikipedia; empty for none.", Kind: "url"},
	"lookup.fetch_pages": {Group: "lookup", Label: "Read the pages it finds", Help: "Reads a found page to answer from it, not only its summary. Slower, and the page's site sees the request.", Kind: "switch", Choices: onOff},

	"update.manifest": {Group: "care", Label: "Update server", Help: "Where it looks for new firmware; empty to update only by hand.", Kind: "url"},
	"log.level": {Group: "care", Label: "How much goes in the log", Kind: "choice",
		Choices: []choice{{"info", "The usual"}, {"warn", "Only warnings and errors"}, {"error", "Only errors"}, {"debug", "Everything, for finding a fault"}}},
}

// section is one group of settings as the page shows it.
type section struct {
	ID, Title string
	Fields    []field
}

// sectionsOf arranges the daemon's settings by group, in words; typed
// values and their errors stand by their fields.
func sectionsOf(list []control.Setting, typed, errs map[string]string) []section {
	var out []section
	by := map[string]int{}
	for _, g := range groups {
		by[g.ID] = len(out)
		out = append(out, section{ID: g.ID, Title: g.Title})
	}
	for _, st := range list {
		f, ok := fields[st.Key]
		if !ok {
			f = field{Group: "other", Label: st.Key, Help: st.Help, Kind: "text"}
			if len(st.Choices) > 0 {
				f.Kind = "choice"
				for _, c := range st.Choices {
					f.Choices = append(f.Choices, choice{c, c})
				}
			}
			if _, ok := by["other"]; !ok {
				by["other"] = len(out)
				out = append(out, section{ID: "other", Title: "Other"})
			}
		}
		f.Setting = st
		if st.Saved != "" {
			f.Value = st.Saved // shown as kept, with a word that it waits for a restart
		}
		if v, ok := typed[st.Key]; ok {
			f.Value = v
		}
		f.Error = errs[st.Key]
		if f.Kind == "choice" && !slices.ContainsFunc(f.Choices, func(c choice) bool { return c.Value == f.Value }) {
			f.Choices = append([]choice{{f.Value, f.Value}}, f.Choices...) // shown as it is, never changed unasked
		}
		i := by[f.Group]
		out[i].Fields = append(out[i].Fields, f)
	}
	var shown []section
	for _, s := range out {
		if len(s.Fields) > 0 {
			shown = append(shown, s)
		}
	}
	return shown
}

// label is a setting's name in words.
func label(key string) string {
	if f, ok := fields[key]; ok {
		return f.Label
	}
	return key
}

// number is a slider's value, or its middle when the value is not one.
func (f field) Number() int {
	n, err := strconv.Atoi(f.Value)
	if err != nil {
		return (f.Min + f.Max) / 2
	}
	return n
}

// On is a switch's state.
func (f field) On() bool { b, _ := strconv.ParseBool(f.Value); return b }
