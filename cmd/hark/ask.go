package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/harkbox/hark/device/box"
	"github.com/harkbox/hark/device/control"
)

// errorText is the reply's error for the JSON output.
func errorText(hint *control.HintError, err error) string {
	switch {
	case hint != nil:
		return hint.Err.Error()
	case err != nil:
		return err.Error()
	}
	return ""
}

// catchUpFor bounds what hark ask without the daemon spends, after its
// answer, on the diary entries earlier conversations left unwritten: as
// long as a stopping box waits for its own (reply.CloseWait). A model call
// the server is working on then is let finish, and no other begins, so
// that a slow server gets an entry written at each hark ask rather than
// one given up every time; a silent one is given up at once.
const catchUpFor = 3 * time.Second

// cmdAsk answers one typed question through the reply engine, exactly as a
// spoken one is answered, and prints what would be said: the running
// daemon's engine, or this process's own when no daemon runs. Without the
// daemon, which writes the diary in the background, it then writes the
// entries earlier conversations left unwritten, for about catchUpFor:
// recall finds a conversation only by its entry.
func cmdAsk(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("ask", e, g)
	asJSON := fs.Bool("json", false, "print the reply, the tools called and the timings as JSON")
	verbose := fs.Bool("verbose", false, "log warnings and more to standard error (only errors otherwise)")
	cont := fs.Bool("continue", false, "continue your last hark ask conversation (each question starts its own otherwise)")
	conv := fs.String("conversation", "", "continue this conversation of yours (--json shows each answer's)")
	if err := parse(e, fs, args); err != nil {
		return err
	}
	text := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if text == "" {
		return usageError(e, fs, "the question is empty: hark ask TEXT")
	}
	floor := slog.LevelError
	if *verbose {
		floor = slog.LevelDebug
	}
	c, b, done, err := connectBox(ctx, e, g, floor)
	if err != nil {
		return err
	}
	defer done()

	first := true
	raw, replyErr := c.AskNoting(ctx, control.Question{Text: text, Continue: *cont, Conversation: *conv}, func(s string) {
		if *asJSON {
			return
		}
		if !first {
			fmt.Fprint(e.stdout, " ")
		}
		first = false
		fmt.Fprint(e.stdout, s)
	}, func(n string) { fmt.Fprintln(e.stderr, "hark: "+n) })
	if b != nil && replyErr == nil {
		// After everything is printed (deferred calls run last first),
		// and not after a failure: a model server that just failed the
		// question is not asked for more.
		defer catchUp(ctx, b)
	}
	var hint *control.HintError
	if errors.As(replyErr, &hint) && hint.Hint != "" {
		// The spoken sentence said what went wrong; this says what to do.
		defer fmt.Fprintln(e.stderr, "hint: "+hint.Hint)
		replyErr = errReported
	}
	if !*asJSON {
		fmt.Fprintln(e.stdout)
		return replyErr
	}
	if raw == nil && replyErr != nil && !errors.Is(replyErr, errReported) {
		return replyErr // the question never reached the engine
	}
	// The engine's result as it sent it, with the error added.
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if msg := errorText(hint, replyErr); msg != "" {
		m, _ := json.Marshal(msg)
		body := bytes.TrimSuffix(bytes.TrimSpace(raw), []byte("}"))
		if len(bytes.TrimSpace(body)) > 1 {
			body = append(body, ',')
		}
		raw = append(append(body, `"error":`...), append(m, '}')...)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, raw, "", "  "); err != nil {
		return fmt.Errorf("reading the reply: %w", err)
	}
	pretty.WriteByte('\n')
	if _, err := e.stdout.Write(pretty.Bytes()); err != nil {
		return err
	}
	if notUnderstood(raw) {
		return nil // said so in one sentence: the contract's exit 0
	}
	return replyErr
}

// notUnderstood reports a reply that says the offline path did not
// understand and the model could not be asked.
func notUnderstood(raw json.RawMessage) bool {
	var r struct {
		NotUnderstood string `json:"not_understood"`
	}
	return json.Unmarshal(raw, &r) == nil && r.NotUnderstood != ""
}

// catchUp writes the diary backlog of b for about catchUpFor, or until
// ctx is done (the user pressed Ctrl-C).
func catchUp(ctx context.Context, b *box.Box) {
	b.CatchUpDiary(ctx, catchUpFor)
}
