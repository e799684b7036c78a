package box

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/device/mdns"
	"github.com/harkbox/hark/device/web"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/espeak"
)

// TestSettingsLive: the settings page shows the volume the speaker plays
// at, however it was set; in a running daemon the follow-up, the earcons
// and the name and place apply at once, and the page lists them as in use.
func TestSettingsLive(t *testing.T) {
	srv, _ := modelServer(t)
	cfg, res := configure(t, "[tts]\nengine = \"off\"\n", map[string]string{"OLLAMA_HOST": srv.URL})
	b, err := Open(cfg, res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := pipeline.New(pipeline.Options{Microphone: silentMic{}, Transcriber: noWords{}, Replier: pipeline.ReplierFunc(nil)})
	if err != nil {
		t.Fatal(err)
	}
	var persona [2]string
	var voices, names []string
	lv := &live{restart: func() {}, pipe: p, earcons: true, persona: func(n, pl string) { persona = [2]string{n, pl} },
		voice:  func(v string, rate int) { voices = append(voices, fmt.Sprint(v, " ", rate)) },
		rename: func(name, room string) { names = append(names, instanceName(name, room)) }}
	s := b.api(nil, nil, &page{}, lv, nil).Settings
	ctx := t.Context()
	if err := b.mixer.SetVolume(ctx, 30, false); err != nil { // "volume 30", said aloud
		t.Fatal(err)
	}
	value := func(key string) (string, string) {
		t.Helper()
		list, err := s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range list {
			if st.Key == key {
				return st.Value, st.Saved
			}
		}
		t.Fatalf("no setting %s", key)
		return "", ""
	}
	if v, _ := value("audio.volume"); v != "30" {
		t.Errorf("the page shows volume %s, the speaker plays at 30", v)
	}
	for _, kv := range [][2]string{{"pipeline.follow_up", "off"}, {"audio.earcon_thinking", "true"}, {"assistant.room", "kitchen"}, {"assistant.name", "Ada"}, {"listen.mode", "hold"},
		{"tts.voice", "en-gb-scotland"}, {"tts.rate", "140"}} {
		if err := s.Set(ctx, kv[0], kv[1]); err != nil {
			t.Fatalf("%s = %s: %v", kv[0], kv[1], err)
		}
	}
	for _, key := range []string{"pipeline.follow_up", "audio.earcon_thinking", "assistant.room", "assistant.name", "tts.voice", "tts.rate"} {
		if _, saved := value(key); saved != "" {
			t.Errorf("%s waits for a restart (%q)", key, saved)
		}
	}
	if _, saved := value("listen.mode"); saved != "hold" {
		t.Errorf("listen.mode is said to be in use: saved %q", saved)
	}
	if persona != [2]string{"Ada", "the kitchen speaker"} {
		t.Errorf("the engine was given %q", persona)
	}
	if want := []string{"Jarvis (kitchen)", "Ada (kitchen)"}; !slices.Equal(names, want) {
		t.Errorf("the page was announced as %q, want %q", names, want)
	}
	if want := []string{"en-gb-scotland 175", "en-gb-scotland 140"}; !slices.Equal(voices, want) {
		t.Errorf("the voice was set to %q, want %q", voices, want)
	}
	if err := s.Set(ctx, "ollama.host", "not a host::"); err == nil {
		t.Error("an address that is not one was kept")
	}
}

// TestSettingsTimeZoneLive: a time zone set on the page of a running box
// applies at once, no restart: the status's clock, the commands' time,
// the log's zone and the page are in it, and a pending 07:00 alarm moves
// to 07:00 there.
func TestSettingsTimeZoneLive(t *testing.T) {
	srv, _ := modelServer(t)
	cfg, res := configure(t, "[assistant]\ntime_zone = \"UTC\"\n[tts]\nengine = \"off\"\n", map[string]string{"OLLAMA_HOST": srv.URL})
	b, err := Open(cfg, res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := t.Context()
	alarm, err := b.alerts.AddAlarm(ctx, "", 7, 0, nil, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	status := health.New(health.Options{Version: "test", State: "idle", Log: slog.New(slog.DiscardHandler)})
	ws, err := web.New(ctx, web.Options{API: control.API{Box: status}, Store: b.db.Settings()})
	if err != nil {
		t.Fatal(err)
	}
	pg := &page{}
	pg.srv.Store(ws)
	r := &running{daemon: &daemon{}, b: b}
	lv := &live{restart: func() {}, zone: func(ctx context.Context, loc *time.Location) { r.setLocation(ctx, loc, pg) }}
	s := b.api(nil, nil, pg, lv, nil).Settings
	if err := s.Set(ctx, "assistant.time_zone", "Asia/Tokyo"); err != nil {
		t.Fatal(err)
	}
	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range list {
		if st.Key == "assistant.time_zone" && (st.Value != "Asia/Tokyo" || st.Saved != "") {
			t.Errorf("the page lists the zone as %q, saved for a restart %q; want Asia/Tokyo in use", st.Value, st.Saved)
		}
	}
	if got := b.clockStatus().Zone; got != "Asia/Tokyo" {
		t.Errorf("the status's zone is %q, want Asia/Tokyo", got)
	}
	if got := b.commands.Now().Location().String(); got != "Asia/Tokyo" {
		t.Errorf("the commands' time is in %q, want Asia/Tokyo", got)
	}
	if got := r.zone.Load(); got == nil || got.String() != "Asia/Tokyo" {
		t.Errorf("the log's zone is %v, want Asia/Tokyo", got)
	}
	items, err := b.alerts.Pending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	found := false
	for _, it := range items {
		if it.ID != alarm.ID {
			continue
		}
		found = true
		if d := it.Due.In(tokyo); it.Zone != "Asia/Tokyo" || d.Hour() != 7 || d.Minute() != 0 {
			t.Errorf("the alarm is due %v in %q, want 07:00 in Asia/Tokyo", d, it.Zone)
		}
	}
	if !found {
		t.Errorf("the alarm %s is not pending any more", alarm.ID)
	}
	if err := s.Set(ctx, "assistant.time_zone", "Mars/Olympus"); err == nil || b.location().String() != "Asia/Tokyo" {
		t.Errorf("an unknown zone: err %v, zone now %v; want it refused and Tokyo kept", err, b.location())
	}
}

// TestLiveVoice: the setter the settings use reaches espeak-ng whether it
// speaks alone or as a Wyoming voice's backup: a sentence after a slower
// rate is set lasts at least twice as long. Speech off has no setter.
func TestLiveVoice(t *testing.T) {
	e, err := espeak.New(espeak.Options{Rate: 300})
	if err != nil {
		t.Skip("espeak-ng is not installed (apt-get install espeak-ng):", err)
	}
	if liveVoice(nil) != nil {
		t.Error("speech off has a voice setter")
	}
	for _, s := range []pipeline.Synthesizer{e, &pipeline.VoiceFallback{Primary: e, Backup: e}} {
		set := liveVoice(s)
		if set == nil {
			t.Fatalf("%T has no voice setter", s)
		}
		set("en", 300)
		before, err := e.Synthesize(t.Context(), "The kitchen timer has five minutes left.")
		if err != nil {
			t.Fatal(err)
		}
		set("en", 100)
		after, err := e.Synthesize(t.Context(), "The kitchen timer has five minutes left.")
		if err != nil {
			t.Fatal(err)
		}
		if after.Duration() < 2*before.Duration() {
			t.Errorf("%T: got %v at 100 wpm, %v at 300; want the slow one twice as long", s, after.Duration(), before.Duration())
		}
	}
}

// TestPageRename: the page's mDNS responder answers with the assistant's
// new name and room once the page is renamed, without a restart.
func TestPageRename(t *testing.T) {
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &mdns.Responder{Host: "hark", Services: []mdns.Service{{Instance: "Jarvis", Type: "_http._tcp", Port: 8080, Text: []string{"path=/"}}},
		Addrs: func() []netip.Addr { return []netip.Addr{netip.MustParseAddr("192.168.1.20")} }}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go r.ServeConn(ctx, conn, nil)
	pg := &page{}
	pg.named.Store(r)
	pg.rename("Ada", "kitchen", slog.New(slog.DiscardHandler))
	ask, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	defer stop()
	found, err := mdns.Ask(ask, conn.LocalAddr(), "_http._tcp")
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Instance != "Ada (kitchen)" || found[0].Port != 8080 {
		t.Errorf("found %+v, want the page as Ada (kitchen) on 8080", found)
	}
}

// TestSettingsOverAFileThatDoesNotLoad: while the household's settings
// file does not all load, the page still lists the settings (those saved
// that load) and saves one, which rewrites the file and clears the
// settings check.
func TestSettingsOverAFileThatDoesNotLoad(t *testing.T) {
	cfg, _ := configure(t, "", map[string]string{"OLLAMA_HOST": "http://127.0.0.1:9"})
	path := filepath.Join(cfg.DataDir, config.SettingsFile)
	if err := os.WriteFile(path, []byte("'weather.units' = 'imperial'\n'audio.volume' = 'loud'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A copy kept aside by hand earlier, whose name sorts after the one
	// the save makes: the log names the copy this save made, not it.
	older := path + ".bad-old"
	if err := os.WriteFile(older, []byte("'audio.volume' = 'older'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := cfg.UseSettings(path, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	b, err := Open(cfg, res, Options{Log: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.settings.err(); err == nil || !strings.Contains(err.Error(), path+":2: audio.volume") {
		t.Errorf("settings check %v, want the volume named", err)
	}
	s := b.API().Settings
	list, err := s.List(t.Context())
	if err != nil {
		t.Fatalf("listing the settings: %v", err)
	}
	for _, st := range list {
		if st.Key == "audio.volume" && st.Saved != "" {
			t.Errorf("the volume is listed as saved at %q, which does not load", st.Saved)
		}
		if st.Key == "weather.units" && st.Value != "imperial" {
			t.Errorf("the units are %q, want those saved", st.Value)
		}
	}
	if err := s.Set(t.Context(), "assistant.name", "Friday"); err != nil {
		t.Fatalf("saving a setting: %v", err)
	}
	if err := b.settings.err(); err != nil {
		t.Errorf("settings check after the file was rewritten: %v", err)
	}
	aside, _ := filepath.Glob(path + ".bad-*")
	aside = slices.DeleteFunc(aside, func(p string) bool { return p == older })
	if len(aside) != 1 {
		t.Fatalf("kept aside %v besides %s, want one copy", aside, older)
	}
	if want := "kept=" + aside[0]; !strings.Contains(logged.String(), want) {
		t.Errorf("the log does not name the copy this save kept (%s):\n%s", want, logged.String())
	}
}
