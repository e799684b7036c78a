// Package config reads Hark's configuration file (TOML) and tells where each
// effective value came from: its default, the file, the environment or a flag.
// Only cmd/hark reads configuration (files, environment, flags) through it;
// device/box puts the box together from what it read, and the other
// libraries take Options structs.
//
// Unknown keys and bad values are errors that name the key and the file (or
// variable, or flag) that set it. hark.example.toml, embedded as Example, lists
// every key with its default.
package config

import (
	_ "embed"
	"fmt"
	"time"
)

// Example is the commented example file with every key at its default.
//
//go:embed hark.example.toml
var Example string

// Config is the whole configuration. Field tags are the TOML keys.
type Config struct {
	// Board is the hardware profile; "sim" runs on a desktop.
	Board string `toml:"board"`
	// DataDir holds the database and reply files; empty picks the state
	// directory for the platform (see Load).
	DataDir string `toml:"data_dir"`
	// ControlSocket is the running daemon's local control socket; empty
	// picks /run/hark/control.sock on a board, control.sock in the data
	// directory in simulation.
	ControlSocket string `toml:"control_socket"`
	// MemoryLimitMiB is the daemon's soft limit on the Go runtime's memory
	// (GOMEMLIMIT), in MiB: past it the garbage collector works harder
	// instead of growing the heap. 0 turns it off; the environment's
	// GOMEMLIMIT, when set, wins.
	MemoryLimitMiB int       `toml:"memory_limit_mib"`
	Log            Log       `toml:"log"`
	Ollama         Ollama    `toml:"ollama"`
	Assistant      Assistant `toml:"assistant"`
	Reply          Reply     `toml:"reply"`
	Pipeline       Pipeline  `toml:"pipeline"`
	Whisper        Whisper   `toml:"whisper"`
	Audio          Audio     `toml:"audio"`
	Listen         Listen    `toml:"listen"`
	Button         Button    `toml:"button"`
	LEDs           LEDs      `toml:"leds"`
	TTS            TTS       `toml:"tts"`
	Commands       Commands  `toml:"commands"`
	Weather        Weather   `toml:"weather"`
	Storage        Storage   `toml:"storage"`
	Update         Update    `toml:"update"`
	Center         Center    `toml:"center"`
	Lookup         Lookup    `toml:"lookup"`
	MCP            MCP       `toml:"mcp"`
	Web            Web       `toml:"web"`
	WiFi           WiFi      `toml:"wifi"`
	Sim            Sim       `toml:"sim"`
}

// Lookup configures looking things up on the web.
type Lookup struct {
	SearXNG     string   `toml:"searxng"`
	BraveSearch string   `toml:"brave_search"`
	Wikipedia   string   `toml:"wikipedia"`
	FetchPages  bool     `toml:"fetch_pages"`
	Allow       []string `toml:"allow"`
}

// SimWebListen is where the simulation's web page listens unless [web]
// listen says otherwise: this computer only.
const SimWebListen = "127.0.0.1:8080"

// Web configures the box's web page.
type Web struct {
	Listen     string   `toml:"listen"`
	AnyAddress bool     `toml:"any_address"`
	IdleExpiry Duration `toml:"idle_expiry"`
	TLS        string   `toml:"tls"`
	Names      []string `toml:"names"`
	MDNS       bool     `toml:"mdns"`
}

// MCP configures the Model Context Protocol servers whose tools the
// assistant may use.
type MCP struct {
	// FirstTry bounds how long a one-shot command (hark ask, hark mcp
	// list) and the center's first conversations wait for the servers'
	// first connection; a slower server's tools join later.
	FirstTry Duration    `toml:"first_try"`
	Servers  []MCPServer `toml:"server"`
}

// MCPServer is one MCP server: a command (stdio) or a URL (streamable
// HTTP).
type MCPServer struct {
	Name        string   `toml:"name"`
	Command     []string `toml:"command"`
	Env         []string `toml:"env"`
	URL         string   `toml:"url"`
	TokenSecret string   `toml:"token_secret"`
	Allow       []string `toml:"allow"`
	Deny        []string `toml:"deny"`
	Confirm     []string `toml:"confirm"`
	Timeout     Duration `toml:"timeout"`
}

// Center configures the command center: on a node, the center it asks
// (URL set); on the center, where `hark center` listens.
type Center struct {
	URL          string `toml:"url"`
	Key          string `toml:"key"`
	Fingerprint  string `toml:"fingerprint"`
	InsecureHTTP bool   `toml:"insecure_http"`
	Room         string `toml:"room"`
	// Transcribe sends the node's utterances to the center's
	// speech-to-text, for a node without a whisper model of its own.
	Transcribe bool   `toml:"transcribe"`
	Listen     string `toml:"listen"`
}

