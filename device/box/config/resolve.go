package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/harkbox/hark/device/board"
	"github.com/harkbox/hark/internal/egress"
	"github.com/harkbox/hark/pipeline/whisper"
	"github.com/harkbox/hark/reply/command/mcp"
	"github.com/harkbox/hark/reply/llm"
)

// envName is a variable's name as a stdio MCP server's env gives it.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Resolved holds values derived from the configuration by Resolve.
type Resolved struct {
	OllamaURL *url.URL
	// Endpoints are the fallback chain's servers, parsed; empty for one
	// server.
	Endpoints []ResolvedEndpoint
	Location  *time.Location
	// BootClock is [sim] boot_clock; zero for none.
	BootClock time.Time
	// MCP are the MCP servers, checked.
	MCP []mcp.Server
}

// ResolvedEndpoint is one server of the fallback chain.
type ResolvedEndpoint struct {
	URL   *url.URL
	Model string
}

// Resolve checks every value, reporting all problems at once, each naming
// its key and where the value came from, and fills in derived values: the
// data directory when none is set, the model server's URL, the time zone.
//
// The data directory defaults to $STATE_DIRECTORY (set by systemd's
// StateDirectory=), else /var/lib/hark on a board, else
// $XDG_STATE_HOME/hark or ~/.local/state/hark.
func (l *Loaded) Resolve(env Env) (Resolved, error) {
	var r Resolved
	ck := &checker{l: l}
	c := &l.Config
	ck.model(c, &r)
	ck.conversation(c, &r)
	ck.hearing(c)
	ck.speech(c)
	if b := c.Sim.BootClock; b != "" {
		t, err := time.Parse(time.RFC3339, b)
		if err != nil {
			ck.bad("sim.boot_clock", "%q is not an RFC 3339 time such as 2024-01-01T00:00:00Z", b)
		}
		r.BootClock = t
	}
	ck.places(c, &r, env)
	if len(ck.problems) > 0 {
		return r, errors.New(strings.Join(ck.problems, "\n"))
	}
	return r, nil
}

// checker gathers the problems of a configuration, each naming its key and
// where the value came from.
type checker struct {
	l        *Loaded
	problems []string
}

// bad adds a problem of key. The value it quotes keeps no password or
// token: the problems of the configuration are logged at the start.
func (ck *checker) bad(key, format string, a ...any) {
	ck.problems = append(ck.problems, fmt.Sprintf("config %s: %s: %s", ck.l.where(key), key, hideSecrets(fmt.Sprintf(format, a...))))
}

func (ck *checker) oneOf(key, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		ck.bad(key, "%q is not one of %s", v, strings.Join(allowed, ", "))
	}
}

func (ck *checker) between(key string, v, lo, hi int) {
	if v < lo || v > hi {
		ck.bad(key, "%d is outside %d..%d", v, lo, hi)
	}
}

func (ck *checker) positive(key string, d Duration) {
	if d.Duration <= 0 {
		ck.bad(key, "%s must be longer than zero", d.Duration)
	}
}

