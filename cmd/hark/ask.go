package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/harkbox/hark/reply"
)

// cmdAsk answers one typed question through the reply engine, exactly as a
// spoken one is answered, and prints what would be said.
func cmdAsk(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("ask", e, g)
	asJSON := fs.Bool("json", false, "print the reply, the tools called and the timings as JSON")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "usage: hark ask [--json] [--data DIR] [--config FILE] TEXT...")
		fs.PrintDefaults()
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	text := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if text == "" {
		fs.Usage()
		return errUsage
	}
	a, err := openOneShot(e, g)
	if err != nil {
		return err
	}
	defer a.close()

	first := true
	result, replyErr := a.engine.Reply(ctx, reply.Query{Text: text}, func(s string) {
		if *asJSON {
			return
		}
		if !first {
			fmt.Fprint(e.stdout, " ")
		}
		first = false
		fmt.Fprint(e.stdout, s)
	})
	if !*asJSON {
		fmt.Fprintln(e.stdout)
		return replyErr
	}
	out := struct {
		reply.Result
		Error string `json:"error,omitempty"`
	}{Result: result}
	if replyErr != nil {
		out.Error = replyErr.Error()
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	return replyErr
}