// Log configures logging.
type Log struct {
	Level string `toml:"level"`
}

// Ollama configures the model server.
type Ollama struct {
	Host        string   `toml:"host"`
	Model       string   `toml:"model"`
	AuxModel    string   `toml:"aux_model"`
	KeepAlive   Duration `toml:"keep_alive"`
	NumCtx      int      `toml:"num_ctx"`
	ChatTimeout Duration `toml:"chat_timeout"`
	ReplyBudget Duration `toml:"reply_budget"`
	// LoadBudget bounds a question's wait for the model to load.
	LoadBudget Duration `toml:"load_budget"`
	// KeepWarm loads the model again when a shared server evicts it.
	KeepWarm bool `toml:"keep_warm"`
	// Watch is how often the daemon asks the server whether it still
	// holds the model (renewing or reloading it as KeepWarm says).
	Watch Duration `toml:"watch"`
	// Parallel is how many turns go to the server at once; 0 learns it.
	Parallel int `toml:"parallel"`
	// AnswerTokens bounds a chat answer's tokens (Ollama's num_predict);
	// -1 for no bound.
	AnswerTokens int `toml:"answer_tokens"`
	// Endpoints, when set, are a fallback chain of model servers in order
	// of preference, each with its model; host and model above are then
	// unused.
	Endpoints []Endpoint `toml:"endpoint"`
}

// Endpoint is one model server of the fallback chain.
type Endpoint struct {
	Host  string `toml:"host"`
	Model string `toml:"model"`
}

// Assistant configures the persona and the conversation.
type Assistant struct {
	Name              string   `toml:"name"`
	Room              string   `toml:"room"`
	Place             string   `toml:"place"`
	TimeZone          string   `toml:"time_zone"`
	ConversationLapse Duration `toml:"conversation_lapse"`
	HistoryTurns      int      `toml:"history_turns"`
	HistoryChars      int      `toml:"history_chars"`
	MaxTurns          int      `toml:"max_turns"`
}

// Reply configures the reply engine's small-model steps.
type Reply struct {
	Planner        bool     `toml:"planner"`
	Router         string   `toml:"router"`
	RouterMax      int      `toml:"router_max"`
	ToolTokens     int      `toml:"tool_tokens"`
	ToolStyle      string   `toml:"tool_style"`
	AuxShare       float64  `toml:"aux_share"`
	MemoryDigest   string   `toml:"memory_digest"`
	ToolDigest     string   `toml:"tool_digest"`
	MemoryResults  int      `toml:"memory_results"`
	ToolSearchMax  int      `toml:"tool_search_max"`
	CarryTurns     int      `toml:"carry_turns"`
	CarryChars     int      `toml:"carry_chars"`
	PlannerTimeout Duration `toml:"planner_timeout"`
	AuxTimeout     Duration `toml:"aux_timeout"`
	DigestTimeout  Duration `toml:"digest_timeout"`
}

// Pipeline configures the turn: the follow-up window and ringing.
type Pipeline struct {
	FollowUp       string   `toml:"follow_up"`
	FollowUpWindow Duration `toml:"follow_up_window"`
	RingFor        Duration `toml:"ring_for"`
}

// Whisper configures speech-to-text.
type Whisper struct {
	Model          string   `toml:"model"`
	Threads        int      `toml:"threads"`
	Language       string   `toml:"language"`
	Vocabulary     []string `toml:"vocabulary"`
	FullWindow     bool     `toml:"full_window"`
	BeamSize       int      `toml:"beam_size"`
	FlashAttention bool     `toml:"flash_attention"`
	VADModel       string   `toml:"vad_model"`
	NoSpeech       float64  `toml:"no_speech"`
	MinConfidence  float64  `toml:"min_confidence"`
	Remote         string   `toml:"remote"`
	RemoteTimeout  Duration `toml:"remote_timeout"`
	// LoadTimeout bounds the test load of the model in a child process
	// before the daemon loads it (a corrupt model hangs or aborts).
	LoadTimeout Duration `toml:"load_timeout"`
}

// Audio configures the microphone and the speaker.
type Audio struct {
	// Volume is the level before the user first changes it.
	Volume int `toml:"volume"`
	// Capture and Playback are ALSA device names; empty takes the board's.
	Capture  string `toml:"capture"`
	Playback string `toml:"playback"`
	// Earcons switches all the short sounds; each plays when this and
	// its own key are on.
	Earcons bool `toml:"earcons"`
	// EarconStart and EarconEnd are the notes as listening starts and
	// ends, EarconError the sound of a failed turn, EarconThinking the
	// pulse while a reply is worked out.
	EarconStart    bool `toml:"earcon_start"`
	EarconEnd      bool `toml:"earcon_end"`
	EarconError    bool `toml:"earcon_error"`
	EarconThinking bool `toml:"earcon_thinking"`
	// EarconReady is the chime the first time the model is ready after
	// the box starts.
	EarconReady  bool     `toml:"earcon_ready"`
	PreRoll      Duration `toml:"pre_roll"`
	MaxUtterance Duration `toml:"max_utterance"`
}