// model checks the board, the log and the model servers, and parses their addresses.
func (ck *checker) model(c *Config, r *Resolved) {
	ck.oneOf("board", c.Board, board.Names())
	ck.oneOf("log.level", c.Log.Level, []string{"debug", "info", "warn", "error"})

	u, err := llm.ParseHost(c.Ollama.Host)
	if err != nil {
		ck.bad("ollama.host", "%s", strings.TrimPrefix(err.Error(), "llm: "))
	}
	r.OllamaURL = u
	if u != nil {
		c.Ollama.Host = u.String()
	}
	if strings.TrimSpace(c.Ollama.Model) == "" {
		ck.bad("ollama.model", "no model named")
	}
	for i, ep := range c.Ollama.Endpoints {
		key := fmt.Sprintf("ollama.endpoint[%d]", i)
		eu, err := llm.ParseHost(ep.Host)
		switch {
		case strings.TrimSpace(ep.Host) == "":
			ck.bad(key+".host", "no host: each endpoint names its server")
		case err != nil:
			ck.bad(key+".host", "%s", strings.TrimPrefix(err.Error(), "llm: "))
		case strings.TrimSpace(ep.Model) == "":
			ck.bad(key+".model", "no model named")
		default:
			r.Endpoints = append(r.Endpoints, ResolvedEndpoint{URL: eu, Model: ep.Model})
		}
	}
	ck.between("ollama.num_ctx", c.Ollama.NumCtx, 0, 1<<20)
	ck.between("ollama.answer_tokens", c.Ollama.AnswerTokens, -1, 1<<16)
	ck.positive("ollama.chat_timeout", c.Ollama.ChatTimeout)
	ck.positive("ollama.reply_budget", c.Ollama.ReplyBudget)
	ck.positive("ollama.load_budget", c.Ollama.LoadBudget)
	ck.positive("ollama.watch", c.Ollama.Watch)
	ck.between("ollama.parallel", c.Ollama.Parallel, 0, 64)
}

// conversation checks the assistant and the reply engine, and loads the time zone.
func (ck *checker) conversation(c *Config, r *Resolved) {
	if strings.TrimSpace(c.Assistant.Name) == "" {
		ck.bad("assistant.name", "the assistant needs a name")
	}
	r.Location = time.Local
	if c.Assistant.TimeZone != "" {
		loc, err := time.LoadLocation(c.Assistant.TimeZone)
		if err != nil {
			ck.bad("assistant.time_zone", "unknown time zone %q", c.Assistant.TimeZone)
		} else {
			r.Location = loc
		}
	}
	ck.positive("assistant.conversation_lapse", c.Assistant.ConversationLapse)
	ck.between("assistant.history_turns", c.Assistant.HistoryTurns, 1, 50)
	ck.between("assistant.history_chars", c.Assistant.HistoryChars, 100, 100000)

	ck.between("assistant.max_turns", c.Assistant.MaxTurns, 1, 20)
	ck.oneOf("reply.router", c.Reply.Router, []string{"llm", "keyword", "all"})
	ck.between("reply.router_max", c.Reply.RouterMax, 1, 30)
	if c.Reply.ToolTokens != 0 {
		ck.between("reply.tool_tokens", c.Reply.ToolTokens, 50, 20000)
	}
	ck.oneOf("reply.tool_style", c.Reply.ToolStyle, []string{"auto", "native", "text"})
	if c.Reply.AuxShare < 0 || c.Reply.AuxShare > 1 {
		ck.bad("reply.aux_share", "%v is outside 0..1", c.Reply.AuxShare)
	}
	ck.oneOf("reply.memory_digest", c.Reply.MemoryDigest, []string{"auto", "on", "off"})
	ck.oneOf("reply.tool_digest", c.Reply.ToolDigest, []string{"auto", "on", "off"})
	ck.between("reply.memory_results", c.Reply.MemoryResults, 1, 50)
	ck.between("reply.tool_search_max", c.Reply.ToolSearchMax, 0, 10)
	ck.between("reply.carry_turns", c.Reply.CarryTurns, 0, 20)
	ck.between("reply.carry_chars", c.Reply.CarryChars, 100, 20000)
	ck.positive("reply.planner_timeout", c.Reply.PlannerTimeout)
	ck.positive("reply.aux_timeout", c.Reply.AuxTimeout)
	ck.positive("reply.digest_timeout", c.Reply.DigestTimeout)
}

