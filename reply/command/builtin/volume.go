package builtin

import (
	"context"
	"fmt"
	"strings"

	"github.com/harkbox/hark/locale/utterance"
	"github.com/harkbox/hark/reply/command"
)

// Mixer is the speaker's volume, kept across reboots.
type Mixer interface {
	// Volume returns the level (0–100) and whether output is muted.
	Volume(ctx context.Context) (level int, muted bool, err error)
	// SetVolume sets both.
	SetVolume(ctx context.Context, level int, muted bool) error
}

// VolumeStep is how much "louder" and "quieter" change the volume.
const VolumeStep = 10

var (
	upPhrases   = []string{"louder", "turn it up", "turn up the volume", "turn the volume up", "volume up", "increase the volume", "raise the volume", "a bit louder", "speak up", "more volume", "turn up", "a little louder", "make it louder", "make it a bit louder", "louder still"}
	downPhrases = []string{"quieter", "softer", "turn it down", "turn down the volume", "turn the volume down", "volume down", "lower the volume", "decrease the volume", "a bit quieter", "too loud", "less volume", "turn down", "a little quieter", "lower", "make it quieter", "make it softer", "make it a bit quieter"}
)

// Volume is control_volume.
func Volume(m Mixer) *command.Command {
	return &command.Command{
		Name:        "control_volume",
		Description: "Set, raise, lower, mute or unmute the speaker volume (0-100).",
		Keywords:    []string{"volume", "louder", "quieter", "mute"},
		Parameters: []command.Parameter{
			{Name: "action", Type: "string", Required: true, Enum: []string{"set", "up", "down", "mute", "unmute", "get"}},
			// A level outside 0-100 is refused by Run, in words the user hears.
			{Name: "level", Type: "int", Refinable: true, Description: "0-100, for set"},
		},
		Examples: []command.Example{{Utterance: "turn it up", Arguments: map[string]any{"action": "up"}}},
		// "set the volume to 50", said to the speaker with no device or
		// room named, is the speaker's own volume.
		Intents:    []string{"HassSetVolume", "control_volume"},
		FromIntent: volumeFromIntent,
		Refine: func(text string, last command.Args) (command.Args, bool) {
			t := trim(text)
			switch {
			case oneOf(t, append(upPhrases, "more", "a bit more", "even louder", "again", "still louder", "more please")...):
				if oneOf(t, "again") && last.String("action") != "up" && last.String("action") != "down" {
					return nil, false
				}
				if oneOf(t, "again") {
					return command.Args{"action": last.String("action")}, true
				}
				return command.Args{"action": "up"}, true
			case oneOf(t, append(downPhrases, "less", "a bit less", "even quieter", "still quieter")...):
				return command.Args{"action": "down"}, true
			}
			for _, cue := range []string{"actually", "make it", "no", "change it to", "set it to"} {
				if rest, ok := strings.CutPrefix(t, cue+" "); ok {
					words := utterance.Words(rest)
					if v, n, ok := utterance.Number(words); ok && (n == len(words) || n == len(words)-1 && words[n] == "percent") {
						return command.Args{"action": "set", "level": scaleLevel(v, n < len(words))}, true
					}
				}
			}
			return nil, false
		},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			level, muted, err := m.Volume(ctx)
			if err != nil {
				return command.Response{}, err
			}
			l := lang(c)
			switch c.Args.String("action") {
			case "set":
				if !c.Args.Has("level") {
					return command.Response{Kind: command.Invalid, Spoken: l.T("What volume, from 0 to 100?"), Problems: []command.Problem{{Param: "level", Message: "set needs a level"}}}, nil
				}
				level, muted = int(c.Args.Int("level")), false
				if level < 0 || level > 100 {
					return command.Response{Kind: command.Failure, Spoken: l.T("Volume goes from 0 to 100."),
						Data: map[string]any{"error": fmt.Sprintf("volume %d is outside 0 to 100", level)}}, nil
				}
			case "up":
				if level >= 100 && !muted {
					return command.Said(l.T("That's as loud as I go."), map[string]any{"level": level}), nil
				}
				level, muted = min(100, level+VolumeStep), false
			case "down":
				level = max(0, level-VolumeStep)
			case "mute":
				muted = true
			case "unmute":
				muted = false
			case "get":
				if muted {
					return command.Said(l.T("I'm muted. The volume is set to %d.", level), map[string]any{"level": level, "muted": true}), nil
				}
				return command.Said(l.T("The volume is %d.", level), map[string]any{"level": level, "muted": false}), nil
			}
			if err := m.SetVolume(ctx, level, muted); err != nil {
				return command.Response{}, err
			}
			data := map[string]any{"level": level, "muted": muted}
			switch c.Args.String("action") {
			case "mute":
				return command.Said("", data), nil // a muted speaker says nothing
			case "unmute":
				return command.Said(l.T("Sound is back on."), data), nil
			}
			return command.Said(l.T("Volume %d.", level), data), nil
		},
	}
}

func scaleLevel(v float64, pct bool) int {
	if !pct && v <= 10 {
		v *= 10
	}
	return int(max(0, min(100, v)))
}