// Listen configures how an utterance begins and ends.
type Listen struct {
	Mode       string   `toml:"mode"`
	Silence    Duration `toml:"silence"`
	SilenceMin Duration `toml:"silence_min"`
	SilenceMax Duration `toml:"silence_max"`
	// SilenceSoft is how long other voices in the room, heard where the
	// user's have stopped, end an utterance that is not a whole request.
	SilenceSoft Duration `toml:"silence_soft"`
	NoSpeech    Duration `toml:"no_speech"`
	VAD         string   `toml:"vad"`
	// Speculate transcribes at the pauses in speech, and ends a whole
	// request after Settle of silence; Pause is the silence that is a pause.
	Speculate bool     `toml:"speculate"`
	Settle    Duration `toml:"settle"`
	Pause     Duration `toml:"pause"`
}

// Button configures the push button and the mute switch.
type Button struct {
	Pin           string   `toml:"pin"`
	ActiveHigh    bool     `toml:"active_high"`
	Debounce      Duration `toml:"debounce"`
	LongPress     Duration `toml:"long_press"`
	DoublePress   Duration `toml:"double_press"`
	DoubleAction  string   `toml:"double_action"`
	VeryLongPress Duration `toml:"very_long_press"`
	FactoryReset  bool     `toml:"factory_reset"`
	MutePin       string   `toml:"mute_pin"`
}

// LEDs configures the status LEDs.
type LEDs struct {
	Brightness float64  `toml:"brightness"`
	Idle       string   `toml:"idle"`
	Pins       []string `toml:"pins"`
}

// Commands configures the command framework.
type Commands struct {
	RefineWindow Duration `toml:"refine_window"`
	// SecretsKey is the file holding the key secrets are encrypted with;
	// empty for secrets.key in the data directory.
	SecretsKey string `toml:"secrets_key"`
}

// Weather configures get_weather.
type Weather struct {
	Location    string `toml:"location"`
	Units       string `toml:"units"`
	ForecastURL string `toml:"forecast_url"`
	GeocodeURL  string `toml:"geocode_url"`
}

// TTS configures speech output.
type TTS struct {
	Engine string `toml:"engine"`
	Voice  string `toml:"voice"`
	Rate   int    `toml:"rate"`
	Pitch  int    `toml:"pitch"`
	// Wyoming is a neural voice's server, "tcp://HOST:PORT"; "" for none.
	Wyoming string `toml:"wyoming"`
	// Voices maps a language code to the Wyoming server's voice name.
	Voices map[string]string `toml:"voices"`
	// EspeakVoices maps a language code to an espeak-ng voice, over the
	// built-in ones.
	EspeakVoices map[string]string `toml:"espeak_voices"`
	// Deadline is how long the Wyoming voice may take to send a
	// sentence's first audio (then 1 s between pieces) before espeak-ng
	// says it instead.
	Deadline Duration `toml:"deadline"`
}

// Storage configures the database.
type Storage struct {
	Profile string `toml:"profile"`
	// ReserveMiB is the free space kept on the data partition: below it
	// writes are refused, and no update download may cross it.
	ReserveMiB int `toml:"reserve_mib"`
	// Mount is where the data partition is mounted, the data directory on
	// it; empty for no such check. While nothing is mounted there the box
	// holds what it is told in memory rather than write it to the
	// filesystem below (on the image, a tmpfs).
	Mount string `toml:"mount"`
}

// Update configures the over-the-air updates.
type Update struct {
	// Manifest is the update server's manifest URL; empty for none.
	Manifest string `toml:"manifest"`
	// Every is how often the update timer's check really asks the server
	// (the timer fires hourly); 0 leaves updates to be asked for by hand.
	Every Duration `toml:"every"`
	// Dir keeps downloaded bundles; empty for "updates" in the data
	// directory.
	Dir string `toml:"dir"`
	// RAUCBus is the D-Bus address of the RAUC service; empty for the
	// system bus.
	RAUCBus string `toml:"rauc_bus"`
}

// Sim configures the desktop simulation.
type Sim struct {
	MicWAV          string `toml:"mic_wav"`
	Realtime        bool   `toml:"realtime"`
	SpeakerRate     int    `toml:"speaker_rate"`
	SpeakerChannels int    `toml:"speaker_channels"`
	KeepReplies     int    `toml:"keep_replies"`
	// BootClock starts the simulated board's wall clock at this time (RFC
	// 3339), not synchronised, as a board without a real-time clock boots;
	// empty is the computer's clock, synchronised.
	BootClock string `toml:"boot_clock"`
	// NoNetwork plays a box on no network: its own Wi-Fi opens (pretended)
	// and the page's Wi-Fi setup can be tried.
	NoNetwork bool `toml:"no_network"`
}