// hearing checks the pipeline, the audio, the listening, the button and the LEDs.
func (ck *checker) hearing(c *Config) {
	ck.oneOf("pipeline.follow_up", c.Pipeline.FollowUp, []string{"off", "when-asked", "always"})
	ck.positive("pipeline.follow_up_window", c.Pipeline.FollowUpWindow)
	ck.positive("pipeline.ring_for", c.Pipeline.RingFor)
	ck.between("audio.volume", c.Audio.Volume, 0, 100)
	if d := c.Audio.PreRoll.Duration; d < 0 || d > 2*time.Second {
		ck.bad("audio.pre_roll", "%v is outside 0s..2s", d)
	}
	if d := c.Audio.MaxUtterance.Duration; d < time.Second || d > 2*time.Minute {
		ck.bad("audio.max_utterance", "%v is outside 1s..2m", d)
	}
	ck.oneOf("listen.mode", c.Listen.Mode, []string{"tap", "hold"})
	if d := c.Listen.Silence.Duration; d != 0 && (d < 200*time.Millisecond || d > 5*time.Second) {
		ck.bad("listen.silence", "%v is outside 200ms..5s", d)
	}
	for _, k := range []struct {
		name string
		d    time.Duration
	}{{"listen.silence_min", c.Listen.SilenceMin.Duration}, {"listen.silence_max", c.Listen.SilenceMax.Duration}, {"listen.silence_soft", c.Listen.SilenceSoft.Duration},
		{"listen.settle", c.Listen.Settle.Duration}, {"listen.pause", c.Listen.Pause.Duration}} {
		if k.d < 200*time.Millisecond || k.d > 5*time.Second {
			ck.bad(k.name, "%v is outside 200ms..5s", k.d)
		}
	}
	if c.Listen.Settle.Duration > c.Listen.SilenceMin.Duration {
		ck.bad("listen.settle", "%v is longer than listen.silence_min (%v): a whole request would wait longer than any other", c.Listen.Settle.Duration, c.Listen.SilenceMin.Duration)
	}
	if c.Listen.SilenceMax.Duration < c.Listen.SilenceMin.Duration {
		ck.bad("listen.silence_max", "%v is shorter than listen.silence_min (%v)", c.Listen.SilenceMax.Duration, c.Listen.SilenceMin.Duration)
	}
	if c.Listen.SilenceSoft.Duration < c.Listen.SilenceMax.Duration {
		ck.bad("listen.silence_soft", "%v is shorter than listen.silence_max (%v): other voices in the room would end an utterance sooner than silence does", c.Listen.SilenceSoft.Duration, c.Listen.SilenceMax.Duration)
	}
	ck.positive("listen.no_speech", c.Listen.NoSpeech)
	ck.oneOf("listen.vad", c.Listen.VAD, []string{"auto", "energy", "silero"})
	if c.Listen.VAD == "silero" && c.Whisper.VADModel == "" {
		ck.bad("listen.vad", "\"silero\" needs whisper.vad_model, the Silero model file")
	}
	ck.positive("button.debounce", c.Button.Debounce)
	ck.positive("button.long_press", c.Button.LongPress)
	ck.positive("button.double_press", c.Button.DoublePress)
	ck.oneOf("button.double_action", c.Button.DoubleAction, []string{"mute", "stop", "none"})
	if c.Button.VeryLongPress.Duration <= c.Button.LongPress.Duration {
		ck.bad("button.very_long_press", "%v is not longer than button.long_press", c.Button.VeryLongPress.Duration)
	}
	if b := c.LEDs.Brightness; b <= 0 || b > 1 {
		ck.bad("leds.brightness", "%v is outside (0, 1]", b)
	}
	ck.oneOf("leds.idle", c.LEDs.Idle, []string{"off", "dim"})
}

