package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/internal/disk"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/media"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/center"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/storage"
)

// wireNode makes the box a node of the command center in [center] url:
// replies come from the center, while the box's own commands answer
// offline and run the center's requests for timers, alarms and volume.
func (a *app) wireNode() error {
	c := a.cfg.Center
	if c.URL == "" {
		return nil
	}
	client, err := center.NewClient(center.ClientOptions{URL: c.URL, Credential: c.Key, Fingerprint: c.Fingerprint, Insecure: c.InsecureHTTP})
	if err != nil {
		return err
	}
	a.node = center.NewNode(center.NodeOptions{Client: client, Commands: a.commands, Tools: center.NodeTools,
		Room: c.Room, Timezone: a.res.Location.String(), Lapse: a.cfg.Assistant.ConversationLapse.Duration, Log: a.log})
	return nil
}

// centerSpeech puts the center's speech-to-text in front of the box's
// own when [center] transcribe is set: a node too small for a whisper
// model sends its utterances up, falling back to its own model if it has
// one.
func (a *app) centerSpeech(s speech) speech {
	c := a.cfg.Center
	if !c.Transcribe {
		return s
	}
	client, err := center.NewClient(center.ClientOptions{URL: c.URL, Credential: c.Key, Fingerprint: c.Fingerprint, Insecure: c.InsecureHTTP, Timeout: time.Minute})
	if err != nil {
		a.log.Error("the center's speech-to-text is off", "err", err)
		return s
	}
	remote := media.Remote{Center: client}
	if l := a.cfg.Whisper.Language; l != "auto" {
		remote.Language = l
	}
	if s.stt != nil {
		s.stt = pipeline.Fallback{Primary: remote, Secondary: s.stt, Log: a.log}
		s.note, s.engine = "speech-to-text: the command center's, falling back to "+s.engine, "the center "+c.URL+", else "+s.engine
		return s
	}
	s.stt, s.note, s.engine = remote, "speech-to-text: the command center's ("+c.URL+")", "the center "+c.URL
	return s
}

// nodeResult is what `hark ask --json` shows of a reply from the center.
type nodeResult struct {
	Text      string   `json:"reply"`
	Sentences []string `json:"sentences"`
	Center    string   `json:"center"`
	FollowUp  bool     `json:"follow_up"`
}

// answer replies to q: through the command center on a node, with the
// box's own engine otherwise. The result is what the API shows.
func (a *app) answer(ctx context.Context, q reply.Query, say func(string)) (any, bool, error) {
	if a.node == nil {
		res, err := a.engine.Reply(ctx, q, say)
		return res, res.FollowUp, err
	}
	var said []string
	if q.Language != "" {
		ctx = command.WithLanguage(ctx, q.Language)
	}
	followUp, err := a.node.Reply(ctx, q.Text, func(s string) {
		said = append(said, s)
		say(s)
	})
	return nodeResult{Text: strings.Join(said, " "), Sentences: said, Center: a.cfg.Center.URL, FollowUp: followUp}, followUp, err
}

// linked is the box's status with its link to the command center.
type linked struct {
	control.Box
	a *app
}

func (l linked) Status(ctx context.Context) control.Status {
	s := l.Box.Status(ctx)
	s.Started = l.a.started
	if l.a.cfg != nil && l.a.db != nil { // a test's box may have no store
		if sp, err := disk.Usage(l.a.cfg.DataDir); err == nil {
			s.Storage = &control.Storage{Free: sp.Free, Total: sp.Total, Full: errors.Is(l.a.db.Writable(), storage.ErrFull)}
		}
	}
	if c := l.a.brain.chain; c != nil {
		for _, ep := range c.Status() {
			s.Links = append(s.Links, modelLink(ep))
		}
	} else if l.a.node == nil {
		s.Links = append(s.Links, l.a.brain.link(ctx))
	}
	if l.a.node != nil {
		s.Links = append(s.Links, centerLink(l.a.cfg.Center.URL, l.a.node.Link()))
	}
	return s
}

// centerLink describes the link to the center.
func centerLink(url string, k center.Link) control.Check {
	switch {
	case k.Up && k.Checked.IsZero():
		return control.Check{Name: "center", OK: true, Detail: url + ", not asked yet"}
	case k.Up:
		return control.Check{Name: "center", OK: true, Detail: fmt.Sprintf("%s, connected, last round trip %v", url, k.RTT.Round(time.Millisecond))}
	}
	return control.Check{Name: "center", Detail: fmt.Sprintf("%s, unreachable since %s: %s", url, k.Checked.Format("15:04:05"), k.Err)}
}

// modelLink describes one server of the fallback chain.
func modelLink(ep llm.EndpointStatus) control.Check {
	name := "model " + ep.Host
	switch {
	case ep.Up && ep.Answering:
		return control.Check{Name: name, OK: true, Detail: ep.Model + ", answering"}
	case ep.Up:
		return control.Check{Name: name, OK: true, Detail: ep.Model + ", standing by"}
	}
	return control.Check{Name: name, Detail: fmt.Sprintf("%s, down since %s: %s", ep.Model, ep.Since.Format("15:04:05"), ep.Err)}
}