// WiFi configures the box's own access point, which a board without a
// network opens so that a phone can give it one.
type WiFi struct {
	Hotspot bool     `toml:"hotspot"`
	Grace   Duration `toml:"grace"`
}

// Default returns the built-in configuration.
func Default() Config {
	return Config{
		Board:          "sim",
		MemoryLimitMiB: 48,
		Log:            Log{Level: "info"},
		Ollama: Ollama{
			Model:       "llama3.2:3b",
			KeepAlive:   Duration{30 * time.Minute},
			NumCtx:      4096,
			ChatTimeout: Duration{60 * time.Second},
			ReplyBudget: Duration{15 * time.Second},
			LoadBudget:  Duration{3 * time.Minute},
			KeepWarm:    true,
			Watch:       Duration{30 * time.Second},
			Endpoints:   []Endpoint{},
			// The reply engine's own default: a spoken answer's length.
			AnswerTokens: 256,
		},
		Assistant: Assistant{
			Name:              "Jarvis",
			ConversationLapse: Duration{5 * time.Minute},
			HistoryTurns:      6,
			HistoryChars:      4000,
			MaxTurns:          8,
		},
		Reply: Reply{Planner: true, Router: "llm", RouterMax: 5, ToolStyle: "auto", AuxShare: 0.25, MemoryDigest: "auto", ToolDigest: "off", MemoryResults: 5,
			ToolSearchMax: 3, CarryTurns: 3, CarryChars: 800, PlannerTimeout: Duration{6 * time.Second},
			AuxTimeout: Duration{8 * time.Second}, DigestTimeout: Duration{8 * time.Second}},
		Pipeline: Pipeline{FollowUp: "when-asked", FollowUpWindow: Duration{4 * time.Second}, RingFor: Duration{15 * time.Minute}},
		Whisper: Whisper{Language: "auto", Vocabulary: []string{}, BeamSize: 1, FlashAttention: true, NoSpeech: 0.6, MinConfidence: 0.35,
			RemoteTimeout: Duration{15 * time.Second}, LoadTimeout: Duration{time.Minute}},
		Audio: Audio{Volume: 70, Earcons: true, EarconStart: true, EarconEnd: true, EarconError: true, EarconReady: true,
			PreRoll: Duration{time.Second}, MaxUtterance: Duration{15 * time.Second}},
		Listen: Listen{Mode: "tap", SilenceMin: Duration{500 * time.Millisecond}, SilenceMax: Duration{950 * time.Millisecond}, SilenceSoft: Duration{1500 * time.Millisecond}, NoSpeech: Duration{5 * time.Second}, VAD: "auto",
			Speculate: true, Settle: Duration{300 * time.Millisecond}, Pause: Duration{250 * time.Millisecond}},
		Button: Button{Debounce: Duration{30 * time.Millisecond}, LongPress: Duration{1500 * time.Millisecond},
			DoublePress: Duration{400 * time.Millisecond}, DoubleAction: "mute", VeryLongPress: Duration{10 * time.Second}, FactoryReset: true},
		LEDs:     LEDs{Brightness: 0.5, Idle: "off", Pins: []string{}},
		Commands: Commands{RefineWindow: Duration{30 * time.Second}},
		Weather: Weather{Units: "metric", ForecastURL: "https://api.open-meteo.com/v1/forecast",
			GeocodeURL: "https://geocoding-api.open-meteo.com/v1/search"},
		TTS:     TTS{Engine: "espeak-ng", Voice: "en", Rate: 175, Pitch: 50, Voices: map[string]string{}, EspeakVoices: map[string]string{}, Deadline: Duration{3 * time.Second}},
		Storage: Storage{Profile: "low-memory", ReserveMiB: 16},
		Update:  Update{Every: Duration{24 * time.Hour}},
		Center:  Center{Listen: ":8765"},
		MCP:     MCP{FirstTry: Duration{1200 * time.Millisecond}, Servers: []MCPServer{}},
		Web:     Web{Listen: ":8080", IdleExpiry: Duration{30 * time.Minute}, TLS: "auto", Names: []string{}, MDNS: true},
		Lookup:  Lookup{Allow: []string{}},
		WiFi:    WiFi{Hotspot: true, Grace: Duration{2 * time.Minute}},
		Sim:     Sim{Realtime: true, SpeakerRate: 48000, SpeakerChannels: 2, KeepReplies: 20},
	}
}

// Duration is a time.Duration written as a string ("30s", "5m") in TOML.
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("invalid duration %q (write it like \"30s\" or \"5m\")", b)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration as a Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.Duration.String()), nil }