// speech checks speech-to-text, the commands, the weather, the voice, the storage and the simulation.
func (ck *checker) speech(c *Config) {
	ck.between("whisper.threads", c.Whisper.Threads, 0, 64)
	ck.between("whisper.beam_size", c.Whisper.BeamSize, 1, 16)
	if c.Whisper.NoSpeech <= 0 || c.Whisper.NoSpeech > 1 {
		ck.bad("whisper.no_speech", "%v is outside (0, 1]", c.Whisper.NoSpeech)
	}
	if c.Whisper.MinConfidence < 0 || c.Whisper.MinConfidence >= 1 {
		ck.bad("whisper.min_confidence", "%v is outside [0, 1)", c.Whisper.MinConfidence)
	}
	// whisper.cpp decodes an unknown code with a broken prompt and no
	// error; the Wyoming server is whisper too.
	if l, err := whisper.CheckLanguage(c.Whisper.Language); err != nil {
		ck.bad("whisper.language", "%s", strings.TrimPrefix(err.Error(), "whisper: "))
	} else {
		c.Whisper.Language = l
	}
	if r := c.Whisper.Remote; r != "" {
		if _, _, err := net.SplitHostPort(r); err != nil {
			ck.bad("whisper.remote", "%q is not host:port", r)
		}
	}
	ck.positive("whisper.remote_timeout", c.Whisper.RemoteTimeout)
	ck.positive("whisper.load_timeout", c.Whisper.LoadTimeout)
	ck.positive("commands.refine_window", c.Commands.RefineWindow)
	ck.oneOf("weather.units", c.Weather.Units, []string{"metric", "imperial"})
	for key, v := range map[string]string{"weather.forecast_url": c.Weather.ForecastURL, "weather.geocode_url": c.Weather.GeocodeURL} {
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			ck.bad(key, "%q is not an http or https URL", v)
		}
	}

	ck.oneOf("tts.engine", c.TTS.Engine, []string{"espeak-ng", "off"})
	ck.between("tts.rate", c.TTS.Rate, 80, 450)
	ck.between("tts.pitch", c.TTS.Pitch, 0, 99)

	ck.oneOf("storage.profile", c.Storage.Profile, []string{"low-memory", "standard"})
	ck.between("storage.reserve_mib", c.Storage.ReserveMiB, 4, 4096)
	if m := c.Storage.Mount; m != "" && !filepath.IsAbs(m) {
		ck.bad("storage.mount", "%q is not an absolute path", m)
	}

	ck.between("sim.speaker_rate", c.Sim.SpeakerRate, 8000, 192000)
	ck.between("sim.speaker_channels", c.Sim.SpeakerChannels, 1, 2)
	ck.between("sim.keep_replies", c.Sim.KeepReplies, 1, 1000)
}

