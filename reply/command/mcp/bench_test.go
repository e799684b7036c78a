package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harkbox/hark/reply/command"
)

// BenchmarkCallOverhead is one tool call through the catalogue: a command
// in process (the floor), then the same sum over MCP on stdio and on
// streamable HTTP over loopback.
func BenchmarkCallOverhead(b *testing.B) {
	args := map[string]any{"a": 19, "b": 23}
	b.Run("in-process", func(b *testing.B) {
		reg := command.NewRegistry(command.Options{})
		reg.Register(&command.Command{Name: "get_sum", Description: "Adds.",
			Parameters: []command.Parameter{{Name: "a", Type: "float"}, {Name: "b", Type: "float"}},
			Run: func(_ context.Context, c command.Call) (command.Response, error) {
				return command.Response{Data: map[string]any{"result": c.Args.Float("a") + c.Args.Float("b")}}, nil
			}})
		for b.Loop() {
			reg.Call(b.Context(), "get_sum", args, "")
		}
	})
	for _, transport := range []string{"stdio", "http"} {
		b.Run(transport, func(b *testing.B) {
			reg := command.NewRegistry(command.Options{})
			s := Server{Name: "kit"}
			if transport == "stdio" {
				s = selfServer(b, "kit", "sdk")
			} else {
				srv := testServer()
				ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
				b.Cleanup(ts.Close)
				s.URL = ts.URL
			}
			h, err := New(Options{Servers: []Server{s}, Catalogue: reg})
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			b.Cleanup(func() { cancel(); h.Wait() })
			h.Start(ctx)
			rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
			defer rcancel()
			h.Ready(rctx)
			if r := reg.Call(ctx, "get_sum", args, ""); r.Kind != command.Success {
				b.Fatalf("%+v", r)
			}
			for b.Loop() {
				reg.Call(ctx, "get_sum", args, "")
			}
		})
	}
}
