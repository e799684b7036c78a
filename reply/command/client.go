package command

import "context"

// Client is who a command runs for: the box's own microphone, or another
// asker (a `hark ask` session, a web session, a center's node). Each has
// its own last call to refine ("make it 20 minutes" changes the asker's own
// timer), and only the box's microphone silences the ringing by a plain
// "stop": anyone else says so ("stop the timer").
type Client struct {
	// ID names the client; "" is the box's microphone.
	ID string
	// Here is set for the box's own microphone: the person in the room.
	Here bool
}

type clientKey struct{}

// WithClient returns ctx carrying the client a turn answers.
func WithClient(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// ClientOf is the client ctx carries; a context without one is the box's
// own microphone (a node's offline path, a test).
func ClientOf(ctx context.Context) Client {
	if c, ok := ctx.Value(clientKey{}).(Client); ok {
		return c
	}
	return Client{Here: true}
}

type assistantKey struct{}

// WithAssistant returns ctx carrying the assistant's name, for the
// commands that say it ("I'm Jarvis").
func WithAssistant(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, assistantKey{}, name)
}

// AssistantOf is the assistant's name ctx carries; "" when it carries none.
func AssistantOf(ctx context.Context) string {
	name, _ := ctx.Value(assistantKey{}).(string)
	return name
}