// places fills in and checks the paths and addresses: the data directory, the socket, the updates, the Wyoming voice, the web page, the MCP servers, the lookups and the center.
func (ck *checker) places(c *Config, r *Resolved, env Env) {
	if c.DataDir == "" {
		c.DataDir = defaultDataDir(c.Board, env)
	}
	if c.DataDir == "" {
		ck.bad("data_dir", "no data directory set and neither $HOME nor $XDG_STATE_HOME to derive one")
	}
	if c.ControlSocket == "" {
		c.ControlSocket = "/run/hark/control.sock"
		if c.Board == "sim" {
			c.ControlSocket = filepath.Join(c.DataDir, "control.sock")
		}
	}
	if m := c.Update.Manifest; m != "" {
		if u, err := url.Parse(m); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			ck.bad("update.manifest", "%q is not an http or https URL", m)
		}
	}
	if c.Update.Every.Duration < 0 {
		ck.bad("update.every", "%v is negative (0 leaves updates to be asked for by hand)", c.Update.Every.Duration)
	}
	if w := c.TTS.Wyoming; w != "" {
		u, err := url.Parse(w)
		if err != nil || u.Scheme != "tcp" || u.Port() == "" || u.Hostname() == "" {
			ck.bad("tts.wyoming", "%q is not tcp://HOST:PORT", w)
		}
	}
	ck.positive("tts.deadline", c.TTS.Deadline)
	if ck.l.Sources["web.listen"] == "default" && c.Board == "sim" {
		// The simulation's page is this computer's only, unless the
		// configuration says otherwise.
		c.Web.Listen = SimWebListen
	}
	if l := c.Web.Listen; l != "" {
		if _, port, err := net.SplitHostPort(l); err != nil || port == "" {
			ck.bad("web.listen", "%q is not HOST:PORT or :PORT (\"\" turns the page off)", l)
		}
	}
	if c.MemoryLimitMiB < 0 {
		ck.bad("memory_limit_mib", "%d is negative (0 turns the limit off)", c.MemoryLimitMiB)
	}
	ck.positive("web.idle_expiry", c.Web.IdleExpiry)
	ck.positive("wifi.grace", c.WiFi.Grace)
	ck.positive("mcp.first_try", c.MCP.FirstTry)
	ck.oneOf("web.tls", c.Web.TLS, []string{"auto", "on", "off"})
	for i, ms := range c.MCP.Servers {
		s := mcp.Server{Name: ms.Name, Command: ms.Command, Env: ms.Env, URL: ms.URL, TokenSecret: ms.TokenSecret,
			Allow: ms.Allow, Deny: ms.Deny, Confirm: ms.Confirm, Timeout: ms.Timeout.Duration}
		if err := s.Check(); err != nil {
			ck.bad(fmt.Sprintf("mcp.server[%d]", i), "%s", strings.TrimPrefix(err.Error(), "mcp: "))
			continue
		}
		if slices.ContainsFunc(r.MCP, func(o mcp.Server) bool { return o.Name == s.Name }) {
			ck.bad(fmt.Sprintf("mcp.server[%d].name", i), "%q is the name of another server", s.Name)
			continue
		}
		for _, e := range ms.Env {
			if k, _, _ := strings.Cut(e, "="); !envName.MatchString(k) {
				ck.bad(fmt.Sprintf("mcp.server[%d].env", i), "%q is not KEY=VALUE or the name of a variable to pass on", e)
			}
		}
		r.MCP = append(r.MCP, s)
	}
	if _, err := egress.Parse(c.Lookup.Allow); err != nil {
		ck.bad("lookup.allow", "%s", strings.TrimPrefix(err.Error(), "egress: "))
	}
	for key, u := range map[string]string{"lookup.searxng": c.Lookup.SearXNG, "lookup.brave_search": c.Lookup.BraveSearch, "lookup.wikipedia": c.Lookup.Wikipedia} {
		if u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			ck.bad(key, "%q is not an http or https URL", u)
		}
	}
	if u := c.Center.URL; u != "" {
		switch {
		case !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://"):
			ck.bad("center.url", "%q is not an https URL", u)
		case strings.HasPrefix(u, "http://") && !c.Center.InsecureHTTP:
			ck.bad("center.url", "%q is plain HTTP: set center.insecure_http = true for a trusted LAN, or use https", u)
		case strings.HasPrefix(u, "https://") && c.Center.Fingerprint == "":
			ck.bad("center.fingerprint", "is empty: the center prints it with the node's key")
		}
		if id, key, ok := strings.Cut(c.Center.Key, ":"); !ok || id == "" || key == "" {
			ck.bad("center.key", "want NODE_ID:KEY, as `hark center nodes add NAME` printed it")
		}
	} else if c.Center.Transcribe {
		ck.bad("center.transcribe", "needs center.url: the center that transcribes")
	}
	if c.Update.Dir == "" {
		c.Update.Dir = filepath.Join(c.DataDir, "updates")
	}
}

// where names the source of key for an error message: the file path, the
// variable or the flag.
func (l *Loaded) where(key string) string {
	s := l.Sources[key]
	if f, ok := strings.CutPrefix(s, "file "); ok {
		return f
	}
	return s
}

func defaultDataDir(board string, env Env) string {
	if s := env("STATE_DIRECTORY"); s != "" {
		return strings.Split(s, ":")[0]
	}
	if board != "sim" {
		return "/var/lib/hark"
	}
	if x := env("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "hark")
	}
	if h := env("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "hark")
	}
	return ""
}
